// Trace parsing (real files from traces/, and malformed ones), calibration and validation.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <regex>
#include <sstream>

#include "calibration.h"
#include "flush_fit.h"
#include "core/errors.h"
#include "core/input_file.h"
#include "test_support.h"
#include "sim/output.h"
#include "sim/statistics.h"
#include "trace.h"
#include "validation.h"

using namespace poolsim;
using poolsim::testing::run_cli;
using poolsim::testing::temp_path;
using poolsim::testing::read_file;
using poolsim::testing::replace_line;
using poolsim::testing::write_temp;

namespace {
const std::string kTraces = std::string(POOLSIM_SOURCE_DIR) + "/traces";

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

// Copies a trace directory so a test can damage it (`name` may be a path: set/trace).
std::string copy_trace(const std::string& from, const std::string& name) {
  std::string to = temp_path(name);
  std::filesystem::create_directories(std::filesystem::path(to).parent_path());
  std::filesystem::copy(from, to, std::filesystem::copy_options::recursive | std::filesystem::copy_options::overwrite_existing);
  return to;
}
}  // namespace

TEST(Trace, ParsesASysbench10Log) {
  // The final report of a sysbench 1.0.20 run (traces/local-vm/disk-bp1G-t16 as first captured).
  const char* log =
      "sysbench 1.0.20 (using system LuaJIT 2.1.0-beta3)\n"
      "[ 45s ] thds: 16 tps: 254.94 qps: 5107.45 (r/w/o: 3576.00/1021.37/510.08) lat (ms,95%): 95.81 err/s: 0.00 reconn/s: 0.00\n"
      "SQL statistics:\n    queries performed:\n        read:                            153020\n"
      "        write:                           43720\n        other:                           21860\n"
      "        total:                           218600\n    transactions:                        10930  (242.43 per sec.)\n"
      "    queries:                             218600 (4848.65 per sec.)\n\nGeneral statistics:\n"
      "    total time:                          45.0841s\n    total number of events:              10930\n\n"
      "Latency (ms):\n         min:                                    4.93\n         avg:                                   65.93\n"
      "         max:                                  557.15\n         95th percentile:                       99.33\n";
  auto r = parse_sysbench_log(log, "sysbench.log");
  EXPECT_EQ(r.version, "1.0");
  EXPECT_DOUBLE_EQ(r.tps, 242.43);
  EXPECT_DOUBLE_EQ(r.qps, 4848.65);
  EXPECT_EQ(r.transactions, 10930u);
  EXPECT_DOUBLE_EQ(r.latency_p95_ms, 99.33);
  EXPECT_DOUBLE_EQ(r.latency_avg_ms, 65.93);
  EXPECT_DOUBLE_EQ(r.read_queries, 153020);
  ASSERT_EQ(r.intervals.size(), 1u);
  EXPECT_DOUBLE_EQ(r.intervals[0].p95_ms, 95.81);
}

TEST(Trace, LoadsACommittedLocalVmTrace) {
  // Whatever its figures (traces may be recaptured), a committed trace loads whole and consistently.
  auto t = load_trace(kTraces + "/local-vm/disk-bp1G-t16");
  EXPECT_NEAR(t.sysbench.tps, t.sysbench.transactions / t.sysbench.total_time_s, t.sysbench.tps * 0.01);
  EXPECT_GT(t.sysbench.latency_p95_ms, 0);
  EXPECT_EQ(t.meta["workload"]["threads"].as<int>(), 16);
  EXPECT_GT(t.per_txn("Innodb_buffer_pool_reads").value(), 1);
  EXPECT_EQ(t.fio.size(), 13u);
}

TEST(Trace, DeviceNameComesFromTheTraceSetItNamesElseItsDirectory) {
  // A diagnostic subset (local-vm/pfs) ran on local-vm's devices and says so in capture.trace_set.
  EXPECT_EQ(device_name_for(load_trace(kTraces + "/local-vm/pfs/disk-bp1G-t4-pfs")), "local-vm-virtual-disk");
  EXPECT_EQ(device_name_for(load_trace(kTraces + "/local-vm/disk-bp1G-t4")), "local-vm-virtual-disk");
  EXPECT_EQ(device_name_for(load_trace(kTraces + "/mdev-13845/bp4G-rw22-t32")), "mdev-13845-sata");
}

TEST(Trace, AnOpenLoopTraceIsSimulatedAsAnOpenLoop) {
  // capture.py --rate: sysbench's --rate becomes the scenario's workload.rate; a closed loop has none.
  auto open = scenario_for_trace(load_trace(kTraces + "/local-vm/idle/tmpfs-bp3G-t1-rate50"), "p.yaml", {}, 5);
  EXPECT_NE(open.find("\n  rate: 50/s\n"), std::string::npos) << open;
  auto closed = scenario_for_trace(load_trace(kTraces + "/local-vm/idle/tmpfs-bp3G-t1"), "p.yaml", {}, 5);
  EXPECT_EQ(closed.find("rate:"), std::string::npos) << closed;
}

// Replaces the first `from` in a copied trace's meta.yaml by `to` (which must be there).
void replace_in_meta(const std::string& dir, const std::string& from, const std::string& to) {
  std::string meta = poolsim::testing::read_file(dir + "/meta.yaml");
  const auto at = meta.find(from);
  ASSERT_NE(at, std::string::npos) << from;
  std::ofstream(dir + "/meta.yaml") << meta.replace(at, from.size(), to);
}

// A trace file edited in place: `change` gets its text and returns the new one.
void edit_file(const std::string& path, const std::function<std::string(std::string)>& change) {
  const std::string text = poolsim::testing::read_file(path);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << change(text);
}
// `text` with the first `from` replaced by `to` (a check fails when `from` is not there).
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

// The four cached tmpfs traces of local-vm (1-64 threads), copied under `set` and each changed by
// `edit(dir, name)` before it is loaded: a small fit set a test can damage.
std::vector<Trace> edited_tmpfs_set(const std::string& set, const std::function<void(const std::string&, const std::string&)>& edit) {
  std::vector<Trace> traces;
  for (const char* name : {"tmpfs-bp3G-t1", "tmpfs-bp3G-t4", "tmpfs-bp3G-t16", "tmpfs-bp3G-t64"}) {
    const std::string d = copy_trace(kTraces + "/local-vm/" + name, set + "/local-vm/" + name);
    edit(d, name);
    traces.push_back(load_trace(d));
  }
  return traces;
}

// Removes capture.py --cpu-probe's figures from a copied trace's meta.yaml.
void remove_cpu_probe(const std::string& dir) {
  YAML::Node meta = YAML::LoadFile(dir + "/meta.yaml");
  meta["capture"].remove("cpu_probe_eps_before");
  meta["capture"].remove("cpu_probe_eps_after");
  std::ofstream(dir + "/meta.yaml") << meta << "\n";
}

// Adds capture.py --cpu-probe's figures to a copied trace's meta.yaml.
void add_cpu_probe(const std::string& dir, double before, double after) {
  YAML::Node meta = YAML::LoadFile(dir + "/meta.yaml");
  meta["capture"]["cpu_probe_eps_before"] = before;
  meta["capture"]["cpu_probe_eps_after"] = after;
  std::ofstream(dir + "/meta.yaml") << meta << "\n";
}

// The traces traces/local-vm/profile.yaml is fitted on: both locations, the smallest and the
// largest pool, every thread count.
std::vector<std::string> local_vm_fit_traces() {
  std::vector<std::string> names;
  for (const char* loc : {"disk", "tmpfs"})
    for (const char* bp : {"512M", "3G"})
      for (int threads : {1, 4, 16, 64}) names.push_back(std::string(loc) + "-bp" + bp + "-t" + std::to_string(threads));
  return names;
}

TEST(Trace, AProbedTraceRunsAtItsHostsSpeedAgainstTheProfilesReferenceCore) {
  std::string dir = copy_trace(kTraces + "/local-vm/disk-bp1G-t4", "probed");
  add_cpu_probe(dir, 1400, 1600);
  std::string profile = temp_path("probed-profile.yaml");
  std::ofstream(profile) << "cpu_probe_eps: 3000\n";
  auto y = scenario_for_trace(load_trace(dir), profile, {}, 5);
  EXPECT_CONTAINS(y, "core_speed: 0.5}");  // 1500 events/s against 3000: half the reference core
  // Unprobed traces (the pfs subset was captured before the probe) keep the reference core.
  EXPECT_EQ(scenario_for_trace(load_trace(kTraces + "/local-vm/pfs/disk-bp1G-t4-pfs"), profile, {}, 5).find("core_speed"), std::string::npos);
  auto e = error_of([&] { scenario_for_trace(load_trace(dir), temp_path("no-such-profile.yaml"), {}, 5); });
  EXPECT_CONTAINS(e, "no-such-profile.yaml");
}

TEST(Calibrate, EqualProbesLeaveTheFitAsItIsAndRecordTheReferenceCore) {
  std::vector<Trace> plain, probed;
  std::filesystem::create_directories(temp_path("probe-fit/local-vm"));  // the set's name names the devices
  std::filesystem::create_directories(temp_path("plain-fit/local-vm"));
  for (const auto& name : local_vm_fit_traces()) {
    std::string unprobed = copy_trace(kTraces + "/local-vm/" + name, "plain-fit/local-vm/" + name);
    remove_cpu_probe(unprobed);
    plain.push_back(load_trace(unprobed));
    std::string dir = copy_trace(kTraces + "/local-vm/" + name, "probe-fit/local-vm/" + name);
    add_cpu_probe(dir, 2990, 3010);
    probed.push_back(load_trace(dir));
  }
  auto a = calibrate(plain, "p"), b = calibrate(probed, "p");
  EXPECT_EQ(a.profile_yaml.find("cpu_probe_eps"), std::string::npos);
  EXPECT_CONTAINS(b.profile_yaml, "cpu_probe_eps: 3000");
  auto cpu = [](const std::string& y) { return y.substr(y.find("cpu:"), y.find("redo_bytes") - y.find("cpu:")); };
  auto strip = [](std::string y) { return y.substr(0, y.find("cpu_probe_eps")) + y.substr(y.find("\n", y.find("cpu_probe_eps")) + 1); };
  EXPECT_EQ(cpu(a.profile_yaml), cpu(strip(b.profile_yaml)));
  std::string file = temp_path("probe-fit/profile.yaml");
  std::ofstream(file) << b.profile_yaml;
  EXPECT_NO_THROW(load_profile(file));  // the profile schema knows the key
}

TEST(Calibrate, CpuOnASlowerHostCountsForLessOfTheReferenceCore) {
  // Fit A: every trace probed at 3000 events/s, CPU as measured. Fit B: the disk traces ran on a host
  // 1.25 times slower (probe 2400) and so used 1.25 times the CPU seconds for the same work (at most
  // 95 % of the host: a share past 100 % is refused); the tmpfs traces as in A. The reference core is
  // B's mean probe, 2700: in its seconds every trace's CPU is 10/9 of A's (1.25 x 2400 / 2700 =
  // 3000 / 2700), so a linear fit gives 10/9 of every coefficient. Scaling the wrong way (x reference
  // / probe) gives the disk traces 1.41x and the tmpfs ones 0.9x instead.
  std::vector<Trace> a, b;
  std::filesystem::create_directories(temp_path("speed-a/local-vm"));
  std::filesystem::create_directories(temp_path("speed-b/local-vm"));
  for (const auto& name : local_vm_fit_traces()) {
    std::string da = copy_trace(kTraces + "/local-vm/" + name, "speed-a/local-vm/" + name);
    add_cpu_probe(da, 3000, 3000);
    a.push_back(load_trace(da));
    std::string db = copy_trace(kTraces + "/local-vm/" + name, "speed-b/local-vm/" + name);
    bool slow = name.rfind("disk", 0) == 0;
    add_cpu_probe(db, slow ? 2400 : 3000, slow ? 2400 : 3000);
    if (slow) {
      YAML::Node meta = YAML::LoadFile(db + "/meta.yaml");
      for (const char* key : {"mariadbd_cpu_pct", "sysbench_cpu_pct"})
        meta["capture"][key] = 1.25 * meta["capture"][key].as<double>();
      std::ofstream(db + "/meta.yaml") << meta << "\n";
    }
    b.push_back(load_trace(db));
  }
  auto fa = calibrate(a, "a"), fb = calibrate(b, "b");
  std::string pa = temp_path("speed-a/profile.yaml"), pb = temp_path("speed-b/profile.yaml");
  std::ofstream(pa) << fa.profile_yaml;
  std::ofstream(pb) << fb.profile_yaml;
  auto ra = load_profile(pa), rb = load_profile(pb);
  EXPECT_CONTAINS(fb.profile_yaml, "cpu_probe_eps: 2700");
  for (auto kind : {StatementKind::PointSelect, StatementKind::Commit}) {
    double x = ra.statement_cpu_s[static_cast<int>(kind)], y = rb.statement_cpu_s[static_cast<int>(kind)];
    EXPECT_NEAR(y / x, 10.0 / 9.0, 0.01) << static_cast<int>(kind);
  }
  EXPECT_NEAR(rb.client_statement_cpu_s / ra.client_statement_cpu_s, 10.0 / 9.0, 0.01);
}

TEST(Trace, ParsesASysbench05Trace) {
  auto t = load_trace(kTraces + "/mdev-13845/bp16G-rw22-t16");
  EXPECT_EQ(t.sysbench.version, "0.5");
  EXPECT_NEAR(t.sysbench.tps, 2640.45, 1e-9);
  EXPECT_NEAR(t.sysbench.latency_p95_ms, 10.15, 1e-9);
  EXPECT_FALSE(t.sysbench.intervals.empty());
}

TEST(Trace, TruncatedSysbenchLogNamesFileAndLine) {
  std::string log = "sysbench 1.0.20\n[ 5s ] thds: 4 tps: 10.00 qps: 200.00 (r/w/o: 1/1/1) lat (ms,95%): 5.00 err/s: 0.00 reconn/s: 0.00\n";
  auto e = error_of([&] { parse_sysbench_log(log, "x/sysbench.log"); });
  EXPECT_CONTAINS(e, "x/sysbench.log:2");
  EXPECT_CONTAINS(e, "truncated");
}

TEST(Trace, IntervalLinesThatAreNotTheSummarysRunAreRefused) {
  // The interval lines give a trace its TPS interval: lines counting more transactions than the
  // summary (an interval rate of 1e8 made the interval +-6e6 %), times that do not rise, or a line
  // after the run's end are an edited log. Each error names the interval line.
  auto log_with = [](const std::string& intervals) {
    return "sysbench 1.0.20\n" + intervals +
           "    transactions:                        1000  (100.00 per sec.)\n"
           "    total time:                          10.0000s\n"
           "         avg:                                    9.79\n         95th percentile:                       21.50\n";
  };
  auto line = [](int t, double tps) {
    return "[ " + std::to_string(t) + "s ] thds: 4 tps: " + std::to_string(tps) +
           " qps: 2000.00 (r/w/o: 1/1/1) lat (ms,95%): 20.00 err/s: 0.00 reconn/s: 0.00\n";
  };
  // The run as sysbench writes it (5-second lines, the summary counting every transaction).
  EXPECT_EQ(parse_sysbench_log(log_with(line(5, 100) + line(10, 100)), "x/sysbench.log").intervals.size(), 2u);
  EXPECT_EQ(parse_sysbench_log(log_with(line(5, 100)), "x/sysbench.log").intervals.size(), 1u);  // one line: no spacing to check
  auto e = error_of([&] { parse_sysbench_log(log_with(line(5, 100) + line(10, 1e8)), "x/sysbench.log"); });
  EXPECT_CONTAINS(e, "x/sysbench.log:3");
  EXPECT_CONTAINS(e, "more than the run's 1000");
  e = error_of([&] { parse_sysbench_log(log_with(line(5, 100) + line(5, 100)), "x/sysbench.log"); });
  EXPECT_CONTAINS(e, "x/sysbench.log:3");
  EXPECT_CONTAINS(e, "must rise");
  e = error_of([&] { parse_sysbench_log(log_with(line(5, 10) + line(10, 10) + line(15, 10)), "x/sysbench.log"); });
  EXPECT_CONTAINS(e, "x/sysbench.log:4");
  EXPECT_CONTAINS(e, "after the run's total time of 10s");
}

TEST(Trace, ALogThatIsNotTheRunMetaYamlDescribesIsRefused) {
  // meta.yaml names the mix, threads and rate the scenario simulates; a log of another run moved the
  // prediction (a read-only meta over a read-write log: 519.5 TPS predicted against 356.5). Each error
  // names the meta.yaml key and the log's line.
  const std::string from = kTraces + "/local-vm/disk-bp1G-t4";
  std::string dir = copy_trace(from, "meta-read-only");
  replace_in_meta(dir, "test: oltp_read_write", "test: oltp_read_only");
  auto e = error_of([&] { load_trace(dir); });
  EXPECT_CONTAINS(e, "meta.yaml:9:");
  EXPECT_CONTAINS(e, "workload.test");
  EXPECT_CONTAINS(e, "runs 0 writes per transaction");
  EXPECT_CONTAINS(e, "sysbench.log:");
  // sysbench 0.5's oltp.lua: read_only decides the writes, the mix the statements.
  const std::string mdev = kTraces + "/mdev-13845/bp4G-rw22-t16";
  dir = copy_trace(mdev, "meta-not-read-only");
  replace_in_meta(dir, "read_only: false", "read_only: true");
  e = error_of([&] { load_trace(dir); });
  EXPECT_CONTAINS(e, "workload.read_only");
  EXPECT_CONTAINS(e, "runs 0 writes per transaction");
  dir = copy_trace(mdev, "meta-mix");
  replace_in_meta(dir, "point_selects: 10", "point_selects: 1");
  e = error_of([&] { load_trace(dir); });
  EXPECT_CONTAINS(e, "workload.mix");
  EXPECT_CONTAINS(e, "runs 5 reads per transaction");
  EXPECT_CONTAINS(e, "counts 14");
  // Interval lines count the run's threads (the last may count fewer: threads finishing first).
  dir = copy_trace(from, "interval-threads");
  const int line = replace_line(dir + "/sysbench.log", "[ 5s ] thds: 4 ",
                                "[ 5s ] thds: 8 tps: 405.55 qps: 8120.74 (r/w/o: 5686.66/1622.19/811.89) lat (ms,95%): 21.11 err/s: 0.00 reconn/s: 0.00");
  ASSERT_GT(line, 0);
  e = error_of([&] { load_trace(dir); });
  EXPECT_CONTAINS(e, "sysbench.log:" + std::to_string(line) + ": key 'thds'");
  EXPECT_CONTAINS(e, "8 threads, but the run had 4");
  EXPECT_NO_THROW(load_trace(kTraces + "/local-vm/tmpfs-bp3G-t16"));  // its last line: thds: 15
  // Several last lines may count fewer, falling (a slow last transaction: sysbench issue #271), but a
  // line with fewer threads before the run's end is another run's.
  dir = copy_trace(from, "interval-tail");
  replace_line(dir + "/sysbench.log", "[ 40s ] thds: 4 ", "[ 40s ] thds: 3 tps: 421.39 qps: 8430.01 (r/w/o: 5901.27/1685.96/842.78) lat (ms,95%): 20.00 err/s: 0.00 reconn/s: 0.00");
  replace_line(dir + "/sysbench.log", "[ 45s ] thds: 4 ", "[ 45s ] thds: 2 tps: 436.01 qps: 8719.67 (r/w/o: 6104.19/1743.45/872.03) lat (ms,95%): 20.37 err/s: 0.00 reconn/s: 0.00");
  EXPECT_NO_THROW(load_trace(dir));
  replace_line(dir + "/sysbench.log", "[ 45s ] thds: 2 ", "[ 45s ] thds: 4 tps: 436.01 qps: 8719.67 (r/w/o: 6104.19/1743.45/872.03) lat (ms,95%): 20.37 err/s: 0.00 reconn/s: 0.00");
  EXPECT_CONTAINS(error_of([&] { load_trace(dir); }), "3 threads, but the run had 4");
  // A transaction that met an ignored error (a deadlock) runs again and its statements count twice:
  // 10 % of them retried allow up to 10 % more statements than the mix (sysbench issue #156).
  dir = copy_trace(from, "deadlocks");
  replace_line(dir + "/sysbench.log", "        read:", "        read:                            277000");
  EXPECT_CONTAINS(error_of([&] { load_trace(dir); }), "counts 15.07");
  replace_line(dir + "/sysbench.log", "    ignored errors:", "    ignored errors:                      1838   (40.84 per sec.)");
  EXPECT_NO_THROW(load_trace(dir));
  // --skip_trx: no BEGIN / COMMIT, which meta.yaml says with workload.skip_trx.
  dir = copy_trace(from, "skip-trx");
  replace_line(dir + "/sysbench.log", "        other:", "        other:                           0");
  e = error_of([&] { load_trace(dir); });
  EXPECT_CONTAINS(e, "workload.skip_trx");
  replace_in_meta(dir, "test: oltp_read_write", "test: oltp_read_write\n  skip_trx: true");
  EXPECT_NO_THROW(load_trace(dir));
  // A fixed rate starts about rate x time transactions: a log with 5 times more is another run's.
  dir = copy_trace(kTraces + "/local-vm/idle/disk-bp3G-t1-rate50", "rate-exceeded");
  replace_in_meta(dir, "rate: 50", "rate: 10");
  e = error_of([&] { load_trace(dir); });
  EXPECT_CONTAINS(e, "meta.yaml:16:");
  EXPECT_CONTAINS(e, "workload.rate");
  EXPECT_CONTAINS(e, "counts 2221");
}

