// The command line end to end: exit codes, whole-or-nothing outputs, determinism, and the fio
// example of the foundation issue.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <fstream>
#include <sstream>
#include <nlohmann/json.hpp>

#include "sim/output.h"
#include "validation.h"
#include "core/input_file.h"
#include "core/utf8.h"
#include "test_support.h"

using poolsim::testing::run_cli;
using poolsim::testing::temp_path;
using poolsim::testing::write_temp;

namespace {
const std::string kExample = std::string(POOLSIM_SOURCE_DIR) + "/scenarios/examples/fio-randread.yaml";
const char* kSmall =
    "storage: {kind: pool, nodes: [{name: s1, devices: 2}]}\n"
    "workload: {fio: {rw: randrw, iodepth: 8, fsync: 4}}\n"
    "simulation: {seed: 11, warmup: 5ms, batch: 10ms, max_duration: 200ms}\n"
    "sweep: {workload.fio.iodepth: [1, 8]}\n";
}  // namespace

TEST(Cli, BadInputExitsTwoAndWritesNothing) {
  std::string bad = write_temp("bad.yaml", "compute:\n  cores: many\n");
  std::string out = temp_path("never.json");
  auto r = run_cli("run " + bad + " --format json --out " + out);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "bad.yaml:2:10");
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_TRUE(r.out.empty());
}

TEST(Cli, BadSetExitsTwo) {
  std::string good = write_temp("good.yaml", kSmall);
  auto r = run_cli("run " + good + " --set workload.fio.iodepht=4");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "did you mean 'iodepth'");
  // The library applies overrides in order (the Python sweeps override a scenario's own); the
  // command line refuses the same key typed twice.
  r = run_cli("run " + good + " --set workload.fio.iodepth=2 --set workload.fio.iodepth=4");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "--set gives this key twice");
  // A check across two keys that a --set makes fail (the batch against max_duration) was named at the
  // file's line of the other key only; the scenario loads alone, so the --set is named (as a plan's
  // value is, PlanInput.AClashAnOptionCausesIsNamedAtTheOption).
  r = run_cli("run " + good + " --set simulation.max_duration=1e308s");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "--set simulation.max_duration=1e308s: key 'simulation.batch': with the scenario's own settings this value is refused: ");
  EXPECT_CONTAINS(r.err, "good.yaml:3:");
  // A check across sections: no --set is in the section of the key reported (the file's database
  // section, refused once the workload is no longer sysbench's; its buffer pool, refused by a smaller
  // compute.memory), so the --set that alone makes the file fail is named; it was the file's line.
  std::string sysbench = write_temp("sysbench.yaml",
                                    "storage: {kind: local, device: pcie4-nvme-tlc}\n"
                                    "workload: {kind: sysbench, tables: 2, table_size: 10000, threads: 2}\n"
                                    "database: {buffer_pool: 64MiB}\n"
                                    "simulation: {seed: 1, warmup: 5ms, batch: 10ms, max_duration: 200ms}\n");
  r = run_cli("run " + sysbench + " --set simulation.seed=3 --set workload=null");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "--set workload=null: key 'database': with the scenario's own settings this value is refused: ");
  EXPECT_CONTAINS(r.err, "sysbench.yaml:3:");
  r = run_cli("run " + sysbench + " --set compute.memory=32MiB");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "--set compute.memory=32MiB: key 'database.buffer_pool': with the scenario's own settings this value is refused: ");
  // A file that fails alone is the file's error, whatever the --set.
  std::string clash = write_temp("clash.yaml", std::string(kSmall) + "database: {io_capacity: 5000, io_capacity_max: 2000}\n");
  r = run_cli("run " + clash + " --set simulation.seed=3");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "clash.yaml:5:");
  EXPECT_EQ(r.err.find("--set simulation.seed"), std::string::npos) << r.err;
}

// `--set k=v FILE`: the file after an override is the scenario, not a second override (the option
// took every argument after it and then said the file was missing).
TEST(Cli, TheScenarioMayFollowASet) {
  std::string good = write_temp("good.yaml", kSmall);
  auto r = run_cli("run --set workload.fio.rw=randread --set simulation.max_duration=50ms " + good + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto points = nlohmann::json::parse(r.out)["points"];
  ASSERT_EQ(points.size(), 2u);
  EXPECT_EQ(points[0]["params"]["workload.fio.rw"], "randread");
  EXPECT_EQ(points[0]["params"]["simulation.max_duration"], "50ms");
  // Two values after one --set: the second is taken for the scenario file, and named as such.
  r = run_cli("run --set workload.fio.rw=randread simulation.max_duration=50ms " + good);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "simulation.max_duration=50ms");
}

TEST(Cli, BadArgumentsExitTwo) {
  EXPECT_EQ(run_cli("run /nonexistent.yaml").exit_code, 2);
  EXPECT_EQ(run_cli("run " + kExample + " --format xml").exit_code, 2);
  EXPECT_EQ(run_cli("frobnicate").exit_code, 2);
  EXPECT_EQ(run_cli("run " + kExample + " --jobs 0").exit_code, 2);
  EXPECT_EQ(run_cli("--help").exit_code, 0);
}