TEST(Trace, ALatencySummaryOrEventCountThatCannotBeTheRunsIsRefused) {
  // The percentile and the mean lie within the max (one histogram bucket, 2 %, allowed the
  // percentile), and sysbench counts one event per transaction, in 1.0's and 0.5's summary alike.
  auto log10 = [](const std::string& events, const std::string& avg, const std::string& max, const std::string& p95) {
    return "sysbench 1.0.20\n    transactions:                        1000  (100.00 per sec.)\n"
           "    total time:                          10.0000s\n    total number of events:              " + events + "\n"
           "Latency (ms):\n         min:                                    1.00\n         avg:                                    " + avg +
           "\n         max:                                  " + max + "\n         95th percentile:                       " + p95 + "\n";
  };
  EXPECT_NO_THROW(parse_sysbench_log(log10("1000", "9.79", "139.00", "21.50"), "x/sysbench.log"));
  EXPECT_NO_THROW(parse_sysbench_log(log10("1000", "9.79", "21.20", "21.50"), "x/sysbench.log"));  // p95 in max's bucket
  auto e = error_of([&] { parse_sysbench_log(log10("1000", "9.79", "139.00", "690.00"), "x/sysbench.log"); });
  EXPECT_CONTAINS(e, "x/sysbench.log:9: key '95th percentile'");
  EXPECT_CONTAINS(e, "above the max");
  e = error_of([&] { parse_sysbench_log(log10("1000", "200.00", "139.00", "21.50"), "x/sysbench.log"); });
  EXPECT_CONTAINS(e, "x/sysbench.log:7: key 'avg'");
  e = error_of([&] { parse_sysbench_log(log10("1200", "9.79", "139.00", "21.50"), "x/sysbench.log"); });
  EXPECT_CONTAINS(e, "x/sysbench.log:4: key 'total number of events'");
  EXPECT_CONTAINS(e, "line 2 counts 1000 transactions");
  // 0.5: the events line sits between the total time and the response times.
  const std::string log05 = read_file(kTraces + "/mdev-13845/bp4G-rw22-t16/sysbench.log");
  EXPECT_NO_THROW(parse_sysbench_log(log05, "y/sysbench.log"));
  const std::string edited = std::regex_replace(log05, std::regex("total number of events:( +)115827"), "total number of events:$01115828");
  ASSERT_NE(edited, log05);
  EXPECT_CONTAINS(error_of([&] { parse_sysbench_log(edited, "y/sysbench.log"); }), "115828 events, but line");
}

TEST(Trace, AMergeKeyInMetaYamlIsRefused) {
  // yaml-cpp keeps '<<' as a key, and meta.yaml's open mappings ignored it: the anchored server
  // settings (flush_log_at_trx_commit 0) were dropped for the defaults without a word.
  std::string dir = copy_trace(kTraces + "/local-vm/disk-bp1G-t4", "merge-key");
  replace_in_meta(dir, "server: {", "x_server: &srv {flush_log_at_trx_commit: 0}\nserver: {<<: *srv, ");
  auto e = error_of([&] { load_trace(dir); });
  EXPECT_CONTAINS(e, "meta.yaml:");
  EXPECT_CONTAINS(e, "server.<<");
  EXPECT_CONTAINS(e, "merge key");
}

TEST(Trace, StatusSnapshotsThatAreNotOneRunsAreRefusedWithFileLineAndKey) {
  const std::string from = kTraces + "/local-vm/disk-bp1G-t4";
  // One snapshot copied as both: every counter delta 0 over the log's thousands of transactions.
  std::string dir = copy_trace(from, "status-same");
  std::filesystem::copy_file(dir + "/status_before.tsv", dir + "/status_after.tsv", std::filesystem::copy_options::overwrite_existing);
  auto e = error_of([&] { load_trace(dir); });
  EXPECT_CONTAINS(e, "status_after.tsv:");
  EXPECT_CONTAINS(e, "Innodb_buffer_pool_read_requests");
  EXPECT_CONTAINS(e, "do not span the run");
  // A counter gone from one snapshot, or text where the other has a count.
  dir = copy_trace(from, "status-missing");
  const int line = replace_line(dir + "/status_after.tsv", "Innodb_buffer_pool_reads\t", "Innodb_buffer_pool_readz\t1");
  ASSERT_GT(line, 0);
  e = error_of([&] { load_trace(dir); });
  EXPECT_CONTAINS(e, "status_before.tsv:" + std::to_string(line) + ": key 'Innodb_buffer_pool_reads'");  // the same line in both
  EXPECT_CONTAINS(e, "missing from status_after.tsv");
  replace_line(dir + "/status_after.tsv", "Innodb_buffer_pool_readz\t", "Innodb_buffer_pool_reads\tabc");
  e = error_of([&] { load_trace(dir); });
  EXPECT_CONTAINS(e, "status_after.tsv:" + std::to_string(line) + ": key 'Innodb_buffer_pool_reads'");
  EXPECT_CONTAINS(e, "not a number here");
  // Counters are whole; the times and costs SHOW STATUS prints with decimals are kept.
  for (const char* value : {"587565.7", "5.9e5"}) {
    e = error_of([&] { parse_status_tsv(std::string("Uptime\t10\nInnodb_buffer_pool_reads\t") + value + "\n", "s.tsv"); });
    EXPECT_CONTAINS(e, "s.tsv:2:26");
    EXPECT_CONTAINS(e, "not a whole number");
  }
  auto status = parse_status_tsv("Busy_time\t0.000000\nLast_query_cost\t0.000000\nQuery_time\t99.706864\nSlave_heartbeat_period\t0.000\n", "s.tsv");
  EXPECT_DOUBLE_EQ(status.at("Query_time"), 99.706864);
}

TEST(Trace, ADeviceOrFioKeyTwiceOrAFioNumberPastADoubleNamesFileAndLine) {
  const std::string from = kTraces + "/local-vm/disk-bp1G-t4";
  std::string dir = copy_trace(from, "diskstats-device-twice");
  const std::string after = read_file(dir + "/diskstats_after.txt");
  std::smatch vda;
  ASSERT_TRUE(std::regex_search(after, vda, std::regex(R"(.* vda .*\n)")));
  std::ofstream(dir + "/diskstats_after.txt") << after << vda.str();
  const auto lines = std::count(after.begin(), after.end(), '\n');
  auto e = error_of([&] { load_trace(dir); });
  EXPECT_CONTAINS(e, "diskstats_after.txt:" + std::to_string(lines + 1) + ": key 'vda'");
  EXPECT_CONTAINS(e, "appears twice");
  // fio JSON: a key twice in one object (nlohmann keeps the last) and a number past a double.
  const std::string twice = "{\n  \"jobs\": [\n    {\"jobname\": \"x\",\n     \"read\": {\"iops\": 10,\n              \"iops\": 20}}\n  ]\n}\n";
  e = error_of([&] { parse_fio_json(twice, "fio/twice.json"); });
  EXPECT_CONTAINS(e, "fio/twice.json:5:15: key 'iops'");
  EXPECT_CONTAINS(e, "appears twice");
  // The same key in two objects is no duplicate (the jobs lack their figures: that error is another).
  EXPECT_EQ(error_of([] { parse_fio_json("{\"jobs\": [{\"jobname\": \"x:y\"}, {\"jobname\": \"z\"}]}", "fio/ok.json"); })
                .find("appears twice"),
            std::string::npos);
  // fio itself writes an option given twice twice (`--bs=4k --bs=16k`, fio 3.33): it ran with the last.
  const std::string fio_file = from + "/fio/randread-16k-qd1.json";
  std::string options_twice = read_file(fio_file);
  const auto at = options_twice.find("\"job options\" : {");
  ASSERT_NE(at, std::string::npos);
  options_twice.insert(at + std::string("\"job options\" : {").size(), "\n        \"name\" : \"an earlier name\",");
  EXPECT_NO_THROW(parse_fio_json(options_twice, "fio/options-twice.json"));
  const std::string huge = "{\n  \"jobs\": [\n    {\"read\": {\"iops\": 1e999}}\n  ]\n}\n";
  e = error_of([&] { parse_fio_json(huge, "fio/huge.json"); });
  EXPECT_CONTAINS(e, "fio/huge.json:3:23");
}

TEST(Trace, AKeyTwiceInMetaYamlIsRefused) {
  std::string dir = copy_trace(kTraces + "/local-vm/disk-bp1G-t4", "duplicate-key");
  replace_in_meta(dir, "  threads: 4", "  threads: 4\n  threads: 16");
  auto e = error_of([&] { load_trace(dir); });
  EXPECT_CONTAINS(e, "meta.yaml:");
  EXPECT_CONTAINS(e, "workload.threads");
  EXPECT_CONTAINS(e, "duplicate key 'threads'");
}

TEST(Trace, ATraceFileIsReadWithinTheInputBoundAndAsUtf8) {
  // Only meta.yaml was checked: a Latin-1 byte in the log reached the outputs, and a file of any size
  // (a link to /dev/zero) was read whole.
  std::string dir = copy_trace(kTraces + "/local-vm/disk-bp1G-t4", "latin1-log");
  const std::string log = read_file(dir + "/sysbench.log");
  std::ofstream(dir + "/sysbench.log") << log << "host caf\xE9\n";
  const auto lines = std::count(log.begin(), log.end(), '\n');
  auto e = error_of([&] { load_trace(dir); });
  EXPECT_CONTAINS(e, "sysbench.log:" + std::to_string(lines + 1) + ":9: byte 0xE9 is not UTF-8");
  dir = copy_trace(kTraces + "/local-vm/disk-bp1G-t4", "huge-status");
  std::filesystem::resize_file(dir + "/status_after.tsv", kMaxInputFileBytes + 1);
  e = error_of([&] { load_trace(dir); });
  EXPECT_CONTAINS(e, "status_after.tsv");
  EXPECT_CONTAINS(e, "is larger than 16 MiB");
}

TEST(Trace, AnEmptyOptionalFileIsRefused) {
  // status/diskstats files are optional, but one that is there and empty would drop its comparisons.
  std::string dir = copy_trace(kTraces + "/local-vm/disk-bp1G-t4", "empty-status");
  std::ofstream(dir + "/status_after.tsv") << "\n";
  auto e = error_of([&] { load_trace(dir); });
  EXPECT_CONTAINS(e, "status_after.tsv:1");
  EXPECT_CONTAINS(e, "empty");
}

TEST(Trace, ARunWithNoTransactionOrAnotherThreadCountIsRefused) {
  // Zero transactions gave an infinite error in validate's table; a meta.yaml whose thread count is
  // not the log's simulated another configuration against this one's figures.
  std::string log = "sysbench 1.0.20\nNumber of threads: 4\n    transactions:                        0  (0.00 per sec.)\n"
                    "         avg:                                    9.79\n         95th percentile:                       21.50\n";
  auto e = error_of([&] { parse_sysbench_log(log, "x/sysbench.log"); });
  EXPECT_CONTAINS(e, "x/sysbench.log:3");
  EXPECT_CONTAINS(e, "no transaction");

  std::string dir = copy_trace(kTraces + "/local-vm/disk-bp1G-t4", "threads-mismatch");
  const int line = replace_line(dir + "/meta.yaml", "  threads: 4", "  threads: 16");
  ASSERT_GT(line, 0);
  e = error_of([&] { load_trace(dir); });
  EXPECT_CONTAINS(e, "meta.yaml:" + std::to_string(line));
  EXPECT_CONTAINS(e, "workload.threads");
  EXPECT_CONTAINS(e, "ran 4");
}

TEST(Trace, MalformedStatusLineNamesFileAndLine) {
  auto e = error_of([] { parse_status_tsv("Uptime\t10\nno tab here\n", "s.tsv"); });
  EXPECT_CONTAINS(e, "s.tsv:2");
}

TEST(Trace, ACounterThatIsNotACountIsAnErrorATextStatusIsNot) {
  // "12abc", NaN or more than 64 bits would become a wrong figure per transaction; text statuses
  // (a dump's state) are skipped, and variables.tsv holds versions and paths that start with digits.
  for (const char* value : {"12abc", "NaN", "99999999999999999999999999", "inf"}) {
    auto e = error_of([&] { parse_status_tsv(std::string("Uptime\t10\nInnodb_buffer_pool_reads\t") + value + "\n", "s.tsv"); });
    EXPECT_CONTAINS(e, "s.tsv:2:26");
    EXPECT_CONTAINS(e, "Innodb_buffer_pool_reads");
  }
  auto status = parse_status_tsv("Innodb_buffer_pool_load_status\tBuffer pool(s) load completed\nUptime\t10\n", "s.tsv");
  EXPECT_EQ(status.size(), 1u);
  auto variables = parse_status_tsv("version\t10.11.19-MariaDB-0+deb12u1\ninnodb_io_capacity\t200\n", "v.tsv", /*counters=*/false);
  EXPECT_EQ(variables.count("version"), 0u);
  EXPECT_DOUBLE_EQ(variables.at("innodb_io_capacity"), 200);
}

TEST(Trace, MySQL80TextStatusesInBothSnapshotsLoad) {
  // MySQL 8.0's SHOW GLOBAL STATUS holds text that starts like a number (its RSA keys, written by
  // `mysql -B -N` on one line with literal \n, and the X Plugin's address): such traces did not load.
  const std::string text = "Caching_sha2_password_rsa_public_key\t-----BEGIN PUBLIC KEY-----\\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A\\n-----END PUBLIC KEY-----\\n\n"
                           "Mysqlx_address\t127.0.0.1\n"
                           "Rsa_public_key\t-----BEGIN PUBLIC KEY-----\\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A\\n-----END PUBLIC KEY-----\\n\n"
                           "Ssl_cipher\tTLS_AES_256_GCM_SHA384\nSsl_version\tTLSv1.3\nTls_library_version\tOpenSSL 3.0.2 15 Mar 2022\n";
  std::string dir = copy_trace(kTraces + "/local-vm/disk-bp1G-t4", "mysql80-text-status");
  for (const char* which : {"/status_before.tsv", "/status_after.tsv"}) {  // MariaDB's own Ssl_ lines give way to 8.0's
    const std::string mariadb = std::regex_replace(read_file(dir + which), std::regex("(Ssl_cipher|Ssl_version)\t.*\n"), "");
    std::ofstream(dir + which) << mariadb << text;
  }
  Trace t = load_trace(dir);
  EXPECT_EQ(t.status_after.count("Rsa_public_key"), 0u);
  EXPECT_TRUE(t.per_txn("Innodb_buffer_pool_reads").has_value());
  // Text in one snapshot and a number in the other is still two servers' snapshots.
  const int line = replace_line(dir + "/status_before.tsv", "Mysqlx_address\t", "Mysqlx_address\t33060");
  ASSERT_GT(line, 0);
  auto e = error_of([&] { load_trace(dir); });
  EXPECT_CONTAINS(e, "status_after.tsv:");
  EXPECT_CONTAINS(e, "key 'Mysqlx_address'");
  EXPECT_CONTAINS(e, "not a number here");
  // An InnoDB counter that starts as a number is still one.
  e = error_of([] { parse_status_tsv("Uptime\t10\nInnodb_buffer_pool_reads\t-----\n", "s.tsv"); });
  EXPECT_CONTAINS(e, "s.tsv:2:26: key 'Innodb_buffer_pool_reads'");
}

TEST(Trace, ALogWhoseRateDisagreesWithItsCountAndTimeIsAnError) {
  std::string log = read_file(kTraces + "/local-vm/disk-bp1G-t4/sysbench.log");
  const std::size_t at = log.find("per sec.)");
  ASSERT_NE(at, std::string::npos);
  const std::size_t open = log.rfind('(', at);
  std::string edited = log.substr(0, open + 1) + "9999.00 " + log.substr(at);
  auto e = error_of([&] { parse_sysbench_log(edited, "x/sysbench.log"); });
  EXPECT_CONTAINS(e, "x/sysbench.log:");
  EXPECT_CONTAINS(e, "but the log says 9999");
  EXPECT_NO_THROW(parse_sysbench_log(log, "x/sysbench.log"));
}

TEST(Trace, ATruncatedFioJsonNamesTheLineWhereItBreaks) {
  const std::string whole = "{\n  \"jobs\": [\n    {\"jobname\": \"x\"}\n  ]\n}\n";
  auto e = error_of([&] { parse_fio_json(whole.substr(0, whole.find("x")), "fio/cut.json"); });
  EXPECT_CONTAINS(e, "fio/cut.json:3:");
  EXPECT_CONTAINS(e, "truncated");
  EXPECT_CONTAINS(error_of([] { parse_fio_json("", "fio/empty.json"); }), "(empty)");
}

TEST(Calibrate, AFixedRateTraceGetsAScenarioTheSimulatorAccepts) {
  // capture.py --rate: an open loop, which the model's closed-loop warm-up threads cannot precede.
  const std::string yaml =
      scenario_for_trace(load_trace(kTraces + "/local-vm/idle/disk-bp3G-t1-rate50"), kTraces + "/local-vm/profile.yaml",
                         {kTraces + "/local-vm/profile-devices.yaml"}, 5);
  EXPECT_CONTAINS(yaml, "  rate: 50/s\n");
  EXPECT_EQ(yaml.find("warmup_threads"), std::string::npos);
  EXPECT_NO_THROW(load_scenarios_from_text(yaml, "rate-trace"));
}

// Names and paths were written into YAML raw: a profile named "a: b", a trace directory "#x" or
// "a: b" and paths with ': ' or '"' made YAML that did not parse ("illegal map value") or read as
// something else ("#x" as no name), reported at a temporary file.
TEST(Calibrate, NamesAndPathsThatAreNotPlainYamlStayText) {
  std::filesystem::create_directories(temp_path("odd: set"));
  const std::string hash = copy_trace(kTraces + "/local-vm/disk-bp1G-t4", "odd: set/#x");
  const std::string colon = copy_trace(kTraces + "/local-vm/disk-bp1G-t4", "odd: set/a: b");
  const auto fit = calibrate({load_trace(hash)}, "a: b");
  EXPECT_EQ(YAML::Load(fit.profile_yaml)["name"].Scalar(), "a: b");
  const YAML::Node devices = YAML::Load(fit.devices_yaml);
  ASSERT_TRUE(devices["local-vm-virtual-disk"]) << fit.devices_yaml;  // the trace's capture.trace_set names it
  EXPECT_EQ(devices["local-vm-virtual-disk"]["description"].Scalar(), "fitted from #x/fio");
  const std::string profile = temp_path("odd: set/pro\"file.yaml"), catalogue = temp_path("odd: set/pro\"file-devices.yaml");
  write_outputs({{profile, fit.profile_yaml}, {catalogue, fit.devices_yaml}});
  for (const auto& dir : {hash, colon}) {
    const auto points = load_scenarios_from_text(scenario_for_trace(load_trace(dir), profile, {catalogue}, 5), "trace-scenario");
    EXPECT_EQ(points.front().name, std::filesystem::path(dir).filename().string());
    EXPECT_EQ(points.front().storage.device, "local-vm-virtual-disk");
  }
  EXPECT_CONTAINS(error_of([&] { calibrate({load_trace(hash)}, ""); }), "key 'name': the profile needs a name");
}