// Standard output on a full device (/dev/full): help, a verb's help and a table that could not be
// written are a failure named on stderr, not a silent exit 0.
TEST(Cli, StandardOutputThatCannotBeWrittenIsAnError) {
  const std::string err = temp_path("full-err");
  auto run_to_full = [&](const std::string& args) {
    const std::string command = std::string(POOLSIM_BINARY) + " " + args + " >/dev/full 2>" + err + " </dev/null";
    const int status = std::system(command.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  std::string good = write_temp("good.yaml", kSmall);
  for (const std::string& args : {std::string("--help"), std::string("run --help"), std::string("plan --help"),
                                  "run " + good, "run " + good + " --format json", std::string("schema")}) {
    EXPECT_NE(run_to_full(args), 0) << args;
    EXPECT_CONTAINS(poolsim::testing::read_file(err), "poolsim: error: cannot write to standard output: No space left on device");
  }
}

// A point that runs out of memory names what it tracks and the keys that size it (std::bad_alloc
// alone named nothing). Under a 1.2 GB address-space limit, a 4-billion-row table and a 400 GiB
// pool (some 60M pages and 26M frames) do not fit; the point fails with exit 3.
TEST(Cli, APointOutOfMemorySaysWhichKeysSizeIt) {
  const std::string err = temp_path("oom-err");
  const std::string command = "ulimit -v 1200000; " + std::string(POOLSIM_BINARY) + " run " + POOLSIM_SOURCE_DIR +
                              "/scenarios/default.yaml --set workload.tables=1 --set workload.table_size=4000000000"
                              " --set database.buffer_pool=400GiB --set 'sweep.workload.threads=[8]' --set 'sweep.storage.kind=[local]'"
                              " --jobs 1 >/dev/null 2>" + err + " </dev/null";
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3);
  const std::string text = poolsim::testing::read_file(err);
  EXPECT_CONTAINS(text, "failed: ran out of memory (std::bad_alloc): poolsim tracks every page of the data set (workload.tables 1 x "
                        "workload.table_size 4000000000 rows) and every frame of the pool (database.buffer_pool 400GiB)");
}

TEST(Cli, SameSeedGivesByteIdenticalJson) {
  std::string good = write_temp("good.yaml", kSmall);
  auto a = run_cli("run " + good + " --format json --jobs 2");
  auto b = run_cli("run " + good + " --format json --jobs 1");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(a.out, b.out);
  auto c = run_cli("run " + good + " --format json --set simulation.seed=12");
  EXPECT_NE(a.out, c.out);
}

TEST(Cli, OutWritesTheWholeDocument) {
  std::string good = write_temp("good.yaml", kSmall);
  std::string out = temp_path("result.csv");
  auto r = run_cli("run " + good + " --format csv --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(out);
  std::string header;
  std::getline(in, header);
  EXPECT_CONTAINS(header, "workload.fio.iodepth,iops");
  EXPECT_FALSE(std::filesystem::exists(out + ".tmp-poolsim"));
}

TEST(Cli, OnePointShowsItsProgressWhenAsked) {
  // A single point's progress line (on a terminal, or with POOLSIM_PROGRESS=1) goes to stderr only;
  // without either, stderr stays quiet and stdout is the same.
  const std::string one = write_temp("one-point.yaml",
                                     "storage: {kind: local}\n"
                                     "workload: {fio: {rw: randread, iodepth: 4}}\n"
                                     "simulation: {seed: 5, warmup: 5ms, batch: 10ms, max_duration: 100ms}\n");
  auto quiet = run_cli("run " + one + " --format json");
  ASSERT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_EQ(quiet.err.find("measuring:"), std::string::npos);
  setenv("POOLSIM_PROGRESS", "1", 1);
  auto shown = run_cli("run " + one + " --format json");
  unsetenv("POOLSIM_PROGRESS");
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_CONTAINS(shown.err, "poolsim: measuring: ");
  EXPECT_EQ(shown.err.back(), '\n');  // the line is ended when the point ends
  EXPECT_EQ(shown.out, quiet.out);
  // A warm-up replayed without timing shows its virtual seconds as it goes (one call, minutes long
  // for the seeds' large pools).
  const std::string replayed = write_temp("replayed-point.yaml",
                                          "compute: {cores: 2}\n"
                                          "workload: {kind: sysbench, test: oltp_read_write, tables: 1, table_size: 1000000, threads: 2}\n"
                                          "database: {buffer_pool: 64MiB}\n"
                                          "simulation: {seed: 5, warmup: 1s, warmup_turnovers: 30, warmup_fast_forward: true, batch: 0.5s, "
                                          "min_batches: 2, max_duration: 1s}\n");
  setenv("POOLSIM_PROGRESS", "1", 1);
  auto replay = run_cli("run " + replayed + " --format json");
  unsetenv("POOLSIM_PROGRESS");
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  EXPECT_CONTAINS(replay.err, "poolsim: warm-up: replaying ");
}

// Runs `poolsim ARGS` with a TMPDIR of its own, sends it SIGTERM after a second and checks that it
// died of the signal, left nothing in its TMPDIR and no process of its own running (its children
// share its environment, the marker).
void expect_clean_interrupt(const std::string& name, const std::string& args) {
  const std::string tmp = temp_path(name + "-tmp"), status = temp_path(name + "-status");
  std::filesystem::remove_all(tmp);
  std::filesystem::create_directories(tmp);
  const std::string command = "TMPDIR=" + tmp + " " + POOLSIM_BINARY + " " + args +
                              " >/dev/null 2>&1 & pid=$!; sleep 1; kill -TERM $pid; wait $pid; echo $? >" + status;
  ASSERT_EQ(std::system(command.c_str()), 0);
  std::ifstream in(status);
  int code = 0;
  in >> code;
  EXPECT_EQ(code, 128 + SIGTERM) << args;
  EXPECT_TRUE(std::filesystem::is_empty(tmp)) << "a file was left in " << tmp << " by " << args;
  const std::string marker = "TMPDIR=" + tmp + std::string(1, '\0');
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    std::ifstream environ(entry.path() / "environ");
    std::string text((std::istreambuf_iterator<char>(environ)), std::istreambuf_iterator<char>());
    EXPECT_EQ(text.find(marker), std::string::npos) << "still running: " << entry.path() << " (" << args << ")";
  }
}

TEST(Cli, AnInterruptedSweepStopsItsPointsAndLeavesNoFiles) {
  // SIGTERM (or Ctrl-C) while a sweep's points run in child processes: the children stop, the
  // directory their results come back through is removed, and poolsim dies of the signal (no output).
  const std::string scenario = write_temp("interrupted.yaml",
                                          "storage: {kind: local}\n"
                                          "workload: {fio: {rw: randread, iodepth: 8}}\n"
                                          "simulation: {seed: 3, warmup: 1s, batch: 1s, min_batches: 1000, max_duration: 1000s}\n"
                                          "sweep: {workload.fio.iodepth: [1, 2, 4, 8]}\n");
  const std::string out = temp_path("interrupted.json");
  std::filesystem::remove(out);
  expect_clean_interrupt("sweep", "run " + scenario + " --jobs 2 --format json --out " + out);
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(Cli, AnInterruptedBenchOrValidateLeavesNoFiles) {
  // The benchmark's points and validate's (with its scratch catalogue) go the same way.
  expect_clean_interrupt("bench", "bench");
  const std::string traces = std::string(POOLSIM_SOURCE_DIR) + "/traces/local-vm/";
  expect_clean_interrupt("validate", "validate --profile " + traces + "profile.yaml " + traces + "disk-bp1G-t1 " + traces +
                                         "disk-bp1G-t4 " + traces + "disk-bp1G-t16 " + traces + "disk-bp1G-t64 --jobs 2 --duration 60");
}

TEST(Cli, OutFollowsALinkAndRefusesADirectory) {
  // The rename that makes an output whole would replace a symbolic link with a file: the file the
  // link names is written instead. A directory is an error, and nothing is left beside it.
  std::string good = write_temp("good.yaml", kSmall);
  std::string real = temp_path("real.csv"), link = temp_path("link.csv");
  std::filesystem::remove(link);
  std::filesystem::create_symlink(real, link);
  auto r = run_cli("run " + good + " --format csv --out " + link);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_GT(std::filesystem::file_size(real), 0u);
  std::string dir = temp_path("out-dir");
  std::filesystem::create_directories(dir);
  r = run_cli("run " + good + " --format csv --out " + dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "--out: '" + dir + "' is a directory: name the file to write");
  // calibrate -o DIR/ fitted the traces, then failed on a profile named "" in a temporary file.
  r = run_cli("calibrate " + std::string(POOLSIM_SOURCE_DIR) + "/traces/local-vm/disk-bp1G-t4 -o " + dir + "/");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "-o: '" + dir + "/' is a directory: name the file to write");
  EXPECT_TRUE(std::filesystem::is_empty(dir));
  r = run_cli("run " + good + " --format csv --out " + temp_path("no-such-dir") + "/x.csv");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "there is no directory '" + temp_path("no-such-dir") + "' to write it in");
  // calibrate said so only after the whole fit.
  r = run_cli("calibrate " + std::string(POOLSIM_SOURCE_DIR) + "/traces/local-vm/disk-bp1G-t4 -o " + temp_path("no-such-dir") + "/p.yaml");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "-o: '" + temp_path("no-such-dir") + "/p.yaml': there is no directory");
}

TEST(Cli, OutputsThatBelongTogetherAreAllOrNothing) {
  // calibrate's profile and its devices file: when one cannot be written, neither replaces its target.
  std::string first = temp_path("together.yaml"), second = temp_path("together-devices.yaml");
  std::filesystem::remove_all(second);
  { std::ofstream(first) << "old\n"; }
  std::filesystem::create_directories(second);
  EXPECT_THROW(poolsim::write_outputs({{first, "new\n"}, {second, "devices\n"}}), std::runtime_error);
  std::ifstream in(first);
  std::string text;
  std::getline(in, text);
  EXPECT_EQ(text, "old");
  EXPECT_FALSE(std::filesystem::exists(first + ".tmp-poolsim"));
}

TEST(Cli, ANumberOptionMustBeFiniteAndNotNegative) {
  for (const char* value : {"-5", "nan", "inf", "abc"}) {
    auto r = run_cli("validate --scenario " + kExample + " --table " + kExample + " --max-error " + value);
    EXPECT_EQ(r.exit_code, 2) << value;
    EXPECT_CONTAINS(r.err, "finite number >= 0");
  }
}

TEST(Cli, ATraceGivenTwiceToCalibrateAndContradictoryPlanFlagsAreErrors) {
  const std::string trace = std::string(POOLSIM_SOURCE_DIR) + "/traces/local-vm/disk-bp1G-t4";
  auto r = run_cli("calibrate " + trace + " " + trace + "/ -o " + temp_path("twice.yaml"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "given twice");
  EXPECT_FALSE(std::filesystem::exists(temp_path("twice.yaml")));
  const std::string plan = std::string(POOLSIM_SOURCE_DIR) + "/scenarios/plans/seed000-ram-or-io.yaml";
  r = run_cli("plan " + plan + " --bounds-only --cheapest-only");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.out + r.err, "excludes");
  // A table has no fio jobs to remeasure devices from: the flag was ignored without a word.
  const std::string seed = std::string(POOLSIM_SOURCE_DIR) + "/scenarios/seeds/ndb-rdma";
  r = run_cli("validate --scenario " + seed + ".yaml --table " + seed + ".csv --remeasured-devices");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.out + r.err, "--remeasured-devices excludes --table");
  // --devices neither: the table's scenario names its own catalogue, and the file was not even read.
  r = run_cli("validate --scenario " + seed + ".yaml --table " + seed + ".csv --devices " + seed + ".csv");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.out + r.err, "--devices excludes --table");
}