TEST(Trace, AMalformedSummaryOrIntervalLineIsNamedWhereItIs) {
  const std::string log = read_file(kTraces + "/local-vm/disk-bp1G-t4/sysbench.log");
  auto line_of = [&](const std::string& needle) {
    return 1 + static_cast<int>(std::count(log.begin(), log.begin() + static_cast<std::ptrdiff_t>(log.find(needle)), '\n'));
  };
  std::string nan_rate = log;
  const std::size_t at = nan_rate.find("per sec.)"), open = nan_rate.rfind('(', at);
  nan_rate.replace(open + 1, at - open - 1, "nan ");
  auto e = error_of([&] { parse_sysbench_log(nan_rate, "x/sysbench.log"); });
  EXPECT_CONTAINS(e, "x/sysbench.log:" + std::to_string(line_of("transactions:")) + ":");
  EXPECT_CONTAINS(e, "malformed 'transactions' line");
  std::string bad_interval = log;
  const std::size_t tps = bad_interval.find(" tps: ") + 6;
  bad_interval.replace(tps, bad_interval.find(' ', tps) - tps, "xyz");
  EXPECT_CONTAINS(error_of([&] { parse_sysbench_log(bad_interval, "x/sysbench.log"); }), "malformed 'interval' line");
  // sysbench --rate's queue lines carry no figure the parser reads.
  std::string with_queue = log;
  with_queue.insert(with_queue.find("[ "), "[ 5s ] queue length: 1, concurrency: 0\n");
  EXPECT_NO_THROW(parse_sysbench_log(with_queue, "x/sysbench.log"));
}

TEST(Trace, AVersionThatDoesNotReadAsOneIsAnError) {
  std::string dir = copy_trace(kTraces + "/local-vm/disk-bp1G-t4", "banana");
  replace_in_meta(dir, "version: \"10.11.19\"", "version: banana");
  auto e = error_of([&] { load_trace(dir); });
  EXPECT_CONTAINS(e, "meta.yaml:");
  EXPECT_CONTAINS(e, "engine.version");
}

TEST(Trace, ACounterThatFellBetweenTheSnapshotsNamesFileLineAndKey) {
  // A restart between the snapshots resets the counters: the delta would be a negative count per
  // transaction (it was fed to the fit and shown as "measured" -10.9 reads per transaction).
  std::string dir = copy_trace(kTraces + "/local-vm/disk-bp1G-t4", "counter-fell");
  const int line = replace_line(dir + "/status_after.tsv", "Innodb_buffer_pool_reads\t", "Innodb_buffer_pool_reads\t5");
  ASSERT_GT(line, 0);
  Trace t = load_trace(dir);
  std::string e = error_of([&] { t.per_txn("Innodb_buffer_pool_reads"); });
  EXPECT_CONTAINS(e, "status_after.tsv:" + std::to_string(line));
  EXPECT_CONTAINS(e, "Innodb_buffer_pool_reads");
  EXPECT_CONTAINS(e, "fell");
  EXPECT_TRUE(t.per_txn("Innodb_pages_written").has_value());
}

TEST(Trace, SnapshotsThatCannotBeOneRunsAreRefusedWithFileLineAndKey) {
  // A counter twice in one snapshot (two dumps mixed), a count beyond 64 bits, a diskstats counter
  // that fell or a device that vanished, a second run summary or a zero 95th percentile in the log:
  // each would reach the fit or the comparison as a wrong number.
  const std::string from = kTraces + "/local-vm/disk-bp1G-t4";
  std::string dir = copy_trace(from, "status-twice");
  std::ofstream(dir + "/status_after.tsv", std::ios::app) << "Innodb_buffer_pool_reads\t9999999\n";
  auto e = error_of([&] { load_trace(dir); });
  EXPECT_CONTAINS(e, "status_after.tsv:");
  EXPECT_CONTAINS(e, "Innodb_buffer_pool_reads");
  EXPECT_CONTAINS(e, "appears twice");
  dir = copy_trace(from, "status-65-bits");
  replace_line(dir + "/status_after.tsv", "Innodb_buffer_pool_reads\t", "Innodb_buffer_pool_reads\t18446744073709551616");
  EXPECT_CONTAINS(error_of([&] { load_trace(dir); }), "not a number a counter can hold");
  replace_line(dir + "/status_after.tsv", "Innodb_buffer_pool_reads\t", "Innodb_buffer_pool_reads\t0x10");  // strtod reads hex
  EXPECT_CONTAINS(error_of([&] { load_trace(dir); }), "not a number a counter can hold");
  dir = copy_trace(from, "diskstats-fell");
  std::string after = read_file(dir + "/diskstats_after.txt");
  std::ofstream(dir + "/diskstats_after.txt") << std::regex_replace(after, std::regex(R"(( vda \d+ \d+ \d+ \d+ )\d+)"), "$010");
  e = error_of([&] { load_trace(dir); });
  EXPECT_CONTAINS(e, "diskstats_after.txt");
  EXPECT_CONTAINS(e, "writes completed fell");
  dir = copy_trace(from, "diskstats-vanished");
  std::ofstream(dir + "/diskstats_after.txt") << std::regex_replace(after, std::regex(R"(.* vda .*\n)"), "");
  EXPECT_CONTAINS(error_of([&] { load_trace(dir); }), "is in diskstats_before.txt but not here");
  dir = copy_trace(from, "two-summaries");
  const std::string log = read_file(dir + "/sysbench.log");
  std::ofstream(dir + "/sysbench.log") << log << log;
  e = error_of([&] { load_trace(dir); });
  EXPECT_CONTAINS(e, "sysbench.log:");
  EXPECT_CONTAINS(e, "a second run summary");
  dir = copy_trace(from, "zero-p95");
  std::ofstream(dir + "/sysbench.log") << std::regex_replace(log, std::regex(R"(95th percentile:\s+[0-9.]+)"), "95th percentile: 0.00");
  EXPECT_CONTAINS(error_of([&] { load_trace(dir); }), "a transaction takes some time");
  // meta.yaml: innodb_flush_method is one of the server's values (a typo would read as O_DIRECT).
  dir = copy_trace(from, "flush-method-typo");
  const std::string meta = read_file(dir + "/meta.yaml");
  ASSERT_NE(meta.find("flush_method: O_DIRECT"), std::string::npos);
  std::ofstream(dir + "/meta.yaml") << std::regex_replace(meta, std::regex("flush_method: O_DIRECT"), "flush_method: fsycn");
  const auto server_line = 1 + std::count(meta.begin(), meta.begin() + static_cast<long>(meta.find("flush_method: O_DIRECT")), '\n');
  e = error_of([&] { load_trace(dir); });
  EXPECT_CONTAINS(e, "meta.yaml:" + std::to_string(server_line));
  EXPECT_CONTAINS(e, "server.flush_method");
  // A host smaller than its buffer pool did not run the trace.
  dir = copy_trace(from, "host-smaller-than-pool");
  std::ofstream(dir + "/meta.yaml") << std::regex_replace(meta, std::regex("memory: 24GiB"), "memory: 1B");
  e = error_of([&] { load_trace(dir); });
  EXPECT_CONTAINS(e, "host.memory");
  EXPECT_CONTAINS(e, "less than server.buffer_pool");
}

TEST(Trace, ParsesDiskstatsOfOldAndNewKernels) {
  // 5.5+ kernels: 17 counters (the last two: flushes and ms flushing); before 4.18: 11.
  auto d = parse_diskstats("   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
                           " 254       0 vda 100 5 3200 50 40 1 640 80 0 120 130 0 0 0 0 20 10\n"
                           "   8       0 sda 10 0 160 7 4 0 64 8 0 12 15\n",
                           "diskstats.txt");
  ASSERT_EQ(d.count("vda"), 1u);
  EXPECT_EQ(d["vda"].reads, 100u);
  EXPECT_EQ(d["vda"].read_ms, 50u);
  EXPECT_EQ(d["vda"].writes, 40u);
  EXPECT_EQ(d["vda"].write_ms, 80u);
  EXPECT_EQ(d["vda"].flushes.value_or(0), 20u);
  EXPECT_EQ(d["vda"].flush_ms.value_or(0), 10u);
  EXPECT_FALSE(d["sda"].flushes.has_value());
}

TEST(Trace, MalformedDiskstatsNamesFileAndLine) {
  auto e = error_of([] { parse_diskstats(" 254 0 vda 1 2 3 4 5 6 7 8 9 10 11\n 254 0 vdb 1 2 3\n", "d.txt"); });
  EXPECT_CONTAINS(e, "d.txt:2");
  e = error_of([] { parse_diskstats(" 254 0 vda 1 2 3 4 5 6 7 8 x 10 11\n", "d.txt"); });
  EXPECT_CONTAINS(e, "d.txt:1");
  EXPECT_CONTAINS(e, "not a number");
  // A negative counter was read as 2^64 less it, and blamed on the other snapshot as a counter that fell.
  e = error_of([] { parse_diskstats(" 254 0 vda -26686577 2 3 4 5 6 7 8 9 10 11\n", "d.txt"); });
  EXPECT_CONTAINS(e, "d.txt:1");
  EXPECT_CONTAINS(e, "not a number: '-26686577'");
}

TEST(Trace, DeviceAwaitOfACommittedTraceIsTheBlockLayersMeanPerRequest) {
  // disk-bp1G-t4: vda's read ms / reads, write ms / writes, flush ms / flushes over the run.
  auto t = load_trace(kTraces + "/local-vm/disk-bp1G-t4");
  auto a = t.device_await("vda");
  ASSERT_TRUE(a.has_value());
  ASSERT_TRUE(a->read_s && a->write_s && a->flush_s);
  EXPECT_NEAR(*a->read_s * 1e6, 147.8, 0.1);   // (11963131 - 11930199) ms / (26909430 - 26686577) reads
  EXPECT_NEAR(*a->flush_s * 1e6, 362.5, 0.1);  // (1203478 - 1195046) ms / (1959810 - 1936548) flushes
  // Every flush the block layer saw is one of the server's fsyncs (Innodb_data_fsyncs).
  EXPECT_NEAR(a->flushes_per_s * t.meta["capture"]["window_s"].as<double>(), t.status_after.at("Innodb_data_fsyncs") - t.status_before.at("Innodb_data_fsyncs"), 0.5);
  EXPECT_FALSE(t.device_await("nvme9n1").has_value());
}

TEST(Trace, TheTracesOwnDeviceMustBeInBothDiskSnapshotsAndHaveDoneIo) {
  // Each was left out of the write-buffer fit and validate's await comparison without a word.
  const std::string from = kTraces + "/local-vm/disk-bp512M-t4";
  std::string dir = copy_trace(from, "disk-device/only-after");
  {  // the vda line taken out of diskstats_before.txt
    std::string text = poolsim::testing::read_file(dir + "/diskstats_before.txt");
    const auto at = text.find(" 254       0 vda ");
    ASSERT_NE(at, std::string::npos);
    text.erase(at, text.find('\n', at) + 1 - at);
    std::ofstream(dir + "/diskstats_before.txt") << text;
  }
  auto e = error_of([&] { load_trace(dir); });
  EXPECT_CONTAINS(e, "diskstats_before.txt");
  EXPECT_CONTAINS(e, "is in diskstats_after.txt but not here");
  dir = copy_trace(from, "disk-device/other-name");
  const int line = replace_line(dir + "/meta.yaml", "storage: ", "storage: {kind: virtual-disk, device: sdz, fs: ext4}");
  e = error_of([&] { load_trace(dir); });
  EXPECT_CONTAINS(e, "meta.yaml:" + std::to_string(line) + ":");
  EXPECT_CONTAINS(e, "storage.device");
  dir = copy_trace(from, "disk-device/copied");
  std::filesystem::copy_file(dir + "/diskstats_before.txt", dir + "/diskstats_after.txt", std::filesystem::copy_options::overwrite_existing);
  e = error_of([&] { load_trace(dir); });
  EXPECT_CONTAINS(e, "did no IO between the snapshots");
}

TEST(Trace, BadMetaNamesKeyAndLine) {
  std::string dir = copy_trace(kTraces + "/local-vm/disk-bp1G-t16", "bad-meta");
  std::string meta = dir + "/meta.yaml";
  std::ofstream(meta) << "engine: {product: mariadb, version: \"10.11\"}\n"
                         "workload: {tables: 8, table_size: 1000, threads: 4}\n"
                         "server: {buffer_pool: 512}\n"
                         "host: {cores: 2}\nstorage: {kind: virtual-disk}\n";
  auto e = error_of([&] { load_trace(dir); });
  EXPECT_CONTAINS(e, "meta.yaml:3:");
  EXPECT_CONTAINS(e, "server.buffer_pool");
  EXPECT_CONTAINS(e, "has no unit");
}

TEST(Trace, BadFioJsonNamesFile) {
  auto e = error_of([] { parse_fio_json("{\"nope\": 1}", "fio/x.json"); });
  EXPECT_CONTAINS(e, "fio/x.json");
}

TEST(Trace, FioFiguresThatNoDeviceHasNameFileAndKey) {
  // A committed job, then the same with one figure broken: a zero latency made calibrate drop the
  // device from the fitted catalogue without a word; a negative rate or a text was fitted or thrown
  // as a library exception.
  const std::string path = kTraces + "/local-vm/disk-bp1G-t4/fio/randread-16k-qd1.json";
  const auto good = nlohmann::json::parse(read_file(path));
  EXPECT_GT(parse_fio_json(good.dump(), "fio/ok.json").read_iops, 0);
  auto broken = [&](const std::function<void(nlohmann::json&)>& damage) {
    nlohmann::json j = good;
    damage(j);
    return error_of([&] { parse_fio_json(j.dump(), "fio/bad.json"); });
  };
  std::string e = broken([](nlohmann::json& j) { j["jobs"][0]["read"]["lat_ns"]["mean"] = 0; });
  EXPECT_CONTAINS(e, "fio/bad.json");
  EXPECT_CONTAINS(e, "jobs[0].read.lat_ns.mean");
  EXPECT_CONTAINS(e, "positive");
  EXPECT_CONTAINS(broken([](nlohmann::json& j) { j["jobs"][0]["read"]["iops"] = -5; }), "jobs[0].read.iops");
  EXPECT_CONTAINS(broken([](nlohmann::json& j) { j["jobs"][0]["read"]["iops"] = "fast"; }), "jobs[0].read.iops");
  EXPECT_CONTAINS(broken([](nlohmann::json& j) { j["jobs"][0]["job options"]["iodepth"] = "deep"; }), "job options.iodepth");
  EXPECT_CONTAINS(broken([](nlohmann::json& j) { j["jobs"][0]["job options"]["bs"] = "big"; }), "job options.bs");
  // A rate no device has: 1e19 overflowed the fitted catalogue's whole-number read_iops, refused
  // then at a temporary file's line; 1e-300 was fitted into a device (QD1 service 0 -> 165,014 s).
  for (double iops : {1e19, 2e9, 1e-300, 0.5}) {
    e = broken([&](nlohmann::json& j) { j["jobs"][0]["read"]["iops"] = iops; });
    EXPECT_CONTAINS(e, "fio/bad.json");
    EXPECT_CONTAINS(e, "jobs[0].read.iops");
    EXPECT_CONTAINS(e, "no device's");
  }
  // The job's own rate missing: the side was skipped and the device left out of the catalogue.
  e = broken([](nlohmann::json& j) { j["jobs"][0]["read"].erase("iops"); });
  EXPECT_CONTAINS(e, "jobs[0].read.iops");
  EXPECT_CONTAINS(e, "missing");
  // A job that failed (fio's errno) was read as the device's figures.
  e = broken([](nlohmann::json& j) { j["jobs"][0]["error"] = 5; });
  EXPECT_CONTAINS(e, "jobs[0].error");
  EXPECT_CONTAINS(e, "the job failed");
}

TEST(Calibrate, CountersNoRunMakesAreRefusedAtTheirStatusLine) {
  // Each was fitted without a word: a redo counter 10,000 times its run's (the redo rate fitted from
  // it made the fit's trial simulations run for ever), a counter that wrapped (a device costing
  // 4e-13 us per IO), a pool whose page count is 0 (averaged into the profile's frames per page).
  const std::string set = kTraces + "/local-vm/";
  auto traces_with = [&](const std::string& name, const std::string& counter, const std::function<double(double, double)>& after) {
    std::string dir = copy_trace(set + "tmpfs-bp512M-t4", "counters/" + name);
    const Trace t = load_trace(dir);
    const double value = after(t.status_before.at(counter), t.status_after.at(counter));
    char text[64];
    std::snprintf(text, sizeof text, "%s\t%.0f", counter.c_str(), value);
    const int line = replace_line(dir + "/status_after.tsv", counter + "\t", text);
    return std::make_pair(std::vector<Trace>{load_trace(dir), load_trace(set + "tmpfs-bp3G-t4"), load_trace(set + "tmpfs-bp3G-t1")},
                          line);
  };
  auto [redo, redo_line] = traces_with("redo", "Innodb_os_log_written", [](double b, double a) { return b + (a - b) * 1e4; });
  auto e = error_of([&] { calibrate(redo, "x"); });
  EXPECT_CONTAINS(e, "status_after.tsv:" + std::to_string(redo_line) + ": key 'Innodb_os_log_written'");
  EXPECT_CONTAINS(e, "bytes of redo per row change");
  auto [wrapped, wrapped_line] = traces_with("wrapped", "Innodb_pages_written", [](double, double) { return 1.8e19; });
  e = error_of([&] { calibrate(wrapped, "x"); });
  EXPECT_CONTAINS(e, "status_after.tsv:" + std::to_string(wrapped_line) + ": key 'Innodb_pages_written'");
  EXPECT_CONTAINS(e, "per transaction");
  {
    // A pool whose page count is 0: refused as the trace loads (validate's too), at its line.
    const std::string dir = copy_trace(set + "tmpfs-bp512M-t4", "counters/frames");
    const int line = replace_line(dir + "/status_after.tsv", "Innodb_buffer_pool_pages_total\t", "Innodb_buffer_pool_pages_total\t0");
    e = error_of([&] { load_trace(dir); });
    EXPECT_CONTAINS(e, "status_after.tsv:" + std::to_string(line) + ": key 'Innodb_buffer_pool_pages_total'");
    EXPECT_CONTAINS(e, "frames per page");
    // Dirty pages past the pool's (an edited total made the measured dirty share 233 %).
    replace_line(dir + "/status_after.tsv", "Innodb_buffer_pool_pages_total\t", "Innodb_buffer_pool_pages_total\t32000");
    const int dirty_line = replace_line(dir + "/status_after.tsv", "Innodb_buffer_pool_pages_dirty\t", "Innodb_buffer_pool_pages_dirty\t32001");
    EXPECT_CONTAINS(error_of([&] { load_trace(dir); }), "status_after.tsv:" + std::to_string(dirty_line) +
                                                            ": key 'Innodb_buffer_pool_pages_dirty': 32001 pages, more than the pool's 32000");
  }
  // The profile's bound where no trace is involved: a redo rate past a row change's is refused by key.
  const std::string profile = temp_path("counters/redo-profile.yaml");
  std::filesystem::copy_file(set + "profile.yaml", profile, std::filesystem::copy_options::overwrite_existing);
  replace_line(profile, "redo_bytes_per_row_change:", "redo_bytes_per_row_change: 1e300B");
  e = error_of([&] { load_profile(profile); });
  EXPECT_CONTAINS(e, "redo_bytes_per_row_change");
  // A probe no core makes: refused at the profile's key, not as the core speed of a scenario made from it.
  std::filesystem::copy_file(set + "profile.yaml", profile, std::filesystem::copy_options::overwrite_existing);
  replace_line(profile, "cpu_probe_eps:", "cpu_probe_eps: 1e-300");
  e = error_of([&] { load_profile(profile); });
  EXPECT_CONTAINS(e, "cpu_probe_eps");
}