// The foundation issue's "done when": queueing shows (latency rises with depth past the device's
// parallelism) and the fabric adds latency.
TEST(Cli, FioExampleShowsQueueingAndFabricLatency) {
  auto r = run_cli("run " + kExample + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  std::map<std::string, std::map<int, double>> latency_us;
  for (const auto& p : doc["points"]) {
    latency_us[p["params"]["storage.kind"]][p["params"]["workload.fio.iodepth"]] = p["latency_us"]["mean"];
    EXPECT_TRUE(p.contains("devices"));
    EXPECT_TRUE(p.contains("links"));
  }
  for (const char* kind : {"local", "pool"}) {
    auto& l = latency_us[kind];
    EXPECT_LT(l[2] / l[1], 1.02) << kind;  // flat while units idle
    EXPECT_GT(l[64], 1.4 * l[1]) << kind;  // rising once they are busy
    for (int qd = 2; qd <= 64; qd *= 2) EXPECT_GE(l[qd], l[qd / 2] * 0.999) << kind << " qd " << qd;
  }
  double added = latency_us["pool"][1] - latency_us["local"][1];
  EXPECT_GT(added, 6.0);
  EXPECT_LT(added, 12.0);
}

// The JSON Schemas shipped for editors are the ones the binary generates.
TEST(Cli, ShippedJsonSchemasAreCurrent) {
  for (const auto& [kind, file] : std::vector<std::pair<std::string, std::string>>{
           {"scenario", "/scenarios/poolsim.schema.json"}, {"catalogue", "/scenarios/catalogue/catalogue.schema.json"},
           {"plan", "/scenarios/plans/plan.schema.json"}}) {
    auto r = run_cli("schema " + kind);
    ASSERT_EQ(r.exit_code, 0);
    std::ifstream in(std::string(POOLSIM_SOURCE_DIR) + file);
    std::stringstream shipped;
    shipped << in.rdbuf();
    EXPECT_EQ(r.out, shipped.str()) << file << " is stale: regenerate with build/poolsim schema " << kind << " > ." << file;
  }
}

// Under a sweep over storage.kind with local and pool (the main job), the table ends with the pool
// against local for each setting of the other parameters: TPS, p95 and p99 in %.
TEST(Cli, TableComparesThePoolWithLocalUnderAStorageSweep) {
  auto point = [](const char* kind, int threads, double tps, double p95, double p99) {
    nlohmann::ordered_json p;
    p["params"] = {{"storage.kind", kind}, {"workload.threads", threads}};
    p["tps"] = tps;
    p["latency_ms"] = {{"mean", 1.0}, {"p95", p95}, {"p99", p99}};
    return p;
  };
  const std::string table = poolsim::render({point("local", 8, 1000, 4.0, 5.0), point("local", 16, 1800, 5.0, 6.0),
                                             point("pool", 8, 950, 5.0, 5.5), point("pool", 16, 1980, 4.0, 6.0)},
                                            poolsim::OutputFormat::Table);
  const auto at = table.find("pool vs local");
  ASSERT_NE(at, std::string::npos) << table;
  std::istringstream rows(table.substr(at));
  std::string line, threads, tps, p95, p99;
  std::getline(rows, line);  // the title
  std::getline(rows, line);  // the headers
  EXPECT_CONTAINS(line, "workload.threads");
  rows >> threads >> tps >> p95 >> p99;
  EXPECT_EQ(threads + " " + tps + " " + p95 + " " + p99, "8 -5.0 +25.0 +10.0");
  rows >> threads >> tps >> p95 >> p99;
  EXPECT_EQ(threads + " " + tps + " " + p95 + " " + p99, "16 +10.0 -20.0 +0.0");
  // No such sweep, no comparison.
  EXPECT_EQ(poolsim::render({point("local", 8, 1000, 4.0, 5.0)}, poolsim::OutputFormat::Table).find("pool vs local"), std::string::npos);
}

namespace {
// A table scenario of the fuzzing pass: sysbench, one thread column, measured TPS.
const char* kTableScenario =
    "compute: {count: 1, cores: 2, memory: 4GiB}\n"
    "storage: {kind: local, device: pcie4-nvme-tlc}\n"
    "database: {buffer_pool: 64MiB}\n"
    "workload: {kind: sysbench, test: oltp_read_write, tables: 2, table_size: 100000, rand_type: uniform, threads: 4}\n"
    "simulation: {seed: 1, warmup: 200ms, batch: 100ms, min_batches: 5, target_ci: 5%, max_duration: 1s}\n"
    "validation:\n"
    "  columns:\n"
    "    thr: {key: workload.threads}\n"
    "  measured: {tps: tps}\n";
}  // namespace

TEST(Cli, AValidateGateOfZeroIsAGate) {
  // 0 was taken for "no gate": --max-error 0 passed a 5 % error, and a table with no row. (A table
  // with no row is now an input error of its own, exit 2: Validate.NothingToCompareIsAnError...)
  const std::string scenario = write_temp("gate0.yaml", kTableScenario);
  const std::string one_row = write_temp("gate0-one-row.csv", "thr,tps\n4,1\n");
  for (const char* gate : {"--max-error 0", "--max-point-error 0", "--max-p95-error 0", "--max-error -0"}) {
    auto r = run_cli("validate --scenario " + scenario + " --table " + one_row + " " + gate);
    EXPECT_EQ(r.exit_code, 1) << gate << ": " << r.err;
    EXPECT_CONTAINS(r.err, std::string(gate) == "--max-p95-error 0" ? "no row has a measured" : "is above");
  }
  EXPECT_EQ(run_cli("validate --scenario " + scenario + " --table " + one_row).exit_code, 0);  // no gate given
  EXPECT_EQ(run_cli("validate --scenario " + scenario + " --table " + write_temp("gate0-empty.csv", "thr,tps\n")).exit_code, 2);
  nlohmann::ordered_json doc = {{"summary", {{"median_abs_error_pct", {{"tps", 5.4}}}, {"max_abs_error_pct", {{"tps", 5.4}}}}}};
  poolsim::ValidationThresholds gate;
  gate.max_median_tps_error_pct = 0.0;
  EXPECT_EQ(poolsim::threshold_failures(doc, gate).size(), 1u);
  doc["summary"]["median_abs_error_pct"]["tps"] = 0.0;
  EXPECT_TRUE(poolsim::threshold_failures(doc, gate).empty());
}

TEST(Cli, OutMayNotReplaceAnInputOfTheCommand) {
  // `run same.yaml --out same.yaml` replaced the scenario with its results, exit 0.
  const std::string scenario = write_temp("self.yaml", kSmall);
  auto r = run_cli("run " + scenario + " --out " + scenario);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "an input of this command");
  EXPECT_EQ(poolsim::testing::read_file(scenario), kSmall);
  const std::string link = temp_path("self-link.yaml");  // the same file through a link
  std::filesystem::remove(link);
  std::filesystem::create_symlink(scenario, link);
  EXPECT_EQ(run_cli("run " + scenario + " --bounds --out " + link).exit_code, 2);
  // An empty path is no file (it wrote to stdout as if --out were absent).
  r = run_cli("run " + scenario + " --out ''");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "an empty path names no file");
  // validate's table, and a file of a trace given to calibrate (checked before any fit).
  const std::string table_scenario = write_temp("self-table.yaml", kTableScenario);
  const std::string table = write_temp("self-table.csv", "thr,tps\n");
  r = run_cli("validate --scenario " + table_scenario + " --table " + table + " --out " + table);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "the table");
  EXPECT_EQ(poolsim::testing::read_file(table), "thr,tps\n");
  const std::string trace = temp_path("self-trace");
  std::filesystem::remove_all(trace);
  std::filesystem::copy(std::string(POOLSIM_SOURCE_DIR) + "/traces/local-vm/disk-bp1G-t4", trace, std::filesystem::copy_options::recursive);
  r = run_cli("calibrate " + trace + " -o " + trace + "/meta.yaml");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "a file of the trace");
}