TEST(Trace, MetaValuesTheSimulatorRefusesAreRefusedInMetaYaml) {
  // host.cores 100000 passed meta.yaml and was refused in the scenario made from it ("(scenario from
  // meta.yaml):3:18: key 'compute.cores'"), or made a CPU fit of -6e9 us.
  std::string dir = copy_trace(kTraces + "/local-vm/tmpfs-bp512M-t4", "meta-bounds/cores");
  const int at = replace_line(dir + "/meta.yaml", "host: ", "host: {cores: 100000, memory: 24GiB}");
  auto e = error_of([&] { load_trace(dir); });
  EXPECT_CONTAINS(e, "meta.yaml:" + std::to_string(at) + ":");
  EXPECT_CONTAINS(e, "host.cores");
}

TEST(Calibrate, FioJobsThatMeasurePartOfTheDeviceAreRefused) {
  // Without its sync jobs a trace's device was fitted with a flush of 0 us and power-loss
  // protection; without its QD1 read it was left out of the catalogue. Both without a word.
  const std::string from = kTraces + "/local-vm/disk-bp512M-t4";
  std::string dir = copy_trace(from, "fio-parts/no-sync");
  for (const auto& f : std::filesystem::directory_iterator(dir + "/fio"))
    if (f.path().filename().string().find("sync") != std::string::npos) std::filesystem::remove(f.path());
  auto e = error_of([&] { device_yaml_from_fio(load_trace(dir), 0); });
  EXPECT_CONTAINS(e, dir + "/fio");
  EXPECT_CONTAINS(e, "no fsync or fdatasync job");
  dir = copy_trace(from, "fio-parts/no-qd1");
  std::filesystem::remove(dir + "/fio/randread-16k-qd1.json");
  e = error_of([&] { device_yaml_from_fio(load_trace(dir), 0); });
  EXPECT_CONTAINS(e, "no randread job at iodepth 1");
  // A job whose iodepth is missing reads as fio's default, 1: a second QD1 point of the curve.
  dir = copy_trace(from, "fio-parts/two-qd1");
  {
    auto job = nlohmann::json::parse(poolsim::testing::read_file(dir + "/fio/randread-16k-qd16.json"));
    job["jobs"][0]["job options"].erase("iodepth");
    std::ofstream(dir + "/fio/randread-16k-qd16.json") << job.dump();
  }
  e = error_of([&] { device_yaml_from_fio(load_trace(dir), 0); });
  EXPECT_CONTAINS(e, "a second randread job at iodepth 1");
  EXPECT_FALSE(device_yaml_from_fio(load_trace(from), 0).empty());
}

TEST(Calibrate, FitsAndValidatesEndToEnd) {
  std::string out = temp_path("fitted.yaml");
  std::string set = kTraces + "/local-vm/";
  auto c = run_cli("calibrate " + set + "tmpfs-bp512M-t1 " + set + "tmpfs-bp3G-t1 " + set + "tmpfs-bp3G-t4 " + set +
                   "tmpfs-bp512M-t4 -o " + out);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_CONTAINS(c.err, "rms residual");
  EXPECT_TRUE(std::filesystem::exists(temp_path("fitted-devices.yaml")));
  // The profile loads as a profile (schema-valid) and records its traces.
  auto profile = load_profile(out);
  EXPECT_GT(profile.statement_cpu_s[static_cast<int>(StatementKind::PointSelect)], 0);
  EXPECT_CONTAINS(profile.source, "tmpfs-bp3G-t1");
  auto v = run_cli("validate --profile " + out + " " + set + "tmpfs-bp1G-t1 --format json --duration 4");
  ASSERT_EQ(v.exit_code, 0) << v.err;
  auto doc = nlohmann::json::parse(v.out);
  ASSERT_EQ(doc["rows"].size(), 1u);
  EXPECT_TRUE(doc["rows"][0]["error_pct"].contains("tps"));
  EXPECT_TRUE(doc["summary"]["median_abs_error_pct"].contains("p95_ms"));
  // A device the fit never saw (the disk, after a tmpfs-only fit) is modelled from the trace's fio.
  auto unseen = run_cli("validate --profile " + out + " " + set + "disk-bp3G-t4 --format json --duration 4");
  ASSERT_EQ(unseen.exit_code, 0) << unseen.err;
  auto unseen_row = nlohmann::json::parse(unseen.out)["rows"][0];
  EXPECT_GT(unseen_row["predicted"]["tps"].get<double>(), 0);
  // The block layer's flush await (diskstats) beside the simulated device's: every commit fsyncs.
  ASSERT_TRUE(unseen_row.contains("device_await_us")) << unseen_row.dump();
  EXPECT_GT(unseen_row["device_await_us"]["flush"]["measured"].get<double>(), 0);
  EXPECT_GT(unseen_row["device_await_us"]["flush"]["predicted"].get<double>(), 0);
  // A threshold below the error exits 1.
  auto strict = run_cli("validate --profile " + out + " " + set + "tmpfs-bp1G-t1 --duration 4 --max-error 0.0001");
  EXPECT_EQ(strict.exit_code, 1);
}

TEST(Calibrate, BadTraceDirectoryExitsTwo) {
  std::string empty = temp_path("empty-trace");
  std::filesystem::create_directories(empty);
  auto r = run_cli("calibrate " + empty + " -o " + temp_path("never.yaml"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "meta.yaml");
  EXPECT_FALSE(std::filesystem::exists(temp_path("never.yaml")));
}

namespace {
// A small cached database whose sweep `validate --table` must ignore: each table row is one point.
const char* kTableScenario =
    "compute: {cores: 2}\n"
    "storage: {kind: local, device: pcie4-nvme-tlc}\n"
    "workload: {kind: sysbench, test: oltp_read_write, tables: 2, table_size: 20000, rand_type: uniform, threads: 2}\n"
    "database: {buffer_pool: 64MiB}\n"
    "simulation: {warmup: 0.2s, batch: 0.1s, min_batches: 5, max_duration: 1s}\n"
    "sweep: {workload.threads: [1, 2, 3]}\n"
    "validation:\n"
    "  columns:\n"
    "    storage:\n"
    "      values:\n"
    "        nvme: {storage.device: pcie4-nvme-tlc}\n"
    "        sata: {storage.device: samsung-850-pro}\n"
    "    threads: {key: workload.threads}\n"
    "  measured: {tps: tps, p95_ms: p95}\n";
}  // namespace

TEST(Validate, PublishedTableThroughAScenario) {
  std::string scenario = poolsim::testing::write_temp("table-scenario.yaml", kTableScenario);
  std::string table = poolsim::testing::write_temp("published.csv",
                                          "series,storage,threads,tps,p95\n"
                                          "\"NVMe, fast\",nvme,4,1000,5.5\n"
                                          "SATA,sata,8,500.5,9\n"
                                          "RAM,ram,8,2000,1\n");
  auto r = run_cli("validate --scenario " + scenario + " --table " + table + " --format json --jobs 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["rows"].size(), 3u);
  const auto& nvme = doc["rows"][0];
  EXPECT_EQ(nvme["series"], "NVMe, fast");  // the CSV row's columns, quotes undone
  EXPECT_EQ(nvme["params"]["workload.threads"], "4");
  EXPECT_EQ(doc["rows"][1]["params"]["storage.device"], "samsung-850-pro");
  for (int i : {0, 1}) {
    const auto& row = doc["rows"][i];
    for (const char* figure : {"tps", "p95_ms"}) {
      double measured = row["measured"][figure], predicted = row["predicted"][figure];
      EXPECT_GT(predicted, 0);
      EXPECT_NEAR(row["error_pct"][figure].get<double>(), 100 * (predicted - measured) / measured, 1e-9);
    }
  }
  EXPECT_EQ(doc["rows"][0]["measured"]["tps"], 1000.0);
  EXPECT_CONTAINS(doc["rows"][2]["skipped"].get<std::string>(), "storage 'ram'");
  EXPECT_EQ(doc["summary"]["rows_compared"], 2);
  EXPECT_EQ(doc["summary"]["rows_skipped"], 1);
}

TEST(Validate, ADurationInWhichNothingCompletesIsAnErrorNotAHundredPercentRow) {
  // A --duration too short for one transaction gave a -100 % TPS row (and that median) with exit 0.
  auto r = run_cli("validate --profile " + kTraces + "/local-vm/profile.yaml " + kTraces + "/local-vm/tmpfs-bp512M-t4 --duration 0.000001");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "--duration");
  EXPECT_CONTAINS(r.err, "no transaction of");
}

TEST(Validate, BadTableOrMappingNamesFileLineAndKey) {
  std::string scenario = poolsim::testing::write_temp("table-scenario2.yaml", kTableScenario);
  // A header without rows gave an empty summary and exit 0.
  std::string header = poolsim::testing::write_temp("header-only.csv", "series,storage,threads,tps,p95\n");
  auto r = run_cli("validate --scenario " + scenario + " --table " + header);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "header-only.csv:1:1: the table has no rows");
  std::string ragged = poolsim::testing::write_temp("ragged.csv", "series,storage,threads,tps,p95\nA,nvme,4,1000\n");
  r = run_cli("validate --scenario " + scenario + " --table " + ragged);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "ragged.csv:2");
  std::string not_a_number = poolsim::testing::write_temp("nan.csv", "series,storage,threads,tps,p95\nA,nvme,4,fast,1\n");
  r = run_cli("validate --scenario " + scenario + " --table " + not_a_number);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "nan.csv:2");
  EXPECT_CONTAINS(r.err, "'tps'");
  // A mapped column the table lacks, named at its line in the scenario.
  std::string other = poolsim::testing::write_temp("other.csv", "series,storage,thread,tps,p95\nA,nvme,4,1,1\n");
  r = run_cli("validate --scenario " + scenario + " --table " + other);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "table-scenario2.yaml:13");
  EXPECT_CONTAINS(r.err, "did you mean 'thread'");
  // A cell the scenario cannot take (threads mapped straight to workload.threads): named at the
  // table's line, not at the override built from it.
  std::string bad_cell = poolsim::testing::write_temp("bad-cell.csv", "series,storage,threads,tps,p95\nA,nvme,4,1,1\nB,nvme,many,1,1\n");
  r = run_cli("validate --scenario " + scenario + " --table " + bad_cell);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "bad-cell.csv:3");
  EXPECT_CONTAINS(r.err, "workload.threads");
  // A key cell with more after its value: YAML read "4 # x" as 4, the rest a comment.
  std::string trailing = poolsim::testing::write_temp("trailing.csv", "series,storage,threads,tps,p95\nA,nvme,4,1,1\nB,nvme,4 # x,1,1\n");
  r = run_cli("validate --scenario " + scenario + " --table " + trailing);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "trailing.csv:3: key 'threads'");
  EXPECT_CONTAINS(r.err, "'4 # x' is not one value");
  // Neither traces nor a table.
  r = run_cli("validate --scenario " + scenario);
  EXPECT_EQ(r.exit_code, 2);
}

// ---------------------------------------------------------------- iostat (traces/mdev-13845)

namespace {
const char* kIostat =
    "Linux 3.16.0-77-generic (cheetah02) \t11/06/18 \t_x86_64_\t(32 CPU)\n"
    "\n"
    "avg-cpu:  %user   %nice %system %iowait  %steal   %idle\n"
    "           1.49    0.00    0.34    0.17    0.00   98.00\n"
    "\n"
    "Device:         rrqm/s   wrqm/s     r/s     w/s    rMB/s    wMB/s avgrq-sz avgqu-sz   await r_await w_await  svctm  %util\n"
    "sdc               0.21    13.30   34.71  115.50     0.61     2.10    36.95     0.15    0.98    1.04    0.97   0.12   1.88\n"
    "md0               0.00     0.00   67.65  205.86     1.07     4.29    40.15     0.00    0.00    0.00    0.00   0.00   0.00\n"
    "\n"
    "avg-cpu:  %user   %nice %system %iowait  %steal   %idle\n"
    "          13.69    0.00    6.62   36.52    0.00   43.16\n"
    "\n"
    "Device:         rrqm/s   wrqm/s     r/s     w/s    rMB/s    wMB/s avgrq-sz avgqu-sz   await r_await w_await  svctm  %util\n"
    "sdc               9.50   154.00 8436.00 1268.50   131.96    19.67    32.00    11.01    1.14    1.14    1.08   0.09  88.80\n"
    "md0               0.00     0.00 17020.00 2179.50   265.93    40.56    32.69     0.00    0.00    0.00    0.00   0.00   0.00\n"
    "\n"
    "avg-cpu:  %user   %nice %system %iowait  %steal   %idle\n"
    "          13.41    0.00    6.05   34.60    0.00   45.95\n"
    "\n"
    "Device:         rrqm/s   wrqm/s     r/s     w/s    rMB/s    wMB/s avgrq-sz avgqu-sz   await r_await w_await  svctm  %util\n"
    "sdc               3.00   188.50 7730.00 2077.00   120.83    39.27    33.43    10.87    1.10    1.05    1.27   0.09  88.40\n"
    "md0               0.00     0.00 15536.00 3737.00   242.75    81.92    34.50     0.00    0.00    0.00    0.00   0.00   0.00\n";
}  // namespace

TEST(Trace, ParsesIostatReportsAndSkipsTheSinceBootOneInTheMean) {
  auto log = parse_iostat(kIostat, "iostat.txt");
  EXPECT_EQ(log.cpus, 32);
  ASSERT_EQ(log.reports.size(), 3u);
  EXPECT_DOUBLE_EQ(log.reports[1].user_pct, 13.69);
  EXPECT_DOUBLE_EQ(log.reports[1].devices.at("md0").at("r/s"), 17020.00);
  auto mean = log.run_mean();
  EXPECT_NEAR(mean.busy_pct(), (13.69 + 6.62 + 13.41 + 6.05) / 2, 1e-9);
  EXPECT_NEAR(mean.iowait_pct, (36.52 + 34.60) / 2, 1e-9);
  EXPECT_NEAR(mean.devices.at("sdc").at("r_await"), (1.14 + 1.05) / 2, 1e-9);
}

TEST(Trace, MalformedIostatNamesFileAndLine) {
  std::string text = kIostat;
  // A device line with a field missing (line 7: the first report's sdc).
  std::string cut = text;
  cut.replace(cut.find("   1.88\n"), 8, "\n");
  EXPECT_CONTAINS(error_of([&] { parse_iostat(cut, "x/iostat.txt"); }), "x/iostat.txt:7:");
  // A value that is not a number (line 11: the second report's avg-cpu values).
  std::string bad = text;
  bad.replace(bad.find("13.69"), 5, "13,69");
  auto e = error_of([&] { parse_iostat(bad, "x/iostat.txt"); });
  EXPECT_CONTAINS(e, "x/iostat.txt:11:");
  EXPECT_CONTAINS(e, "%user");
  // Truncated after an avg-cpu header; no header line; only the since-boot report.
  std::string truncated = text.substr(0, text.rfind("          13.41"));
  EXPECT_CONTAINS(error_of([&] { parse_iostat(truncated, "x/iostat.txt"); }), "truncated");
  EXPECT_CONTAINS(error_of([&] { parse_iostat(text.substr(text.find('\n') + 1), "x/iostat.txt"); }), "x/iostat.txt:2:");
  std::string boot_only = text.substr(0, text.find("avg-cpu", text.find("md0")));
  EXPECT_CONTAINS(error_of([&] { parse_iostat(boot_only, "x/iostat.txt"); }), "since-boot");
}

TEST(Trace, ParsesASysbench05LogWithItsOwnLatencyLines) {
  // sysbench 0.5's summary (traces/mdev-13845/bp16G-rw22-t16): 'read/write requests' instead of
  // 'queries', 'approx.  95 percentile' in ms, interval lines with 'threads:' and 'response time'.
  const char* log =
      "sysbench 0.5:  multi-threaded system evaluation benchmark\n\n"
      "[   2s] threads: 16, tps: 2816.12, reads: 39522.62, writes: 11284.46, response time: 8.65ms (95%), errors: 0.00, reconnects:  0.00\n"
      "OLTP test statistics:\n    queries performed:\n        read:                            6691132\n"
      "        write:                           1911752\n        other:                           955876\n"
      "        total:                           9558760\n"
      "    transactions:                        477938 (2640.45 per sec.)\n"
      "    read/write requests:                 8602884 (47528.07 per sec.)\n"
      "    other operations:                    955876 (5280.90 per sec.)\n\n"
      "General statistics:\n    total time:                          181.0064s\n"
      "    response time:\n         min:                                  1.93ms\n"
      "         avg:                                  6.06ms\n         max:                                 39.15ms\n"
      "         approx.  95 percentile:              10.15ms\n";
  auto r = parse_sysbench_log(log, "sysbench.log");
  EXPECT_EQ(r.version, "0.5");
  EXPECT_DOUBLE_EQ(r.tps, 2640.45);
  EXPECT_EQ(r.transactions, 477938u);
  EXPECT_DOUBLE_EQ(r.latency_p95_ms, 10.15);
  EXPECT_DOUBLE_EQ(r.latency_avg_ms, 6.06);
  EXPECT_DOUBLE_EQ(r.other_queries, 955876);
  EXPECT_NEAR(r.qps, 9558760 / 181.0064, 1e-6);  // all statements, BEGIN/COMMIT included, as 1.0's 'queries'
  ASSERT_EQ(r.intervals.size(), 1u);
  EXPECT_DOUBLE_EQ(r.intervals[0].p95_ms, 8.65);
  // Cut before the latency summary: the error names the file and the last line.
  std::string cut(log);
  cut = cut.substr(0, cut.find("General statistics"));
  auto e = error_of([&] { parse_sysbench_log(cut, "y/sysbench.log"); });
  EXPECT_CONTAINS(e, "y/sysbench.log:");
  EXPECT_CONTAINS(e, "truncated");
}

TEST(Trace, LoadsAnMdevTraceWithIostatAndSnapshotSpan) {
  auto t = load_trace(kTraces + "/mdev-13845/bp4G-rw22-t32");
  ASSERT_TRUE(t.iostat.has_value());
  EXPECT_EQ(t.iostat->cpus, 32);
  EXPECT_GT(t.iostat->reports.size(), 50u);
  EXPECT_TRUE(t.iostat->run_mean().devices.count("md0"));
  // Counter deltas are divided by the transactions between the snapshots (status.transactions).
  double reads = t.status_after.at("Innodb_buffer_pool_reads") - t.status_before.at("Innodb_buffer_pool_reads");
  EXPECT_NEAR(*t.per_txn("Innodb_buffer_pool_reads"), reads / t.meta["status"]["transactions"].as<double>(), 1e-12);
}