TEST(Cli, OutMayNotReplaceAFileTheScenarioReads) {
  // --out named the scenario's `catalogue:` file or its `database.profile` file: only the scenario
  // itself was checked, and the run replaced the catalogue (or the profile) with its results.
  const std::string dir = temp_path("reads");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string catalogue_text = "{}\n";
  {
    std::ofstream(dir + "/cat.yaml") << catalogue_text;
    std::ofstream(dir + "/prof.yaml") << poolsim::testing::read_file(std::string(POOLSIM_SOURCE_DIR) + "/traces/local-vm/profile.yaml");
    std::ofstream(dir + "/s.yaml") << "catalogue: [cat.yaml]\ndatabase: {profile: prof.yaml, buffer_pool: 64MiB}\n"
                                       "workload: {kind: sysbench, tables: 2, table_size: 100000, threads: 4}\n"
                                       "simulation: {warmup: 200ms, batch: 100ms, min_batches: 5, max_duration: 1s}\n";
  }
  const std::string profile_text = poolsim::testing::read_file(dir + "/prof.yaml");
  for (const auto& [out, what] : std::vector<std::pair<std::string, std::string>>{
           {dir + "/cat.yaml", "the scenario's device catalogue"}, {dir + "/prof.yaml", "the scenario's profile"}}) {
    auto r = run_cli("run " + dir + "/s.yaml --format json --out " + out);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_CONTAINS(r.err, what);
    EXPECT_CONTAINS(r.err, "an input of this command");
  }
  // A --set that names another profile file makes that file an input instead.
  auto r = run_cli("run " + dir + "/s.yaml --set database.profile=" + dir + "/prof.yaml --bounds --out " + dir + "/prof.yaml");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(poolsim::testing::read_file(dir + "/cat.yaml"), catalogue_text);
  EXPECT_EQ(poolsim::testing::read_file(dir + "/prof.yaml"), profile_text);
  // validate --scenario: the scenario's catalogue is an input of the validation too.
  {
    std::ofstream(dir + "/t.yaml") << "catalogue: [cat.yaml]\n" << kTableScenario;
    std::ofstream(dir + "/t.csv") << "thr,tps\n";
  }
  r = run_cli("validate --scenario " + dir + "/t.yaml --table " + dir + "/t.csv --out " + dir + "/cat.yaml");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_CONTAINS(r.err, "the scenario's device catalogue");
  EXPECT_EQ(poolsim::testing::read_file(dir + "/cat.yaml"), catalogue_text);
}