TEST(Calibrate, MdevTracesFitHostCpuAndDescribeTheirRunsAsScenarios) {
  // Traces with only the host's CPU (iostat) and no fio: the fit uses the host's busy CPU, the
  // device comes from the catalogue entry the traces name, and each trace's scenario carries its
  // mix (read-only or the oltp.lua counts) and the two striped SSDs.
  std::vector<Trace> traces;
  for (const char* run : {"bp16G-ro-t1", "bp16G-ro-t16", "bp16G-rw22-t4", "bp16G-rw100-t16", "bp16G-rw50-t8"})
    traces.push_back(load_trace(kTraces + "/mdev-13845/" + run));
  auto fit = calibrate(traces, "mdev-test");
  EXPECT_CONTAINS(fit.report, "host-wide CPU from iostat");
  EXPECT_CONTAINS(fit.report, "u_r = ");  // read-only and write-only mixes: SELECTs and writes apart
  EXPECT_CONTAINS(fit.profile_yaml, "client_statement: 0us");
  EXPECT_CONTAINS(fit.devices_yaml, "mdev-13845-sata:");
  EXPECT_CONTAINS(fit.devices_yaml, "catalogue entry samsung-850-pro");
  std::string ro = scenario_for_trace(traces[0], "p.yaml", {}, 5);
  EXPECT_CONTAINS(ro, "test: oltp_read_only");
  EXPECT_CONTAINS(ro, "version: \"0.5\"");
  EXPECT_CONTAINS(ro, "devices: 2");
  EXPECT_CONTAINS(ro, "log_files_in_group: 2");
  std::string rw50 = scenario_for_trace(traces[4], "p.yaml", {}, 5);
  EXPECT_CONTAINS(rw50, "test: oltp\n");
  EXPECT_CONTAINS(rw50, "index_updates: 6");
  EXPECT_CONTAINS(rw50, "non_index_updates: 6");
  // MariaDB 10.3: one shared doublewrite buffer (one batch at a time, 8 single-page slots); 10.11's
  // traces keep the unlimited default.
  EXPECT_CONTAINS(rw50, "doublewrite_files: 1\n");
  EXPECT_EQ(scenario_for_trace(load_trace(kTraces + "/local-vm/disk-bp1G-t4"), kTraces + "/local-vm/profile.yaml", {}, 5).find("doublewrite_files"),
            std::string::npos);
  // The pool's instances as the server ran (my.cnf.04: 2); MariaDB 10.5+ has one whatever the setting.
  EXPECT_CONTAINS(rw50, "buffer_pool_instances: 2\n");
  const std::string local = scenario_for_trace(load_trace(kTraces + "/local-vm/disk-bp1G-t4"), kTraces + "/local-vm/profile.yaml", {}, 5);
  EXPECT_EQ(local.find("buffer_pool_instances"), std::string::npos);
  // Flushing settings the set did not record take MariaDB 10.3's defaults (75 %, lwm 0; 4 page
  // cleaners, lowered to the 2 instances), not the scenario's MySQL 8.0 ones; 10.11's traces keep
  // what variables.tsv says, and one page cleaner.
  EXPECT_CONTAINS(rw50, "max_dirty_pages_pct: 75%\n");
  EXPECT_CONTAINS(rw50, "max_dirty_pages_pct_lwm: 0%\n");
  EXPECT_CONTAINS(rw50, "page_cleaners: 2\n");
  EXPECT_EQ(rw50.find("adaptive_flushing_lwm"), std::string::npos);
  EXPECT_CONTAINS(local, "page_cleaners: 1\n");
  EXPECT_CONTAINS(local, "max_dirty_pages_pct: 90%\n");
  {
    // Instances not recorded at all: 10.3's default, 8 for a pool of 1 GiB or more (then 4 page
    // cleaners), 1 below.
    std::string dir = copy_trace(kTraces + "/mdev-13845/bp4G-rw50-t32", "no-instances");
    YAML::Node meta = YAML::LoadFile(dir + "/meta.yaml");
    meta["server"].remove("buffer_pool_instances");
    std::ofstream(dir + "/meta.yaml") << meta << "\n";
    const std::string big = scenario_for_trace(load_trace(dir), kTraces + "/local-vm/profile.yaml", {}, 5);
    EXPECT_CONTAINS(big, "buffer_pool_instances: 8\n");
    EXPECT_CONTAINS(big, "page_cleaners: 4\n");
    meta["server"]["buffer_pool"] = "512MiB";
    std::ofstream(dir + "/meta.yaml") << meta << "\n";
    std::filesystem::remove(dir + "/status_before.tsv");  // a 4 GiB pool's page counts
    std::filesystem::remove(dir + "/status_after.tsv");
    const std::string small = scenario_for_trace(load_trace(dir), kTraces + "/local-vm/profile.yaml", {}, 5);
    EXPECT_CONTAINS(small, "buffer_pool_instances: 1\n");
    EXPECT_CONTAINS(small, "page_cleaners: 1\n");
    // MariaDB 5.5 (as MySQL 5.5) defaulted to one instance whatever the pool's size.
    meta["server"]["buffer_pool"] = "4GiB";
    meta["engine"]["version"] = "5.5.68";
    std::ofstream(dir + "/meta.yaml") << meta << "\n";
    EXPECT_CONTAINS(scenario_for_trace(load_trace(dir), kTraces + "/local-vm/profile.yaml", {}, 5), "buffer_pool_instances: 1\n");
  }
  {
    // A count no server has in variables.tsv was named only at the scenario built from it, "(scenario
    // from meta.yaml)"; it is the trace's line now, text there too.
    std::string dir = copy_trace(kTraces + "/mdev-13845/bp4G-rw50-t32", "bad-instances");
    for (const char* value : {"100", "0", "2.5", "many"}) {
      std::ofstream(dir + "/variables.tsv") << "innodb_io_capacity\t4000\ninnodb_buffer_pool_instances\t" << value << "\n";
      const Trace t = load_trace(dir);
      auto e = error_of([&] { scenario_for_trace(t, "p.yaml", {}, 5); });
      EXPECT_CONTAINS(e, "variables.tsv:2: key 'innodb_buffer_pool_instances'");
      EXPECT_CONTAINS(e, "1 to 64");
    }
    std::ofstream(dir + "/variables.tsv") << "innodb_buffer_pool_instances\t4\n";
    EXPECT_CONTAINS(scenario_for_trace(load_trace(dir), kTraces + "/local-vm/profile.yaml", {}, 5), "buffer_pool_instances: 4\n");
  }
  // flush_method fsync: the data files through the page cache, except on tmpfs, whose fitted device
  // is that cache already (the local-vm tmpfs runs ran with fsync, O_DIRECT not being available).
  EXPECT_EQ(local.find("flush_method"), std::string::npos);
  EXPECT_EQ(scenario_for_trace(load_trace(kTraces + "/local-vm/tmpfs-bp512M-t4"), kTraces + "/local-vm/profile.yaml", {}, 5).find("flush_method"),
            std::string::npos);
  {
    std::string buffered = copy_trace(kTraces + "/local-vm/disk-bp1G-t4", "buffered");
    replace_in_meta(buffered, "flush_method: O_DIRECT", "flush_method: fsync");
    edit_file(buffered + "/variables.tsv", [](std::string t) { return replaced(t, "innodb_flush_method\tO_DIRECT", "innodb_flush_method\tfsync"); });
    EXPECT_CONTAINS(scenario_for_trace(load_trace(buffered), kTraces + "/local-vm/profile.yaml", {}, 5), "  flush_method: fsync\n");
  }
  // A storage.model that is not in the catalogue names the file, line and key.
  std::string dir = copy_trace(kTraces + "/mdev-13845/bp16G-ro-t1", "bad-model");
  replace_in_meta(dir, "model: samsung-850-pro", "model: samsung-850-prox");
  auto e = error_of([&] { device_yaml_for(load_trace(dir), 0); });
  EXPECT_CONTAINS(e, "meta.yaml:");
  EXPECT_CONTAINS(e, "storage.model");
  EXPECT_CONTAINS(e, "did you mean 'samsung-850-pro'");
}

TEST(Calibrate, AFlushLatencyTheTracesDidNotMeasureIsFittedOnThem) {
  // The MDEV-13845 runs name a catalogue SATA SSD and have no fio: the flush latency is the class's
  // figure until the fit simulates the runs that fsync (the read-only one does not) and finds where
  // their median signed TPS error crosses zero. The bracket it ends with straddles zero; the
  // catalogue it returns carries the fitted figure and says where it came from.
  std::vector<Trace> traces;
  for (const char* run : {"bp16G-ro-t1", "bp16G-rw22-t1", "bp16G-rw50-t2", "bp16G-rw100-t4"})
    traces.push_back(load_trace(kTraces + "/mdev-13845/" + run));
  auto out = calibrate(traces, "mdev-flush-test");
  const std::string profile = poolsim::testing::write_temp("mdev-flush-test.yaml", out.profile_yaml);
  FlushFitOptions options;
  options.duration_s = 5;
  options.jobs = 2;
  std::string devices = out.devices_yaml;
  auto fits = fit_flush_latencies(traces, profile, devices, options);
  ASSERT_EQ(fits.size(), 1u);
  const auto& fit = fits[0];
  EXPECT_EQ(fit.device, "mdev-13845-sata");
  EXPECT_EQ(fit.traces, 3);
  // The fitted latency was simulated, and either its error is within the tolerance or a faster
  // flush was tried with a positive error and a slower one with a negative error.
  bool below = false, above = false, within = false, tried = false;
  for (const auto& [latency, error] : fit.evaluations) {
    below = below || (latency < fit.latency_s && error > 0);
    above = above || (latency > fit.latency_s && error < 0);
    if (latency == fit.latency_s) tried = true, within = std::abs(error) < options.tolerance_pct;
  }
  EXPECT_TRUE(tried && (within || (below && above))) << fit.report;
  EXPECT_CONTAINS(devices, "flush_latency: " + fmt_us(fit.latency_s));
  EXPECT_CONTAINS(devices, "flush_latency fitted by poolsim calibrate");
  EXPECT_CONTAINS(devices, "# Device models fitted by");  // the catalogue's header kept
  // A device measured by fio keeps its measured flush: nothing to fit.
  std::vector<Trace> measured = {load_trace(kTraces + "/local-vm/disk-bp3G-t4")};
  std::string local_devices = calibrate(measured, "local-flush-test").devices_yaml;
  const std::string before = local_devices;
  EXPECT_TRUE(fit_flush_latencies(measured, kTraces + "/local-vm/profile.yaml", local_devices, options).empty());
  EXPECT_EQ(local_devices, before);
}

TEST(Calibrate, AWriteBufferFioCannotShowIsFittedOnTheTracesWriteAwait) {
  // fio's random-write jobs run with the buffer full, so a fitted device's write buffer was an
  // assumption (64 MiB). The page-writing traces' diskstats give the mean write await a flush
  // batch's burst makes: the fit simulates them and finds the size where the median log ratio of
  // simulated to measured await crosses zero. A larger buffer absorbs more of a burst, so the await
  // never rises with it; the entry's comments stay, and the tmpfs entry is not touched.
  std::vector<Trace> traces;
  for (const char* run : {"disk-bp512M-t4", "disk-bp512M-t16", "disk-bp3G-t4", "tmpfs-bp512M-t4"})
    traces.push_back(load_trace(kTraces + "/local-vm/" + run));
  auto out = calibrate(traces, "write-buffer-test");
  const std::string profile = poolsim::testing::write_temp("write-buffer-test.yaml", out.profile_yaml);
  FlushFitOptions options;
  options.duration_s = 5;
  options.jobs = 2;
  std::string devices = out.devices_yaml;
  const std::string tmpfs_before = devices.substr(devices.find("local-vm-tmpfs:"), devices.find("local-vm-virtual-disk:") - devices.find("local-vm-tmpfs:"));
  auto fits = fit_write_buffers(traces, profile, devices, options);
  ASSERT_EQ(fits.size(), 1u);
  const auto& fit = fits[0];
  EXPECT_EQ(fit.device, "local-vm-virtual-disk");
  EXPECT_EQ(fit.traces, 2);  // the 3 GiB pool writes no pages; tmpfs is another device
  auto sorted = fit.evaluations;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 1; i < sorted.size(); ++i) EXPECT_LE(sorted[i].second, sorted[i - 1].second + 1e-9) << fit.report;
  bool below = false, above = false;
  for (const auto& [bytes, ratio] : fit.evaluations) {
    below = below || (bytes < fit.bytes && ratio >= 0);
    above = above || (bytes > fit.bytes && ratio <= 0);
  }
  EXPECT_TRUE(below && above) << fit.report;
  EXPECT_CONTAINS(devices, "  write_cache: " + std::to_string(std::llround(fit.bytes / 1024)) + "KiB\n");
  EXPECT_CONTAINS(devices, "write buffer size fitted by poolsim calibrate: 64MiB (assumed) -> ");
  EXPECT_EQ(devices.find("write buffer size assumed (U)", devices.find("local-vm-virtual-disk:")), std::string::npos);
  EXPECT_CONTAINS(devices, "# read curve, IOPS measured -> fitted");  // comments kept
  EXPECT_CONTAINS(devices, tmpfs_before);
  EXPECT_NO_THROW(YAML::Load(devices));
  // A source written over several lines (a block scalar, as the catalogue's entries have) and one
  // with quotes: the whole value is replaced and the file still loads.
  std::string block = out.devices_yaml;
  const auto disk = block.find("local-vm-virtual-disk:");
  const auto source_at = block.find("  source: ", disk), source_end = block.find('\n', source_at);
  block.replace(source_at, source_end - source_at, "  source: >-\n    a \"quoted\" figure,\n    on two lines");
  ASSERT_NO_THROW(YAML::Load(block));
  fit_write_buffers(traces, profile, block, options);
  YAML::Node reloaded;
  ASSERT_NO_THROW(reloaded = YAML::Load(block)) << block;
  const std::string source = reloaded["local-vm-virtual-disk"]["source"].as<std::string>();
  EXPECT_CONTAINS(source, "a \"quoted\" figure, on two lines; write buffer size fitted by poolsim calibrate");
  EXPECT_EQ(block.find("on two lines\n"), std::string::npos);
  // Traces that write no pages have no burst to fit on.
  std::vector<Trace> cached = {load_trace(kTraces + "/local-vm/disk-bp3G-t4")};
  std::string cached_devices = calibrate(cached, "cached-test").devices_yaml;
  const std::string before = cached_devices;
  EXPECT_TRUE(fit_write_buffers(cached, profile, cached_devices, options).empty());
  EXPECT_EQ(cached_devices, before);
}

TEST(Calibrate, ADiskWhoseCompletionsInterruptOneCpuIsFittedSo) {
  // traces/local-vm's disk: one request queue, its interrupts on one vCPU (meta.yaml
  // storage.completion_cpus: 1). The fitted device says so; tmpfs (no interrupts) does not.
  std::vector<Trace> traces;
  for (const char* run : {"disk-bp512M-t1", "disk-bp3G-t1", "disk-bp512M-t4", "disk-bp3G-t4", "tmpfs-bp512M-t1", "tmpfs-bp3G-t1"})
    traces.push_back(load_trace(kTraces + "/local-vm/" + run));
  auto fit = calibrate(traces, "interrupts-test");
  auto disk = fit.devices_yaml.find("local-vm-virtual-disk:"), tmpfs = fit.devices_yaml.find("local-vm-tmpfs:");
  ASSERT_NE(disk, std::string::npos);
  ASSERT_NE(tmpfs, std::string::npos);
  auto one_core = fit.devices_yaml.find("completion_interrupts: one-core");
  ASSERT_NE(one_core, std::string::npos);
  // It belongs to the disk's entry: after the disk's name and not after the tmpfs entry's start.
  EXPECT_GT(one_core, disk);
  EXPECT_TRUE(tmpfs < disk ? one_core > disk : one_core < tmpfs);
  EXPECT_EQ(fit.devices_yaml.find("completion_interrupts", one_core + 1), std::string::npos);
}

TEST(Trace, PerfSchedBurstsArePooledOverCommands) {
  // Two commands: 100 bursts of mean 100 us, SCV 1 (E[S^2] = 20000) and 100 of mean 50 us, SCV 0
  // (E[S^2] = 2500): pooled mean 75 us, E[S^2] = 11250, SCV = 11250 / 5625 - 1 = 1.
  std::string tsv =
      "comm\twhat\tcount\tmean_us\tscv\tp50_us\tp90_us\tp99_us\tmax_us\n"
      "mariadbd\trun\t100\t100.0\t1.000\t1\t1\t1\t1\n"
      "mariadbd\tsch_delay\t100\t999.0\t9.000\t1\t1\t1\t1\n"
      "sysbench\trun\t100\t50.0\t0.000\t1\t1\t1\t1\n";
  auto b = parse_perf_sched_bursts(tsv, "perf_sched_bursts.tsv");
  EXPECT_EQ(b.count, 200u);
  EXPECT_NEAR(b.mean_us, 75.0, 1e-9);
  EXPECT_NEAR(b.scv, 1.0, 1e-9);
  // The server's own rows only (the statement CPU variability is measured from them).
  auto server = parse_perf_sched_bursts(tsv, "perf_sched_bursts.tsv", {"mariadbd", "mysqld"});
  EXPECT_EQ(server.count, 100u);
  EXPECT_NEAR(server.mean_us, 100.0, 1e-9);
  EXPECT_NEAR(server.scv, 1.0, 1e-9);
  auto e = error_of([] { parse_perf_sched_bursts("comm\twhat\tcount\tmean_us\tscv\nmariadbd\trun\tx\t1\t1\n", "b.tsv"); });
  EXPECT_CONTAINS(e, "b.tsv");
  EXPECT_CONTAINS(e, ":2");
  e = error_of([] { parse_perf_sched_bursts("comm\twhat\tcount\tmean_us\tscv\nmariadbd\trun\t10\tnan\t1\n", "n.tsv"); });
  EXPECT_CONTAINS(e, "n.tsv:2");
  e = error_of([] { parse_perf_sched_bursts("comm\twhat\tcount\tmean_us\tscv\n", "h.tsv"); });
  EXPECT_CONTAINS(e, "no 'run' rows");
}

TEST(Trace, PerfSchedBurstQuantilesAreKeptForOneCommandOnly) {
  const std::string header = "comm\twhat\tcount\tmean_us\tscv\tp50_us\tp90_us\tp99_us\tmax_us\n";
  auto one = parse_perf_sched_bursts(header + "mariadbd\trun\t100\t43.8\t9.5\t28\t81\t153\t35055\n", "q.tsv", {"mariadbd"});
  EXPECT_DOUBLE_EQ(one.p50_us, 28);
  EXPECT_DOUBLE_EQ(one.p90_us, 81);
  EXPECT_DOUBLE_EQ(one.p99_us, 153);
  // Two commands pooled: their quantiles do not pool, so there are none.
  auto two = parse_perf_sched_bursts(header + "mariadbd\trun\t100\t40\t1\t30\t80\t150\t900\n"
                                              "sysbench\trun\t100\t20\t1\t15\t40\t70\t100\n", "q.tsv");
  EXPECT_TRUE(std::isnan(two.p50_us));
  // The server's threads split (derived rows): pooled readers skip them, a reader asking for them gets them.
  const std::string split = header + "mariadbd\trun\t100\t40\t1\t30\t80\t150\t900\n"
                                     "mariadbd:connections\trun\t80\t45\t0.5\t35\t85\t140\t300\n"
                                     "mariadbd:background\trun\t20\t20\t9\t5\t30\t800\t900\n";
  EXPECT_EQ(parse_perf_sched_bursts(split, "s.tsv").count, 100u);
  auto connections = parse_perf_sched_bursts(split, "s.tsv", {"mariadbd:connections"});
  EXPECT_EQ(connections.count, 80u);
  EXPECT_DOUBLE_EQ(connections.p99_us, 140);
  // An older file without the columns: moments only.
  auto old = parse_perf_sched_bursts("comm\twhat\tcount\tmean_us\tscv\nmariadbd\trun\t10\t5\t1\n", "o.tsv");
  EXPECT_TRUE(std::isnan(old.p99_us));
  EXPECT_CONTAINS(error_of([&] { parse_perf_sched_bursts(header + "mariadbd\trun\t100\t40\t1\tx\t80\t150\t900\n", "x.tsv"); }),
                  "x.tsv:2");
  // More CPU than the host's cores had in perf's window (a mean edited 10,000 times up): the
  // diagnostic file is left out with a warning, the trace kept.
  const std::string dir = copy_trace(kTraces + "/local-vm/sched/tmpfs-bp512M-t4", "absurd-bursts");
  EXPECT_TRUE(load_trace(dir).cpu_bursts.has_value());
  edit_file(dir + "/perf_sched_bursts.tsv", [](std::string t) { return replaced(t, "mariadbd\trun\t163347\t95.7", "mariadbd\trun\t163347\t957000.0"); });
  const Trace absurd = load_trace(dir);
  EXPECT_FALSE(absurd.cpu_bursts.has_value());
  EXPECT_FALSE(absurd.server_bursts.has_value());
}

TEST(Calibrate, GammaScvFromQuantilesRecoversTheShape) {
  // Closed forms: the exponential (SCV 1) has quantiles -ln(1 - p) x mean.
  EXPECT_NEAR(gamma_scv_from_quantiles(10, 10 * std::log(2.0), 10 * std::log(10.0), 10 * std::log(100.0)), 1.0, 1e-3);
  // Erlang-2 (SCV 0.5), mean 1: quantiles solve 1 - e^(-2x)(1 + 2x) = p; p50 0.8392, p90 1.9449, p99 3.3192.
  EXPECT_NEAR(gamma_scv_from_quantiles(1, 0.83917, 1.94486, 3.31917), 0.5, 2e-3);
  // local-vm/second-host/sched/tmpfs-bp3G-t4: the moments say SCV 9.5 (bursts up to 35 ms), the
  // body's quantiles about 0.6, as on the first host (1.2 by moments there, max 5 ms).
  const double body = gamma_scv_from_quantiles(43.8, 28, 81, 153);
  EXPECT_GT(body, 0.4);
  EXPECT_LT(body, 0.8);
  EXPECT_TRUE(std::isnan(gamma_scv_from_quantiles(43.8, std::nan(""), 81, 153)));
  EXPECT_TRUE(std::isnan(gamma_scv_from_quantiles(0, 28, 81, 153)));
}

TEST(Trace, ABrokenBurstFileCostsOnlyItsComparison) {
  // perf_sched_bursts.tsv is diagnostic: a header-only one (no command ran 100 times) leaves the
  // trace valid, without CPU bursts; a good one gives bursts per transaction over perf's window.
  std::string dir = copy_trace(kTraces + "/local-vm/sched/disk-bp3G-t4", "bursts-broken");
  auto good = load_trace(dir);
  ASSERT_TRUE(good.cpu_bursts.has_value());
  ASSERT_TRUE(good.bursts_per_txn().has_value());
  EXPECT_NEAR(*good.bursts_per_txn(), good.cpu_bursts->count / (10.0 * good.sysbench.tps), 1e-9);
  {
    std::ofstream f(dir + "/perf_sched_bursts.tsv");
    f << "comm\twhat\tcount\tmean_us\tscv\tp50_us\tp90_us\tp99_us\tmax_us\n";
  }
  auto broken = load_trace(dir);
  EXPECT_FALSE(broken.cpu_bursts.has_value());
  EXPECT_FALSE(broken.bursts_per_txn().has_value());
  EXPECT_NEAR(broken.sysbench.tps, good.sysbench.tps, 1e-9);
}

TEST(Trace, ATrailingSlashNamesTheSameTrace) {
  // A shell's completion adds the slash: the trace keeps its name and its set (the device's name).
  auto plain = load_trace(kTraces + "/local-vm/disk-bp1G-t4");
  auto slashed = load_trace(kTraces + "/local-vm/disk-bp1G-t4/");
  EXPECT_EQ(slashed.dir, plain.dir);
  std::string yaml = scenario_for_trace(slashed, kTraces + "/local-vm/profile.yaml", {}, 5);
  EXPECT_CONTAINS(yaml, "name: disk-bp1G-t4");
  EXPECT_CONTAINS(yaml, "local-vm-virtual-disk");
}

TEST(Trace, PerfSchedThreadsSplitTheConnectionsFromTheBackground) {
  // Two connections (the two server tasks that ran longest) and the io_uring worker of one of them
  // against the background (page cleaner, its io_uring worker, a purge thread); another process's
  // tasks and <idle> are not the server's.
  std::string tsv =
      "task\tswitched_in\twait_ms\tsch_delay_ms\trun_ms\tafter_idle\tafter_idle_sch_delay_ms\n"
      "mariadbd[101/100]\t10\t1\t1\t400.0\t0\t0\n"
      "mariadbd[102/100]\t10\t1\t1\t300.0\t0\t0\n"
      "iou-wrk-102[110/100]\t10\t1\t1\t5.0\t0\t0\n"
      "mariadbd[103/100]\t10\t1\t1\t50.0\t0\t0\n"
      "iou-wrk-103[111/100]\t10\t1\t1\t20.0\t0\t0\n"
      "mariadbd[104/100]\t10\t1\t1\t7.0\t0\t0\n"
      "sysbench[201/200]\t10\t1\t1\t90.0\t0\t0\n"
      "<idle>\t10\t1\t1\t1000.0\t0\t0\n";
  auto s = parse_perf_sched_threads(tsv, "t.tsv", 2);
  EXPECT_NEAR(s.connection_ms, 705.0, 1e-9);
  EXPECT_NEAR(s.background_ms, 77.0, 1e-9);
  EXPECT_EQ(s.tasks, 6);
  EXPECT_CONTAINS(error_of([] { parse_perf_sched_threads("task\trun_ms\nmariadbd[1/1]\tx\n", "r.tsv", 1); }), "r.tsv:2");
  EXPECT_CONTAINS(error_of([] { parse_perf_sched_threads("task\trun_ms\nsysbench[1/1]\t3\n", "s.tsv", 1); }), "no mariadbd");
  EXPECT_NEAR(s.background_share(), 77.0 / 782.0, 1e-12);
  EXPECT_EQ(ServerThreadsCpu{}.background_share(), 0.0);
  // A committed capture: 4 connections, the background threads a small share (tmpfs-bp1G-t4: 11.6 %).
  auto t = load_trace(kTraces + "/local-vm/sched/tmpfs-bp1G-t4");
  ASSERT_TRUE(t.server_threads.has_value());
  EXPECT_NEAR(t.server_threads->background_share(), 0.116, 0.005);
}

TEST(Calibrate, BackgroundTracesTakeTheirCpuOffThePath) {
  // Two background traces of the disk (their probes removed: reference-core seconds as measured)
  // whose per-thread files give the background threads the share of the server's CPU that makes
  // share x the trace's CPU per transaction = a + b x (pages written per txn, data and doublewrite),
  // with a = 40 us and b = 30 us: the fit recovers both, writes a as the profile's
  // background_per_txn and b as the disk's host_cpu_per_write; the tmpfs device, which no background
  // trace measured, keeps its page writes in the per-IO column (no host_cpu_per_write).
  const double a = 40e-6, b = 30e-6;
  std::vector<Trace> background;
  std::filesystem::create_directories(temp_path("bg-fit/local-vm/sched"));
  for (const char* name : {"disk-bp3G-t4", "disk-bp1G-t4"}) {
    std::string dir = copy_trace(kTraces + "/local-vm/sched/" + name, std::string("bg-fit/local-vm/sched/") + name);
    remove_cpu_probe(dir);
    auto t = load_trace(dir);
    double w = t.per_txn("Innodb_pages_written").value_or(0) + t.per_txn("Innodb_dblwr_pages_written").value_or(0);
    double cpu = t.meta["capture"]["mariadbd_cpu_pct"].as<double>() / 100 * 2 / t.sysbench.tps;
    double share = (a + b * w) / cpu;  // of 1000 ms of server run time
    ASSERT_LT(share, 0.5);
    std::ofstream f(dir + "/perf_sched_timehist.tsv");
    f << "task\tswitched_in\twait_ms\tsch_delay_ms\trun_ms\tafter_idle\tafter_idle_sch_delay_ms\n" << std::setprecision(15);
    for (int c = 11; c <= 14; ++c) f << "mariadbd[" << c << "/10]\t1\t1\t1\t" << 250 * (1 - share) << "\t0\t0\n";  // 4 connections
    for (int g = 15; g <= 19; ++g) f << "mariadbd[" << g << "/10]\t1\t1\t1\t" << 200 * share << "\t0\t0\n";        // background
    f.close();
    background.push_back(load_trace(dir));
  }
  std::vector<Trace> traces;
  for (const auto& name : local_vm_fit_traces()) traces.push_back(load_trace(kTraces + "/local-vm/" + name));
  auto plain = calibrate(traces, "plain");
  auto split = calibrate(traces, "split", background);
  EXPECT_CONTAINS(split.profile_yaml, "background_per_txn: 40us");
  EXPECT_CONTAINS(split.profile_yaml, "background_traces: \"disk-bp3G-t4 disk-bp1G-t4\"");
  EXPECT_CONTAINS(split.report, "b[local-vm-virtual-disk] = 30us");
  EXPECT_EQ(plain.devices_yaml.find("host_cpu_per_write"), std::string::npos);
  std::string pp = temp_path("bg-fit/plain.yaml"), sp = temp_path("bg-fit/split.yaml");
  std::ofstream(pp) << plain.profile_yaml;
  std::ofstream(sp) << split.profile_yaml;
  auto rp = load_profile(pp), rs = load_profile(sp);
  EXPECT_NEAR(rs.background_cpu_per_txn_s, a, 1e-9);
  EXPECT_EQ(rp.background_cpu_per_txn_s, 0.0);
  EXPECT_CONTAINS(split.report, "IO column counts page reads only");
  std::string devices = temp_path("bg-fit/split-devices.yaml");
  std::ofstream(devices) << split.devices_yaml;
  auto catalogue = load_device_catalogue({devices});
  EXPECT_NEAR(catalogue.at("local-vm-virtual-disk").host_cpu_per_write_s, b, 1e-9);
  EXPECT_GT(catalogue.at("local-vm-virtual-disk").host_cpu_per_io_s, 0.0);
  EXPECT_LT(catalogue.at("local-vm-tmpfs").host_cpu_per_write_s, 0.0);  // not measured: host_cpu_per_io applies
  // A background trace without per-thread CPU, or too few traces for the terms, is an error naming them.
  auto e = error_of([&] { calibrate(traces, "x", {load_trace(kTraces + "/local-vm/disk-bp1G-t4")}); });
  EXPECT_CONTAINS(e, "disk-bp1G-t4");
  EXPECT_CONTAINS(e, "perf_sched_timehist.tsv");
  e = error_of([&] { calibrate(traces, "x", {background[1]}); });
  EXPECT_CONTAINS(e, "only 1 traces");
}

TEST(Calibrate, ATracesScenarioRepeatsTheCapturesWarmUpAndFlushingSettings) {
  // capture.py warms the pool for capture.warmup_s at capture.warmup_threads before measuring, with
  // MariaDB's flushing thresholds (variables.tsv: lwm 0, max 90 %, adaptive lwm 10 %): the trace's
  // scenario does the same, where the scenario's own defaults (MySQL's) would flush from 10 % dirty.
  const std::string profile = kTraces + "/local-vm/profile.yaml";
  auto y = scenario_for_trace(load_trace(kTraces + "/local-vm/disk-bp1G-t4"), profile, {}, 5);
  EXPECT_CONTAINS(y, "warmup: 30s");
  EXPECT_CONTAINS(y, "warmup_threads: 16");
  EXPECT_CONTAINS(y, "max_dirty_pages_pct_lwm: 0%");
  EXPECT_CONTAINS(y, "max_dirty_pages_pct: 90%");
  EXPECT_CONTAINS(y, "adaptive_flushing_lwm: 10%");
  // A trace without variables.tsv or capture figures takes its version's flushing defaults (MariaDB
  // 10.11: 90 %, lwm 0; the scenario's own, MySQL 8.0's, would be 90 % and 10 %) and a 2 s warm-up.
  std::string dir = copy_trace(kTraces + "/local-vm/disk-bp1G-t4", "no-variables");
  std::filesystem::remove(dir + "/variables.tsv");
  YAML::Node meta = YAML::LoadFile(dir + "/meta.yaml");
  meta["capture"].remove("warmup_s");
  meta["capture"].remove("warmup_threads");
  std::ofstream(dir + "/meta.yaml") << meta << "\n";
  auto plain = scenario_for_trace(load_trace(dir), profile, {}, 5);
  EXPECT_CONTAINS(plain, "warmup: 2s");
  EXPECT_EQ(plain.find("warmup_threads"), std::string::npos);
  EXPECT_CONTAINS(plain, "max_dirty_pages_pct_lwm: 0%");
  EXPECT_CONTAINS(plain, "max_dirty_pages_pct: 90%");
  EXPECT_EQ(plain.find("adaptive_flushing_lwm"), std::string::npos);
}

TEST(Calibrate, RedoIsFittedPerRowChangeAndPerPageSplit) {
  // The tmpfs copy of the data set was fresh when these ran (its packed index k split 0.46 times per
  // transaction at 512M-t1, 0.08-0.09 by the 3G runs), and each split logs about a page: the fit
  // separates that from the redo per row change, and a trace's scenario carries its own splits.
  const std::string set = kTraces + "/local-vm/";
  const std::string traces = set + "tmpfs-bp512M-t1 " + set + "tmpfs-bp512M-t4 " + set + "tmpfs-bp3G-t1 " + set + "tmpfs-bp3G-t4";
  const std::string out = temp_path("split-redo.yaml");
  auto c = run_cli("calibrate " + traces + " -o " + out);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_CONTAINS(c.err, "B per split");
  auto profile = load_profile(out);
  EXPECT_GT(profile.redo_bytes_per_page_split, 14000.0);  // about a 16 KiB page
  EXPECT_LT(profile.redo_bytes_per_page_split, 19000.0);
  EXPECT_GT(profile.redo_bytes_per_row_change, 200.0);
  EXPECT_LT(profile.redo_bytes_per_row_change, 400.0);
  EXPECT_GT(profile.page_splits_per_row_change, 0.02);  // the median of the four: between the 3G and the 512M runs
  EXPECT_LT(profile.page_splits_per_row_change, 0.07);
  auto y = scenario_for_trace(load_trace(set + "tmpfs-bp512M-t1"), out, {}, 5);
  EXPECT_CONTAINS(y, "page_splits_per_row_change: 0.11");  // 0.46 splits per transaction of 4 row changes
  // Traces whose server does not count splits: the mean redo per row change, and no split keys.
  std::vector<std::string> copies;
  for (const char* name : {"tmpfs-bp512M-t1", "tmpfs-bp3G-t1", "tmpfs-bp3G-t4"}) {
    std::string dir = copy_trace(set + name, std::string("no-splits-") + name);
    for (const char* file : {"/status_before.tsv", "/status_after.tsv"}) {
      std::string text = read_file(dir + file), kept;
      std::istringstream lines(text);
      for (std::string line; std::getline(lines, line);)
        if (line.rfind("Innodb_buffer_pool_pages_split\t", 0) != 0) kept += line + "\n";
      std::ofstream(dir + file) << kept;
    }
    copies.push_back(dir);
  }
  const std::string plain_out = temp_path("no-split-redo.yaml");
  auto plain = run_cli("calibrate " + copies[0] + " " + copies[1] + " " + copies[2] + " -o " + plain_out);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(read_file(plain_out).find("redo_bytes_per_page_split"), std::string::npos);
  auto plain_profile = load_profile(plain_out);
  EXPECT_DOUBLE_EQ(plain_profile.redo_bytes_per_page_split, 0.0);
  EXPECT_GT(plain_profile.redo_bytes_per_row_change, 500.0);  // the splits folded in: (8,860 + 2,784 + 2,599) / 3 / 4
  EXPECT_EQ(scenario_for_trace(load_trace(copies[0]), plain_out, {}, 5).find("page_splits_per_row_change"), std::string::npos);
}

TEST(Calibrate, TheZeroLowWaterMarkFollowsTheServersVersion) {
  // MDEV-24537 (MariaDB 10.5.9): lwm 0 means "refer to innodb_max_dirty_pages_pct"; MariaDB 10.3
  // (MDEV-13845's server) and MySQL flush adaptively.
  std::vector<Trace> local;
  for (const auto& name : local_vm_fit_traces()) local.push_back(load_trace(kTraces + "/local-vm/" + name));
  EXPECT_CONTAINS(calibrate(local, "p").profile_yaml, "zero_lwm_flushing: at_max_dirty");
  std::vector<Trace> mdev = {load_trace(kTraces + "/mdev-13845/bp16G-rw22-t32"), load_trace(kTraces + "/mdev-13845/bp16G-rw22-t64")};
  EXPECT_CONTAINS(calibrate(mdev, "m").profile_yaml, "zero_lwm_flushing: adaptive");
}

TEST(Validate, EachTraceCarriesItsOwnTpsInterval) {
  // measured.tps_ci95 is the Student-t 95 % half-width of the mean of the log's interval lines.
  auto t = load_trace(kTraces + "/local-vm/tmpfs-bp3G-t16");
  const auto& iv = t.sysbench.intervals;
  ASSERT_GE(iv.size(), 3u);
  double mean = 0, ss = 0;
  for (const auto& i : iv) mean += i.tps / iv.size();
  for (const auto& i : iv) ss += (i.tps - mean) * (i.tps - mean);
  double expected = student_t_quantile(0.95, static_cast<int>(iv.size()) - 1) * std::sqrt(ss / (iv.size() - 1) / iv.size());
  ValidationOptions o;
  o.profile = kTraces + "/local-vm/profile.yaml";
  o.duration_s = 2;
  auto doc = validate_traces({kTraces + "/local-vm/tmpfs-bp3G-t16"}, o);
  ASSERT_TRUE(doc["rows"][0]["measured"].contains("tps_ci95"));
  EXPECT_NEAR(doc["rows"][0]["measured"]["tps_ci95"].get<double>(), expected, 1e-9);
  EXPECT_TRUE(doc["summary"].contains("measured_tps_ci95_pct"));
  EXPECT_CONTAINS(render_validation_table(doc), "measured TPS, 95 % interval");
  // The error's own interval: the two runs' relative half-widths added in quadrature, in points of
  // error (delta method: error = 100 (p / m - 1), its half-width 100 p / m sqrt(rm^2 + rp^2)).
  const auto& row = doc["rows"][0];
  const double m = row["measured"]["tps"].get<double>(), p = row["predicted"]["tps"].get<double>();
  const double rm = row["measured"]["tps_ci95"].get<double>() / m, rp = row["predicted"]["tps_ci95"].get<double>() / p;
  ASSERT_TRUE(row.contains("error_ci95_pct"));
  EXPECT_NEAR(row["error_ci95_pct"]["tps"].get<double>(), 100 * p / m * std::sqrt(rm * rm + rp * rp), 1e-9);
  const bool beyond = std::fabs(row["error_pct"]["tps"].get<double>()) > row["error_ci95_pct"]["tps"].get<double>();
  EXPECT_EQ(doc["summary"]["tps_errors_beyond_ci95"]["rows"].get<int>(), 1);
  EXPECT_EQ(doc["summary"]["tps_errors_beyond_ci95"]["beyond"].get<int>(), beyond ? 1 : 0);
  const std::string table = render_validation_table(doc);
  EXPECT_CONTAINS(table, "TPS errors beyond the 95 % interval");
  EXPECT_CONTAINS(table, "err%     +-");  // the error's interval beside the TPS error
}

TEST(Validate, FreePageWaitsAreComparedAsInnodbCountsThem) {
  // Innodb_buffer_pool_wait_free counts each attempt of a thread that found no free and no clean
  // page near the tail (MariaDB 10.3: a single-page flush each); the model counts its attempts the
  // same way. An IO-bound MDEV-13845 run at 64 threads made ~10 per transaction.
  ValidationOptions o;
  o.profile = kTraces + "/mdev-13845/profile.yaml";
  o.duration_s = 2;
  const std::string dir = kTraces + "/mdev-13845/bp4G-rw80-t64";
  auto doc = validate_traces({dir}, o);
  const auto& waits = doc["rows"][0]["counters_per_txn"]["free_page_waits"];
  EXPECT_NEAR(waits["measured"].get<double>(), *load_trace(dir).per_txn("Innodb_buffer_pool_wait_free"), 1e-12);
  EXPECT_GT(waits["measured"].get<double>(), 0.5);
  EXPECT_GT(waits["predicted"].get<double>(), 0.0);
  // A cached run has none, in the server and in the model.
  auto cached = validate_traces({kTraces + "/mdev-13845/bp16G-rw50-t8"}, o);
  EXPECT_EQ(cached["rows"][0]["counters_per_txn"]["free_page_waits"]["predicted"].get<double>(), 0.0);
}