// Review (session 41): plan --out checked the plan and its scenario, not the catalogue or profile
// the scenario (or an option) reads.
TEST(Cli, PlanOutMayNotReplaceAFileTheConfigurationsRead) {
  const std::string dir = temp_path("plan-reads");
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string profile = poolsim::testing::read_file(std::string(POOLSIM_SOURCE_DIR) + "/traces/local-vm/profile.yaml");
  {
    std::ofstream(dir + "/cat.yaml") << "{}\n";
    std::ofstream(dir + "/prof.yaml") << profile;
    std::ofstream(dir + "/other.yaml") << profile;
    std::ofstream(dir + "/s.yaml") << "catalogue: [cat.yaml]\ndatabase: {profile: prof.yaml, buffer_pool: 8MiB}\n"
                                       "workload: {kind: sysbench, tables: 1, table_size: 10000, threads: 2}\n"
                                       "simulation: {warmup: 0.2s, batch: 0.1s, min_batches: 4, max_duration: 1s}\n";
    std::ofstream(dir + "/p.yaml") << "scenario: s.yaml\ntarget: {tps: 1/s}\nchoices:\n  server:\n"
                                       "    - {name: a, price_usd: 1, source: test fixture}\n"
                                       "    - {name: b, price_usd: 2, source: test fixture, set: {database.profile: "
                                    << dir << "/other.yaml}}\n";
  }
  for (const auto& [out, what] : std::vector<std::pair<std::string, std::string>>{{dir + "/cat.yaml", "the scenario's device catalogue"},
                                                                                  {dir + "/prof.yaml", "the scenario's profile"},
                                                                                  {dir + "/other.yaml", "the scenario's profile"}}) {
    auto r = run_cli("plan " + dir + "/p.yaml --out " + out);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_CONTAINS(r.err, what);
    EXPECT_CONTAINS(r.err, "an input of this command");
  }
  EXPECT_EQ(poolsim::testing::read_file(dir + "/cat.yaml"), "{}\n");
  EXPECT_EQ(poolsim::testing::read_file(dir + "/other.yaml"), profile);
}

TEST(Cli, TextThatIsNotUtf8IsRefusedWhereItIsRead) {
  // Latin-1 bytes reached nlohmann's dump: "[json.exception.type_error.316] incomplete UTF-8 string",
  // no file, line or key, exit 3 (a table's cell only after simulating).
  const std::string scenario = write_temp("latin1.yaml", std::string("name: caf\xE9\n") + kSmall);
  auto r = run_cli("run " + scenario);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "latin1.yaml:1:10: byte 0xE9 is not UTF-8");
  const std::string good = write_temp("utf8.yaml", std::string("name: caf\xC3\xA9\n") + kSmall);
  EXPECT_EQ(run_cli("run " + good + " --set 'name=caf\xC3\xA9' --format json --jobs 1").exit_code, 0);
  r = run_cli("run " + good + " --set 'name=caf\xE9'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "--set: key 'name': byte 0xE9 is not UTF-8");
  const std::string table_scenario = write_temp("latin1-table.yaml", kTableScenario);
  const std::string table = write_temp("latin1.csv", "thr,tps,note\n4,800,ok\n8,900,caf\xE9\n");
  r = run_cli("validate --scenario " + table_scenario + " --table " + table);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "latin1.csv:3:10: byte 0xE9 is not UTF-8");
  // A trace directory's name is refused before anything is read.
  const std::string dir = temp_path("caf\xE9");
  std::filesystem::create_directories(dir);
  r = run_cli("validate --profile " + std::string(POOLSIM_SOURCE_DIR) + "/traces/local-vm/profile.yaml '" + dir + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "has a name that is not UTF-8 (byte 0xE9");
  r = run_cli("calibrate '" + dir + "' -o " + temp_path("latin1-profile.yaml"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "has a name that is not UTF-8 (byte 0xE9");
}