TEST(Validate, RemeasuredDevicesTakeTheTracesFioAndKeepTheFittedHostCpu) {
  // A host that moved: the trace's own fio jobs give the device's measured figures, the profile's
  // entry its fitted host CPU. Here a disk trace carries the tmpfs fio jobs.
  std::string dir = copy_trace(kTraces + "/local-vm/disk-bp1G-t4", "remeasured");
  std::filesystem::remove_all(dir + "/fio");
  std::filesystem::copy(kTraces + "/local-vm/tmpfs-bp1G-t4/fio", dir + "/fio");
  for (const auto& job : std::filesystem::directory_iterator(dir + "/fio"))  // a disk's jobs run direct
    edit_file(job.path().string(), [](std::string t) { return replaced(t, "\"direct\" : \"0\"", "\"direct\" : \"1\""); });
  const std::string devices = kTraces + "/local-vm/profile-devices.yaml";
  YAML::Node fitted = YAML::LoadFile(devices)["local-vm-virtual-disk"];
  YAML::Node tmpfs = YAML::LoadFile(devices)["local-vm-tmpfs"];
  YAML::Node doc = YAML::Load(remeasured_devices_yaml({load_trace(dir)}, devices));
  YAML::Node entry = doc["local-vm-virtual-disk"];
  ASSERT_TRUE(entry);
  EXPECT_EQ(entry["read_latency"].Scalar(), tmpfs["read_latency"].Scalar());
  EXPECT_EQ(entry["read_iops"].Scalar(), tmpfs["read_iops"].Scalar());
  EXPECT_EQ(entry["host_cpu_per_io"].Scalar(), fitted["host_cpu_per_io"].Scalar());
  EXPECT_EQ(entry["host_cpu_per_write"].Scalar(), fitted["host_cpu_per_write"].Scalar());
  EXPECT_EQ(entry["flush_blocks_io"].Scalar(), "true");  // still the virtual disk's interface
  // A device the caller already has (an unseen one) is left out.
  EXPECT_EQ(remeasured_devices_yaml({load_trace(dir)}, devices, {"local-vm-virtual-disk"}), "");
  // validate --remeasured-devices end to end: the re-measured entry replaces the profile's of the
  // same name (a catalogue defines a device once), and the prediction moves with it.
  ValidationOptions o;
  o.profile = kTraces + "/local-vm/profile.yaml";
  o.duration_s = 2;
  auto as_fitted = validate_traces({dir}, o);
  o.remeasured_devices = true;
  auto remeasured = validate_traces({dir}, o);
  EXPECT_NE(as_fitted["rows"][0]["predicted"]["tps"], remeasured["rows"][0]["predicted"]["tps"]);
}

TEST(Validate, RemeasuredDevicesNameABadOrMissingCatalogue) {
  // The fitted catalogue beside the profile is an input like any other: a syntax error names its
  // file and line, a missing file names the file.
  std::vector<Trace> traces{load_trace(kTraces + "/local-vm/disk-bp1G-t4")};
  const std::string bad = write_temp("bad-devices.yaml", "local-vm-virtual-disk:\n  read_latency: [74us\n");
  std::string e = error_of([&] { remeasured_devices_yaml(traces, bad); });
  EXPECT_CONTAINS(e, "bad-devices.yaml:");
  const std::string missing = temp_path("no-such-devices.yaml");
  e = error_of([&] { remeasured_devices_yaml(traces, missing); });
  EXPECT_CONTAINS(e, "no-such-devices.yaml");
}

TEST(Calibrate, TheStatementTailComesFromTheConnectionThreadsLongBursts) {
  // traces/local-vm/sched-threads: three cached runs whose perf_sched_bursts.tsv split the server's
  // threads and count the bursts over 1 ms. The tail's share is the mean over the runs of the
  // connection threads' CPU in them (520.4 / 12,098.0, 534.1 / 13,652.1, 614.5 / 13,749.9 ms of run
  // time: 4.23 %), its mean their total over their count (1,669.0 ms / 441 = 3.78 ms); the body's SCV
  // is the gamma's through the connection rows' quantiles, not the server row's.
  std::vector<Trace> traces, background;
  for (const auto& name : local_vm_fit_traces()) traces.push_back(load_trace(kTraces + "/local-vm/" + name));
  for (const char* name : {"disk-bp3G-t4", "tmpfs-bp3G-t4", "tmpfs-bp3G-t16"})
    background.push_back(load_trace(kTraces + "/local-vm/sched-threads/" + name));
  ASSERT_TRUE(background[0].connection_bursts.has_value());
  EXPECT_EQ(background[0].connection_bursts->long_count, 149);
  auto fit = calibrate(traces, "tail", background);
  EXPECT_CONTAINS(fit.profile_yaml, "connection threads' CPU bursts in 3 cached runs");
  std::string path = temp_path("tail-fit.yaml");
  std::ofstream(path) << fit.profile_yaml;
  auto p = load_profile(path);
  EXPECT_NEAR(p.statement_cpu_tail_share, (520.4 / 12098.0 + 534.1 / 13652.1 + 614.5 / 13749.9) / 3, 0.002);
  EXPECT_NEAR(p.statement_cpu_tail_mean_s, 1669.0e-3 / 441, 0.01e-3);
  EXPECT_GT(p.statement_cpu_scv, 0.3);
  EXPECT_LT(p.statement_cpu_scv, 0.6);
  // Background runs without the split rows (the committed fit sets') give no tail.
  std::vector<Trace> old_runs;
  for (const char* name : {"disk-bp3G-t4", "tmpfs-bp3G-t4"}) old_runs.push_back(load_trace(kTraces + "/local-vm/sched/" + name));
  EXPECT_EQ(calibrate(traces, "no-tail", old_runs).profile_yaml.find("statement_cpu_tail"), std::string::npos);
}

TEST(Trace, ANegativeInnodbCounterIsRefusedAtItsLine) {
  // The difference of the snapshots would add it: 422,632 - (-199,806) page reads.
  auto e = error_of([] { parse_status_tsv("Uptime\t10\nInnodb_buffer_pool_reads\t-199806\n", "s.tsv"); });
  EXPECT_CONTAINS(e, "s.tsv:2:26: key 'Innodb_buffer_pool_reads'");
  EXPECT_CONTAINS(e, "negative");
}

TEST(Trace, FioBlockSizesAreReadWholeAndOneSizeMakesTheReadCurve) {
  const std::string from = kTraces + "/local-vm/disk-bp1G-t4";
  const std::string job = read_file(from + "/fio/randread-16k-qd1.json");
  auto with_bs = [&](const std::string& bs) {
    std::string text = job;
    const std::string was = "\"bs\" : \"16k\"";
    text.replace(text.find(was), was.size(), "\"bs\" : \"" + bs + "\"");
    return text;
  };
  EXPECT_EQ(parse_fio_json(with_bs("16KiB"), "fio/a.json").block_bytes, 16384.0);
  EXPECT_EQ(parse_fio_json(with_bs("1g"), "fio/a.json").block_bytes, 1073741824.0);  // was read as 1 byte
  for (const char* bad : {"inf", "4k-16k", "4k,16k", "16q", "0"}) {
    auto e = error_of([&] { parse_fio_json(with_bs(bad), "fio/a.json"); });
    EXPECT_CONTAINS(e, "fio/a.json: key 'job options.bs'");
  }
  // Two block sizes among the read jobs: the last one's size became every job's reference block.
  std::string dir = copy_trace(from, "fio-two-sizes");
  std::ofstream(dir + "/fio/randread-16k-qd8.json") << with_bs("4k");
  const Trace t = load_trace(dir);
  auto e = error_of([&] { device_yaml_from_fio(t, 0); });
  EXPECT_CONTAINS(e, "randread-16k-q");
  EXPECT_CONTAINS(e, "two block sizes");
}

TEST(Trace, TheSetAndTheTraceAreNamedTheSameHoweverThePathIsTyped) {
  // The set was the parent of the path as typed: "bp" alone had none, "./bp" had ".".
  const std::string dir = kTraces + "/mdev-13845/bp4G-rw50-t8";
  const std::string expected = device_name_for(load_trace(dir));
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(kTraces + "/mdev-13845");
  std::vector<std::string> names, traces;
  for (const char* typed : {"bp4G-rw50-t8", "./bp4G-rw50-t8", "bp4G-rw50-t8/", "../mdev-13845/bp4G-rw50-t8/."}) {
    const Trace t = load_trace(typed);
    names.push_back(device_name_for(t));
    traces.push_back(std::filesystem::path(t.dir).filename().string());
  }
  std::filesystem::current_path(cwd);
  for (size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(names[i], expected) << i;
    EXPECT_EQ(traces[i], "bp4G-rw50-t8") << i;
  }
}

TEST(Trace, CaptureFiguresOutOfTheirRangeAreRefusedAtTheirLine) {
  const std::string from = kTraces + "/local-vm/disk-bp1G-t4";
  const std::string cases[][2] = {{"  cpu_probe_eps_before: ", "-3201"}, {"  cpu_probe_eps_before: ", "0"},
                                  {"  cpu_probe_eps_before: ", "fast"},  {"  cpu_probe_eps_after: ", "0x10"},
                                  {"  steal_pct: ", "-500"},            {"  other_cpu_cores: ", "3"}};
  int i = 0;
  for (const auto& [prefix, value] : cases) {
    std::string dir = copy_trace(from, "capture-range-" + std::to_string(i++));
    const int line = replace_line(dir + "/meta.yaml", prefix, prefix + value);
    auto e = error_of([&] { load_trace(dir); });
    const std::string key = prefix.substr(2, prefix.size() - 4);
    EXPECT_CONTAINS(e, "meta.yaml:" + std::to_string(line) + ":");
    EXPECT_CONTAINS(e, "key 'capture." + key + "'");
  }
}

TEST(Trace, ALogWithTheNinetyNinthPercentileOnlySaysSo) {
  std::string dir = copy_trace(kTraces + "/local-vm/disk-bp1G-t4", "p99-only");
  const std::string log = read_file(dir + "/sysbench.log");
  const std::string p95 = "95th percentile:";
  ASSERT_NE(log.find(p95), std::string::npos);
  std::string edited = log;
  edited.replace(edited.find(p95), p95.size(), "99th percentile:");
  std::ofstream(dir + "/sysbench.log") << edited;
  auto e = error_of([&] { load_trace(dir); });
  EXPECT_CONTAINS(e, "99th percentile only");
}

TEST(Calibrate, AFitWithFewerTracesThanTermsSaysSo) {
  // One IO-bound trace for the statements, its device's per-IO CPU, the threads and the wake-ups: the
  // fit put all the CPU on the IO and blamed the counters.
  auto e = error_of([] { calibrate({load_trace(kTraces + "/mdev-13845/bp4G-rw50-t8")}, "one"); });
  EXPECT_CONTAINS(e, "key 'cpu.statement'");
  EXPECT_CONTAINS(e, "1 trace for");
  EXPECT_CONTAINS(e, "give more traces");
}

// Review (session 41): a fit its traces do not determine printed its uncertainties as +- 0.
TEST(Calibrate, AFitItsTracesDoNotDetermineSaysSoInsteadOfPlusMinusZero) {
  auto one = calibrate({load_trace(kTraces + "/local-vm/tmpfs-bp3G-t16")}, "one");
  EXPECT_EQ(one.report.find("+- 0us"), std::string::npos) << one.report;
  EXPECT_CONTAINS(one.report, "(not determined by the traces)");
  EXPECT_CONTAINS(one.report, "the traces do not determine these terms");
  EXPECT_CONTAINS(one.profile_yaml, "S_us: \"");
  EXPECT_EQ(one.profile_yaml.find("+- 0\""), std::string::npos) << one.profile_yaml;
  // The committed fit set determines its terms: uncertainties as numbers, no such line.
  std::vector<Trace> traces;
  for (const auto& n : local_vm_fit_traces()) traces.push_back(load_trace(kTraces + "/local-vm/" + n));
  auto fit = calibrate(traces, "local-vm");
  EXPECT_EQ(fit.report.find("do not determine"), std::string::npos) << fit.report;
  EXPECT_CONTAINS(fit.report, "u = ");
}

// Review (session 41): costs below 0 or past a double were written to the profile, which validate then refused.
TEST(Calibrate, AFitThatWouldWriteACostBelowZeroOrPastADoubleIsRefused) {
  // sysbench's share is a percentage.
  auto set_sysbench_share = [](const std::string& d, double pct) {
    YAML::Node meta = YAML::LoadFile(d + "/meta.yaml");
    meta["capture"]["sysbench_cpu_pct"] = pct;
    std::ofstream(d + "/meta.yaml") << meta << "\n";
  };
  std::string dir = copy_trace(kTraces + "/local-vm/disk-bp3G-t4", "sysbench-share");
  set_sysbench_share(dir, -40);
  EXPECT_CONTAINS(error_of([&] { load_trace(dir); }), "key 'capture.sysbench_cpu_pct': expected sysbench's share of the host's CPUs in %, 0 to 100");
  // Shares that grow steeply with the threads past the cores would fit the client's CPU per statement below 0.
  std::vector<Trace> traces;
  for (const char* name : {"disk-bp3G-t4", "disk-bp3G-t16", "disk-bp3G-t64"}) {
    std::string d = copy_trace(kTraces + "/local-vm/" + name, std::string("client-share/local-vm/") + name);
    set_sysbench_share(d, std::string(name) == "disk-bp3G-t4" ? 1 : std::string(name) == "disk-bp3G-t16" ? 17 : 60);
    traces.push_back(load_trace(d));
  }
  EXPECT_CONTAINS(error_of([&] { calibrate(traces, "neg"); }), "key 'capture.sysbench_cpu_pct': the client's CPU per statement fits below 0");
  // The transactions the status snapshots span divide every counter.
  dir = copy_trace(kTraces + "/local-vm/tmpfs-bp3G-t16", "status-transactions");
  std::ofstream(dir + "/meta.yaml", std::ios::app) << "status: {transactions: 0}\n";
  EXPECT_CONTAINS(error_of([&] { load_trace(dir); }), "key 'status.transactions': expected the transactions the status snapshots span");
}

// Review (session 41): the profile's product and flushing policies came from whichever trace was first.
TEST(Calibrate, TracesOfAnotherServerInOneFitAreRefused) {
  const auto traces = edited_tmpfs_set("two-servers", [](const std::string& d, const std::string& name) {
    if (name == "tmpfs-bp3G-t16") {
      replace_in_meta(d, "product: mariadb", "product: mysql");
      replace_in_meta(d, "version: \"10.11", "version: \"8.0");
      edit_file(d + "/variables.tsv", [](std::string t) { return replaced(t, "version\t10.11.19-MariaDB-0+deb12u1", "version\t8.0.19"); });
    }
  });
  const auto e = error_of([&] { calibrate(traces, "two"); });
  EXPECT_CONTAINS(e, "tmpfs-bp3G-t16/meta.yaml: key 'engine': this trace's server is mysql 8.0");
  EXPECT_CONTAINS(e, "one profile is one server");
}

// A helper's finding (session 47): a trace named for the fit without a CPU figure (its iostat.txt
// gone) among traces with one was left out of the fit without a word.
TEST(Calibrate, ATraceWithoutACpuFigureAmongOthersIsRefused) {
  std::vector<Trace> traces;
  for (const char* name : {"bp16G-rw50-t16", "bp16G-rw50-t64", "bp16G-ro-t32"}) {
    const std::string dir = copy_trace(kTraces + "/mdev-13845/" + name, std::string("cpu-less/") + name);
    if (std::string(name) == "bp16G-rw50-t16") std::filesystem::remove(dir + "/iostat.txt");
    traces.push_back(load_trace(dir));
  }
  const auto e = error_of([&] { calibrate(traces, "cpu-less"); });
  EXPECT_CONTAINS(e, "bp16G-rw50-t16/meta.yaml: key 'capture.mariadbd_cpu_pct': this trace records neither the server's CPU use");
}

// Review (session 41): a trace without busy_pct beside traces with it counted as a host with no idle core.
TEST(Calibrate, ATraceWithoutTheHostsBusyShareAmongOthersWithItIsRefused) {
  const auto traces = edited_tmpfs_set("no-busy", [](const std::string& d, const std::string& name) {
    if (name == "tmpfs-bp3G-t1") {
      YAML::Node meta = YAML::LoadFile(d + "/meta.yaml");
      meta["capture"].remove("busy_pct");
      std::ofstream(d + "/meta.yaml") << meta << "\n";
    }
  });
  EXPECT_CONTAINS(error_of([&] { calibrate(traces, "no-busy"); }), "tmpfs-bp3G-t1/meta.yaml: key 'capture.busy_pct'");
}

// Review (session 41): a capture figure that is not a number gave yaml-cpp's "bad conversion" with no
// file or key; a profile's bad reference core speed was blamed on the trace's generated scenario.
TEST(Calibrate, CaptureFiguresAndTheReferenceCoreAreNumbersCheckedWhereTheyAreWritten) {
  std::string dir = copy_trace(kTraces + "/local-vm/disk-bp3G-t4", "warmup-threads-text");
  YAML::Node meta = YAML::LoadFile(dir + "/meta.yaml");
  meta["capture"]["warmup_threads"] = "abc";
  std::ofstream(dir + "/meta.yaml") << meta << "\n";
  const std::string profile = kTraces + "/local-vm/profile.yaml";
  ValidationOptions options;
  options.profile = profile;
  const auto text_figure = error_of([&] { validate_traces({dir}, options); });
  EXPECT_CONTAINS(text_figure, "meta.yaml:");
  EXPECT_CONTAINS(text_figure, "key 'capture.warmup_threads': expected a number, got 'abc'");
  std::string text = poolsim::testing::read_file(profile);
  const auto at = text.find("cpu_probe_eps: ");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, text.find('\n', at) - at, "cpu_probe_eps: -3000");
  const std::string bad = write_temp("bad-reference-core.yaml", text);
  options.profile = bad;
  const auto e = error_of([&] { validate_traces({kTraces + "/local-vm/disk-bp3G-t4"}, options); });
  EXPECT_CONTAINS(e, "bad-reference-core.yaml:");
  EXPECT_CONTAINS(e, "key 'cpu_probe_eps': expected the reference core's sysbench cpu events per second, a number above 0, got '-3000'");
}

// Review (session 41): traces that record the server's CPU but not sysbench's fitted no client CPU
// (0) while the profile's source said it came "from sysbench's CPU".
TEST(Calibrate, AClientCpuNoTraceMeasuredIsSaidToBeUnmeasured) {
  const auto traces = edited_tmpfs_set("no-client-cpu", [](const std::string& d, const std::string&) {
    YAML::Node meta = YAML::LoadFile(d + "/meta.yaml");
    meta["capture"].remove("sysbench_cpu_pct");
    std::ofstream(d + "/meta.yaml") << meta << "\n";
  });
  auto fit = calibrate(traces, "no-client");
  EXPECT_EQ(fit.profile_yaml.find("client CPU from sysbench's CPU"), std::string::npos) << fit.profile_yaml;
  EXPECT_CONTAINS(fit.profile_yaml, "client CPU not measured (no trace records capture.sysbench_cpu_pct)");
  EXPECT_CONTAINS(fit.profile_yaml, "client_statement: 0us  # not measured");
  // With sysbench's CPU recorded, the source says where the client's cost came from.
  std::vector<Trace> measured;
  for (const char* name : {"tmpfs-bp3G-t1", "tmpfs-bp3G-t4", "tmpfs-bp3G-t16", "tmpfs-bp3G-t64"})
    measured.push_back(load_trace(kTraces + "/local-vm/" + name));
  EXPECT_CONTAINS(calibrate(measured, "client").profile_yaml, "client CPU from sysbench's CPU; ");
}

// Review (session 42) of the trace readers: crashes, silently wrong figures, and legit files refused.

TEST(TraceReview, ALongLineIsAnErrorNotACrash) {
  // std::regex recursed once per character: a line of 30,000 spaces overflowed the stack.
  std::string dir = copy_trace(kTraces + "/local-vm/tmpfs-bp1G-t4", "long-line");
  edit_file(dir + "/sysbench.log", [](std::string t) { return std::string(30000, ' ') + "\n" + t; });
  EXPECT_CONTAINS(error_of([&] { load_trace(dir); }), "sysbench.log:1: a line of 30000 characters");
  dir = copy_trace(kTraces + "/mdev-13845/bp4G-rw22-t16", "long-iostat");
  edit_file(dir + "/iostat.txt", [](std::string t) { return t + std::string(50000, '7') + "\n"; });
  EXPECT_CONTAINS(error_of([&] { load_trace(dir); }), "iostat.txt:");
}