TEST(Cli, AnInputFileIsReadWithinABound) {
  // `catalogue: [/dev/zero]` read about 2 GB, then std::bad_alloc.
  const std::string scenario = write_temp("zero-catalogue.yaml", std::string("catalogue: [/dev/zero]\n") + kSmall);
  auto r = run_cli("run " + scenario);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "is larger than 16 MiB");
  const std::string big = temp_path("big.csv");
  std::filesystem::resize_file(write_temp("big.csv", ""), poolsim::kMaxInputFileBytes + 1);
  r = run_cli("validate --scenario " + write_temp("big-table.yaml", kTableScenario) + " --table " + big);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "big.csv: '" + big + "' is larger than 16 MiB");
}

TEST(Cli, AValidationColumnSetsItsKeysAlone) {
  // Two columns writing one key: the last won, and a row measured at 4 threads was simulated at 64.
  const std::string head = std::string(kTableScenario).substr(0, std::string(kTableScenario).find("validation:"));
  const std::string table = write_temp("columns.csv", "thr,thr2,kind,tps,qps\n4,64,A,800,16000\n");
  auto refused = [&](const std::string& name, const std::string& validation, const std::string& where, const std::string& what) {
    const std::string scenario = write_temp(name, head + "validation:\n" + validation);
    auto r = run_cli("validate --scenario " + scenario + " --table " + table);
    EXPECT_EQ(r.exit_code, 2) << validation;
    EXPECT_CONTAINS(r.err, name + ":" + where);
    EXPECT_CONTAINS(r.err, what);
  };
  refused("two-keys.yaml", "  columns:\n    thr: {key: workload.threads}\n    thr2: {key: workload.threads}\n  measured: {tps: tps}\n",
          "9:", "key 'validation.columns.thr2.key': 'workload.threads' is already set by column 'thr'");
  refused("values-key.yaml",
          "  columns:\n    thr: {key: workload.threads}\n    kind: {values: {A: {workload.threads: 8}}}\n  measured: {tps: tps}\n",
          "9:", "'workload.threads' is already set by column 'thr'");
  refused("key-and-figure.yaml", "  columns:\n    tps: {key: workload.threads}\n  measured: {tps: tps}\n", "8:",
          "column 'tps' is the measured tps");
  // A key with an empty step was read as the key without it ('workload.threads.' as workload.threads).
  refused("trailing-dot.yaml", "  columns:\n    thr: {key: workload.threads.}\n  measured: {tps: tps}\n", "8:",
          "'workload.threads.' is not a scenario key");
  refused("two-figures.yaml", "  columns:\n    thr: {key: workload.threads}\n  measured: {tps: tps, qps: tps}\n", "9:",
          "column 'tps' is already the measured tps");
  // A row's value that fails a check across two keys (its max_duration against the scenario's batch)
  // was named at the scenario's line of the other key only: the row is named (found by fuzzing).
  {
    const std::string scenario = write_temp("row-clash.yaml", head + "validation:\n  columns:\n    dur: {key: simulation.max_duration}\n  measured: {tps: tps}\n");
    const std::string rows = write_temp("row-clash.csv", "dur,tps\n1s,800\n1e308s,800\n");
    auto r = run_cli("validate --scenario " + scenario + " --table " + rows);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_CONTAINS(r.err, "row-clash.csv:3: key 'simulation.batch': with the scenario's own settings this value is refused: ");
    EXPECT_CONTAINS(r.err, "row-clash.yaml:5:");
  }
  // A variant one column selects, setting a key another column sets: the column won (--set over
  // variant) and the row ran at a mix neither column names. A variant's section mapping counts
  // key by key, so a column setting another key of that section is fine.
  const std::string variants = "variants:\n  big: {workload.threads: 8}\n  small-pool: {database: {buffer_pool: 32MiB}}\n";
  auto with_variants = [&](const std::string& name, const std::string& columns) {
    const std::string scenario = write_temp(name, head + variants + "validation:\n  columns:\n" + columns + "  measured: {tps: tps}\n");
    return run_cli("validate --scenario " + scenario + " --table " + table);
  };
  auto r = with_variants("variant-key.yaml", "    kind: {values: {A: {variant: big}}}\n    thr: {key: workload.threads}\n");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "columns.csv:2: key 'workload.threads': column 'thr' sets 'workload.threads', which variant 'big' (column 'kind') sets as 'workload.threads'");
  r = with_variants("variant-section.yaml", "    kind: {values: {A: {variant: small-pool}}}\n    thr: {key: database}\n");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "which variant 'small-pool' (column 'kind') sets as 'database.buffer_pool'");
  r = with_variants("variant-other-key.yaml", "    kind: {values: {A: {variant: small-pool}}}\n    thr: {key: workload.threads}\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(Cli, AFigureTheWorkloadDoesNotReportIsNamedBeforeSimulating) {
  // "the simulation reports no 'ops_per_s'", after the simulations, with no file, line or key.
  const std::string scenario = write_temp("fio-table.yaml", std::string(kSmall) +
                                                                "validation:\n  columns:\n    qd: {key: workload.fio.iodepth}\n"
                                                                "  measured: {ops_per_s: iops}\n");
  const std::string table = write_temp("fio-table.csv", "qd,iops\n1,10000\n");
  auto r = run_cli("validate --scenario " + scenario + " --table " + table);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "fio-table.yaml:8:14: key 'validation.measured.ops_per_s': a fio workload (table line 2) reports no ops_per_s");
  const std::string sysbench = write_temp("sysbench-ops.yaml", std::string(kTableScenario).replace(
                                                                  std::string(kTableScenario).find("{tps: tps}"), 10, "{ops_per_s: tps}"));
  r = run_cli("validate --scenario " + sysbench + " --table " + write_temp("sysbench-ops.csv", "thr,tps\n4,800\n"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "reports no ops_per_s (it reports tps, qps, mean_ms, p95_ms, p99_ms)");
}