TEST(TraceReview, FiguresThatWouldBeReadWrongAreRefused) {
  // A malformed statement count was skipped, and the mix check with it.
  std::string dir = copy_trace(kTraces + "/local-vm/tmpfs-bp1G-t4", "bad-count");
  edit_file(dir + "/sysbench.log", [](std::string t) {
    const auto at = t.find("read:");
    const auto end = t.find('\n', at);
    return t.insert(end, "x");
  });
  EXPECT_CONTAINS(error_of([&] { load_trace(dir); }), "malformed 'read' line");
  // iostat's NaN dropped the trace from the fit; a header of 0 CPUs blamed another trace.
  dir = copy_trace(kTraces + "/mdev-13845/bp4G-rw22-t16", "nan-iostat");
  edit_file(dir + "/iostat.txt", [](std::string t) { return replaced(t, "(32 CPU)", "(0 CPU)"); });
  EXPECT_CONTAINS(error_of([&] { load_trace(dir); }), "iostat's header names 0 CPUs");
  // status.transactions ten times the log's divided every counter by ten.
  dir = copy_trace(kTraces + "/mdev-13845/bp4G-rw22-t16", "status-span");
  replace_in_meta(dir, "transactions: 114518", "transactions: 1145180");
  EXPECT_CONTAINS(error_of([&] { load_trace(dir); }), "key 'status.transactions': 1145180 transactions, more than the");
  // A thread count past an int wrapped negative and skipped the check against meta.yaml.
  dir = copy_trace(kTraces + "/local-vm/tmpfs-bp1G-t4", "threads-overflow");
  edit_file(dir + "/sysbench.log", [](std::string t) { return replaced(t, "Number of threads: 4", "Number of threads: 4294967300"); });
  EXPECT_CONTAINS(error_of([&] { load_trace(dir); }), "expected a thread count from 1 to");
  // One snapshot of a pair measures nothing.
  dir = copy_trace(kTraces + "/local-vm/tmpfs-bp1G-t4", "lone-snapshot");
  std::filesystem::remove(dir + "/status_after.tsv");
  EXPECT_CONTAINS(error_of([&] { load_trace(dir); }), "status_before.tsv: a snapshot without its pair");
  // oltp.lua's options in meta.yaml are checked where they are written (yaml-cpp's "bad conversion" named no file).
  dir = copy_trace(kTraces + "/mdev-13845/bp4G-rw22-t16", "mix-typo");
  replace_in_meta(dir, "read_only: false", "read_only: maybe");
  EXPECT_CONTAINS(error_of([&] { load_trace(dir); }), "meta.yaml:");
  EXPECT_CONTAINS(error_of([&] { load_trace(dir); }), "workload.read_only");
}

// Review (session 42), the items left: a server setting meta.yaml and variables.tsv disagree on, a
// value the generated scenario refuses (blamed on that scenario), text where a variable's number
// belongs (skipped for a default), and an iostat report cut short (its device averaged low).
TEST(TraceReview, SettingsAreCheckedWhereTheTraceWritesThem) {
  std::string dir = copy_trace(kTraces + "/local-vm/tmpfs-bp1G-t4", "meta-vs-variables");
  replace_in_meta(dir, "io_capacity: 2000", "io_capacity: 1000");
  auto e = error_of([&] { load_trace(dir); });
  EXPECT_CONTAINS(e, "meta.yaml:");
  EXPECT_CONTAINS(e, "key 'server.io_capacity': says 1000 but the server ran with innodb_io_capacity 2000 (variables.tsv:");
  dir = copy_trace(kTraces + "/local-vm/tmpfs-bp1G-t4", "flush-commit-vs-variables");
  edit_file(dir + "/variables.tsv", [](std::string t) {
    return replaced(t, "innodb_flush_log_at_trx_commit\t1", "innodb_flush_log_at_trx_commit\t2");
  });
  EXPECT_CONTAINS(error_of([&] { load_trace(dir); }), "key 'server.flush_log_at_trx_commit': says 1 but the server ran with");
  // The settings the server prints as text (session 47): a switch, the flush method, the version and
  // the page size, against meta.yaml as given or as defaulted (a trace that leaves doublewrite out
  // is simulated with it).
  dir = copy_trace(kTraces + "/local-vm/tmpfs-bp1G-t4", "doublewrite-vs-variables");
  edit_file(dir + "/variables.tsv", [](std::string t) { return replaced(t, "innodb_doublewrite\tON", "innodb_doublewrite\tOFF"); });
  EXPECT_CONTAINS(error_of([&] { load_trace(dir); }), "key 'server.doublewrite': says true but the server ran with innodb_doublewrite OFF (variables.tsv:");
  replace_in_meta(dir, "doublewrite: true, ", "");
  EXPECT_CONTAINS(error_of([&] { load_trace(dir); }), "key 'server.doublewrite': is not given and defaults to true but the server ran with innodb_doublewrite OFF");
  dir = copy_trace(kTraces + "/local-vm/tmpfs-bp1G-t4", "binlog-vs-variables");
  edit_file(dir + "/variables.tsv", [](std::string t) { return replaced(t, "log_bin\tOFF", "log_bin\tON"); });
  EXPECT_CONTAINS(error_of([&] { load_trace(dir); }), "key 'server.binlog': says false but the server ran with log_bin ON");
  dir = copy_trace(kTraces + "/local-vm/tmpfs-bp1G-t4", "flush-method-vs-variables");
  replace_in_meta(dir, ", flush_method: fsync", "");
  EXPECT_CONTAINS(error_of([&] { load_trace(dir); }),
                  "key 'server.flush_method': is not given and defaults to O_DIRECT but the server ran with innodb_flush_method fsync");
  dir = copy_trace(kTraces + "/local-vm/tmpfs-bp1G-t4", "version-vs-variables");
  replace_in_meta(dir, "version: \"10.11.19\"", "version: \"10.11.1\"");
  EXPECT_CONTAINS(error_of([&] { load_trace(dir); }), "key 'engine.version': says 10.11.1 but the server was 10.11.19-MariaDB-0+deb12u1 (variables.tsv:");
  replace_in_meta(dir, "version: \"10.11.1\"", "version: \"10.11\"");
  EXPECT_NO_THROW(load_trace(dir));  // MAJOR.MINOR leads it
  dir = copy_trace(kTraces + "/local-vm/tmpfs-bp1G-t4", "page-size-vs-variables");
  edit_file(dir + "/variables.tsv", [](std::string t) { return replaced(t, "innodb_page_size\t16384", "innodb_page_size\t8192"); });
  e = error_of([&] { load_trace(dir); });
  EXPECT_CONTAINS(e, "variables.tsv:");
  EXPECT_CONTAINS(e, "key 'innodb_page_size': is 8192: poolsim models InnoDB's 16384-byte pages (the default) only");
  // A capture window that is not the run's (the device rates divide by it), and an fio job on a
  // disk that ran buffered (the page cache's figures fitted as the device's).
  dir = copy_trace(kTraces + "/local-vm/disk-bp1G-t4", "window-not-the-run");
  edit_file(dir + "/meta.yaml", [](std::string t) { return std::regex_replace(t, std::regex("window_s: [0-9.]+"), "window_s: 0.001"); });
  e = error_of([&] { load_trace(dir); });
  EXPECT_CONTAINS(e, "meta.yaml:");
  EXPECT_CONTAINS(e, "key 'capture.window_s': 0.001 s is not the measured run's window:");
  dir = copy_trace(kTraces + "/local-vm/disk-bp1G-t4", "fio-buffered");
  edit_file(dir + "/fio/randread-16k-qd4.json", [](std::string t) { return replaced(t, "\"direct\" : \"1\"", "\"direct\" : \"0\""); });
  e = error_of([&] { load_trace(dir); });
  EXPECT_CONTAINS(e, "randread-16k-qd4.json: key 'job options.direct': the job ran buffered");
  EXPECT_NO_THROW(load_trace(kTraces + "/local-vm/tmpfs-bp1G-t4"));  // tmpfs's jobs run buffered
  edit_file(dir + "/fio/randread-16k-qd4.json", [](std::string t) { return replaced(t, "\"direct\" : \"0\"", "\"buffered\" : \"0\""); });
  EXPECT_NO_THROW(load_trace(dir));  // fio's inverse option: direct
  dir = copy_trace(kTraces + "/local-vm/tmpfs-bp1G-t4", "doublewrite-detect-only");
  edit_file(dir + "/variables.tsv", [](std::string t) { return replaced(t, "innodb_doublewrite\tON", "innodb_doublewrite\tDETECT_ONLY"); });
  replace_in_meta(dir, "doublewrite: true", "doublewrite: false");
  EXPECT_NO_THROW(load_trace(dir));  // MySQL 8.0.30+: metadata only, each page written once
  // A helper's mutations of an MDEV-13845 trace (session 47): a latency in another unit read as
  // milliseconds, a percentile below the log's min, interval lines a thousand times too slow, and
  // an iostat.txt of another host, with shares past 100 % or a device twice in one report.
  const std::string mdev = kTraces + "/mdev-13845/bp4G-rw50-t16";
  dir = copy_trace(mdev, "latency-in-seconds");
  edit_file(dir + "/sysbench.log", [](std::string t) { return replaced(t, "65.26ms", "0.06526s"); });
  EXPECT_CONTAINS(error_of([&] { load_trace(dir); }), "sysbench.log:121: key 'approx.  95 percentile': malformed");
  dir = copy_trace(mdev, "below-the-min");
  edit_file(dir + "/sysbench.log", [](std::string t) { return replaced(t, "65.26ms", "6.526ms"); });
  EXPECT_CONTAINS(error_of([&] { load_trace(dir); }), "sysbench.log:121: key '95th percentile': a 95th percentile of 6.526ms below the min of 11.8ms (line 118)");
  dir = copy_trace(mdev, "interval-threads-overflow");
  edit_file(dir + "/sysbench.log", [](std::string t) { return replaced(t, "threads: 16, tps: 487.57", "threads: 99999999999, tps: 487.57"); });
  EXPECT_CONTAINS(error_of([&] { load_trace(dir); }), "sysbench.log:11: key 'thds': expected a thread count from 1 to 2147483647, got 99999999999");
  // storage.members: as many as storage.devices, each among iostat's devices (a member iostat does
  // not list dropped the measured await without a word).
  dir = copy_trace(mdev, "members-not-devices");
  replace_in_meta(dir, "devices: 2", "devices: 64");
  EXPECT_CONTAINS(error_of([&] { load_trace(dir); }), "key 'storage.devices': 64 devices, but storage.members lists 2");
  dir = copy_trace(mdev, "member-not-in-iostat");
  replace_in_meta(dir, "members: [sdc, sdd]", "members: [sdc, sde]");
  EXPECT_CONTAINS(error_of([&] { load_trace(dir); }), "key 'storage.members': 'sde' is not among iostat.txt's devices");
  replace_in_meta(dir, "members: [sdc, sde]", "members: sdc");
  EXPECT_CONTAINS(error_of([&] { load_trace(dir); }), "key 'storage.members': expected a list of the volume's device names");
  dir = copy_trace(mdev, "intervals-not-this-run");
  edit_file(dir + "/sysbench.log", [](std::string t) { return std::regex_replace(t, std::regex("tps: ([0-9]+)\\.([0-9]+)"), "tps: 0.$1"); });
  EXPECT_CONTAINS(error_of([&] { load_trace(dir); }), "key 'interval': the interval lines count");
  dir = copy_trace(mdev, "iostat-of-another-host");
  edit_file(dir + "/iostat.txt", [](std::string t) { return replaced(t, "(32 CPU)", "(3 CPU)"); });
  EXPECT_CONTAINS(error_of([&] { load_trace(dir); }), "iostat.txt:1: key 'host.cores': iostat's header names 3 CPUs but meta.yaml's host.cores is 32");
  dir = copy_trace(mdev, "iostat-past-100");
  edit_file(dir + "/iostat.txt", [](std::string t) { return replaced(t, "           1.49    0.00", "         140.49    0.00"); });
  EXPECT_CONTAINS(error_of([&] { load_trace(dir); }), "iostat.txt:4: key 'avg-cpu': the CPU shares add up to 239 %");
  dir = copy_trace(mdev, "iostat-device-twice");
  edit_file(dir + "/iostat.txt", [](std::string t) {
    const std::string sdc = "sdc               0.21    13.29   34.54  115.40     0.60     2.10    36.95     0.15    0.99    1.04    0.97   0.13   1.87\n";
    return replaced(t, sdc, sdc + sdc);
  });
  EXPECT_CONTAINS(error_of([&] { load_trace(dir); }), "iostat.txt:8: key 'sdc': device 'sdc' appears twice in this report (the report starts at line 3)");
  // A run duration that is not the log's (validate simulated 10 hours of a 3-minute log) and
  // snapshots said to span a tenth of the run (every counter per transaction ten times too high).
  dir = copy_trace(mdev, "duration-not-the-log");
  replace_in_meta(dir, "duration_s: 181", "duration_s: 36000");
  EXPECT_CONTAINS(error_of([&] { load_trace(dir); }), "key 'workload.duration_s': 3.6e+04 s, but");
  dir = copy_trace(mdev, "status-span-too-short");
  replace_in_meta(dir, "transactions: 68107", "transactions: 6810");
  EXPECT_CONTAINS(error_of([&] { load_trace(dir); }), "key 'status.transactions': 6810 transactions, under half of the 69081");
  // A device time past the snapshots' span (twice the run): an edited write time (the write-buffer
  // fit took it as the device's await) and a busy time longer than the run.
  dir = copy_trace(kTraces + "/local-vm/disk-bp1G-t4", "diskstats-past-the-run");
  edit_file(dir + "/diskstats_after.txt", [](std::string t) { return replaced(t, " 10832148 ", " 10832148000000 "); });
  EXPECT_CONTAINS(error_of([&] { load_trace(dir); }), "diskstats_after.txt: key 'vda': a mean write time of 9.28e+07 ms between the snapshots, longer than twice the run (45 s)");
  dir = copy_trace(kTraces + "/local-vm/disk-bp1G-t4", "busy-past-the-run");
  edit_file(dir + "/diskstats_after.txt", [](std::string t) { return replaced(t, " 3080976 ", " 93080976 "); });
  EXPECT_CONTAINS(error_of([&] { load_trace(dir); }), "key 'vda': device busy time (io_ticks) of");
  // Below InnoDB's minimum, or under io_capacity: refused at meta.yaml's line.
  dir = copy_trace(kTraces + "/local-vm/tmpfs-bp1G-t4", "low-io-capacity");
  replace_in_meta(dir, "io_capacity_max: 4000", "io_capacity_max: 1500");
  EXPECT_CONTAINS(error_of([&] { load_trace(dir); }), "key 'server.io_capacity_max': is below server.io_capacity (2000)");
  // A variable the scenario takes, out of its range or text: variables.tsv's line.
  dir = copy_trace(kTraces + "/local-vm/tmpfs-bp1G-t4", "low-scan-depth");
  edit_file(dir + "/variables.tsv", [](std::string t) { return replaced(t, "innodb_lru_scan_depth\t1536", "innodb_lru_scan_depth\t50"); });
  e = error_of([&] { scenario_for_trace(load_trace(dir), kTraces + "/local-vm/profile.yaml", {}, 5); });
  EXPECT_CONTAINS(e, "variables.tsv:231:");
  EXPECT_CONTAINS(e, "key 'innodb_lru_scan_depth': expected a whole number of pages, at least 100");
  dir = copy_trace(kTraces + "/local-vm/tmpfs-bp1G-t4", "text-dirty-pct");
  edit_file(dir + "/variables.tsv", [](std::string t) {
    return replaced(t, "innodb_max_dirty_pages_pct\t90.000000", "innodb_max_dirty_pages_pct\t90.0x");
  });
  EXPECT_CONTAINS(error_of([&] { scenario_for_trace(load_trace(dir), kTraces + "/local-vm/profile.yaml", {}, 5); }),
                  "variables.tsv:232: key 'innodb_max_dirty_pages_pct': expected a percentage from 0 to 99.9");
  // The last report cut after its first device.
  dir = copy_trace(kTraces + "/mdev-13845/bp4G-rw22-t16", "cut-iostat");
  edit_file(dir + "/iostat.txt", [](std::string t) {
    while (!t.empty() && t.back() == '\n') t.pop_back();
    for (int i = 0; i < 2; ++i) t.erase(t.rfind('\n'));
    return t + "\n";
  });
  EXPECT_CONTAINS(error_of([&] { load_trace(dir); }), "this report has no line for device 'md0'");
}

// sysbench 0.5's older summary says "deadlocks:" where later ones say "ignored errors:": the count was
// not read, so the mix check allowed no retried statements for such a log.
TEST(TraceReview, AnOlderSummarysDeadlocksAreItsIgnoredErrors) {
  const std::string log = poolsim::testing::read_file(kTraces + "/mdev-13845/bp4G-rw50-t8/sysbench.log");
  EXPECT_EQ(parse_sysbench_log(replaced(log, "ignored errors:                      0 ", "deadlocks:                           37 "), "s.log").ignored_errors, 37u);
  EXPECT_EQ(parse_sysbench_log(replaced(log, "ignored errors:                      0 ", "ignored errors:                      12 "), "s.log").ignored_errors, 12u);
}

// A meta.yaml figure written null is one the tool did not record (load_trace lets it pass): the block
// layer's awaits read capture.window_s, and the counters per transaction status.transactions, with
// yaml-cpp's conversion, whose "bad conversion" named no file or key (found by mutating meta.yaml's
// values, session 44; tests/fuzz_inputs.py).
TEST(TraceReview, AFigureWrittenNullIsNotRecorded) {
  const std::string dir = copy_trace(kTraces + "/local-vm/disk-bp1G-t4", "null-window");
  replace_in_meta(dir, "window_s: 45.29", "window_s: null");
  const Trace t = load_trace(dir);
  EXPECT_TRUE(std::isnan(t.capture_figure("window_s")));
  const auto await = t.device_await("vda");
  ASSERT_TRUE(await.has_value());
  const Trace recorded = load_trace(kTraces + "/local-vm/disk-bp1G-t4");
  // Without the window, the rates are over sysbench's run time instead of the capture's.
  EXPECT_NEAR(await->reads_per_s * t.sysbench.total_time_s, recorded.device_await("vda")->reads_per_s * 45.29, 1e-6);
  EXPECT_EQ(await->read_s, recorded.device_await("vda")->read_s);
  // status.transactions null: the snapshots span the log's transactions (it was "bad conversion").
  const std::string spanned = copy_trace(kTraces + "/mdev-13845/bp4G-rw22-t16", "null-span");
  replace_in_meta(spanned, "transactions: 114518", "transactions: null");
  const Trace s = load_trace(spanned);
  EXPECT_NEAR(*s.per_txn("Innodb_buffer_pool_reads") * static_cast<double>(s.sysbench.transactions),
              *load_trace(kTraces + "/mdev-13845/bp4G-rw22-t16").per_txn("Innodb_buffer_pool_reads") * 114518, 1e-6);
}

TEST(TraceReview, LegitVariantsParse) {
  // fio's fsync in its global options, and a note fio writes ahead of the JSON.
  std::string fio = poolsim::testing::read_file(kTraces + "/local-vm/disk-bp1G-t4/fio/randwrite-16k-fsync-qd1.json");
  EXPECT_TRUE(parse_fio_json(fio, "f.json").syncs);
  std::string global = replaced(fio, "\"fsync\" : \"1\",", "");
  global = replaced(global, "\"jobs\" : [", "\"global options\" : {\"fsync\" : \"1\"},\n  \"jobs\" : [");
  EXPECT_TRUE(parse_fio_json(global, "g.json").syncs);
  EXPECT_TRUE(parse_fio_json("note: both iodepth >= 1 and synchronous I/O engine are selected, queue depth will be capped at 1\n" + fio,
                             "n.json").syncs);
  // CRLF with a trailing blank line in a .tsv.
  std::string dir = copy_trace(kTraces + "/local-vm/tmpfs-bp1G-t4", "crlf-tsv");
  edit_file(dir + "/variables.tsv", [](std::string t) {
    std::string out;
    for (char c : t) out += c == '\n' ? std::string("\r\n") : std::string(1, c);
    return out + "\r\n";
  });
  EXPECT_NO_THROW(load_trace(dir));
  // A log cut of its banner goes by meta.yaml's sysbench version.
  dir = copy_trace(kTraces + "/mdev-13845/bp4G-rw22-t16", "no-banner");
  edit_file(dir + "/sysbench.log", [](std::string t) { return replaced(t, "sysbench 0.5:", "sysbench:"); });
  EXPECT_EQ(sysbench_options_for(load_trace(dir)).version, "0.5");
  // Another percentile is said to be one, not taken for a truncated log.
  dir = copy_trace(kTraces + "/local-vm/tmpfs-bp1G-t4", "p90");
  edit_file(dir + "/sysbench.log", [](std::string t) { return replaced(t, "95th percentile:", "90th percentile:"); });
  EXPECT_CONTAINS(error_of([&] { load_trace(dir); }), "has the 90th percentile (sysbench --percentile)");
}