// Review (session 41): validate counted a trace given twice twice; a gate's message printed 5.147 as
// 5.1 "above 5.14"; a point that completed nothing had its p95 of 0 compared (-100 %).
TEST(Cli, ValidateCountsEachTraceOnceAndComparesOnlyWhatWasMeasured) {
  const std::string trace = std::string(POOLSIM_SOURCE_DIR) + "/traces/local-vm/tmpfs-bp3G-t4";
  const std::string profile = std::string(POOLSIM_SOURCE_DIR) + "/traces/local-vm/profile.yaml";
  auto r = run_cli("validate --profile " + profile + " " + trace + " " + trace + "/ --duration 1");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_CONTAINS(r.err, "the trace is given twice: it would count twice in the summary's median and maximum and in the gates");
  nlohmann::ordered_json doc = {{"summary", {{"median_abs_error_pct", {{"tps", 5.147}}}, {"max_abs_error_pct", {{"tps", 5.147}}}}}};
  poolsim::ValidationThresholds gate;
  gate.max_median_tps_error_pct = 5.14;
  const auto failures = poolsim::threshold_failures(doc, gate);
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_CONTAINS(failures[0], "5.147 % is above 5.14 %");
  // A profile whose statements take 900 ms: nothing completes in a 1 ms window. Its p95 was not
  // compared (an empty histogram reads 0 ms); since session 46 a --duration in which nothing
  // completes is refused as a whole (its TPS row said -100 %).
  std::string slow = poolsim::testing::read_file(profile);
  const auto at = slow.find("point_select: ");
  ASSERT_NE(at, std::string::npos);
  slow.replace(at, slow.find('\n', at) - at, "point_select: 900ms");
  const std::string slow_profile = write_temp("slow-profile.yaml", slow);
  r = run_cli("validate --profile " + slow_profile + " " + trace + " --duration 0.001 --format json");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_CONTAINS(r.err, "--duration");
  EXPECT_CONTAINS(r.err, "no transaction of");
}

// Review (session 41): the table labelled a trace typed with a trailing slash with a blank name.
TEST(Cli, ValidatesTableNamesATraceTypedWithATrailingSlash) {
  const std::string trace = std::string(POOLSIM_SOURCE_DIR) + "/traces/local-vm/tmpfs-bp3G-t4/";
  auto r = run_cli("validate --profile " + std::string(POOLSIM_SOURCE_DIR) + "/traces/local-vm/profile.yaml " + trace + " --duration 1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto row = r.out.substr(r.out.find('\n') + 1);
  EXPECT_EQ(row.rfind("tmpfs-bp3G-t4 ", 0), 0u) << r.out;
}

// Review (session 41): a profile of another server (here MariaDB 10.3's on a 10.11 trace) predicted
// with that server's costs and flushing policies without a word. Allowed (a what-if), said once.
TEST(Cli, ValidateWarnsWhenTheProfileIsAnotherServers) {
  const std::string traces = std::string(POOLSIM_SOURCE_DIR) + "/traces/";
  auto r = run_cli("validate --profile " + traces + "mdev-13845/profile.yaml " + traces + "local-vm/tmpfs-bp3G-t4 " + traces +
                   "local-vm/tmpfs-bp3G-t1 --duration 1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_CONTAINS(r.err, "is a mariadb 10.11 trace and the profile");
  EXPECT_CONTAINS(r.err, "is of mariadb 10.3");
  EXPECT_EQ(r.err.find("warning"), r.err.rfind("warning")) << r.err;  // once per server
  r = run_cli("validate --profile " + traces + "local-vm/profile.yaml " + traces + "local-vm/tmpfs-bp3G-t4 --duration 1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
}
