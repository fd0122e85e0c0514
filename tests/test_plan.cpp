// Capacity planning: plan files (bad input names file, line and key), the planner against brute
// force on a small space, and the analytic bound against the simulator on a grid.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "plan/plan.h"
#include "sim/simulation.h"
#include "test_support.h"

using namespace poolsim;
using poolsim::testing::write_temp;

namespace {

// A small sysbench data set (2 x 100k rows, ~46 MB) whose options make different resources limit:
// the compute cores, a SATA SSD without power-loss protection, NVMe, or an NVMe-oF pool.
const char* kBaseScenario =
    "compute: {cores: 2}\n"
    "storage:\n"
    "  kind: local\n"
    "  device: pcie4-nvme-tlc\n"
    "  nodes: [{name: flash1, cores: 2, device: pcie4-nvme-tlc, devices: 2, ports: 1}]\n"
    "  volume: {nodes: [flash1]}\n"
    "fabric: {preset: ib-hdr100}\n"
    "workload: {kind: sysbench, test: oltp_read_write, tables: 2, table_size: 100000, rand_type: uniform, threads: 4}\n"
    "database: {buffer_pool: 8MiB, io_capacity: 2000}\n"
    "simulation: {warmup: 0.5s, batch: 0.25s, min_batches: 8, max_duration: 2s}\n";

std::string base_scenario() {
  static std::string path = write_temp("plan-base.yaml", kBaseScenario);
  return path;
}

// Prices are test fixtures (the planner only adds them); their source says so.
std::string plan_text(const std::string& target, const std::string& extra_axes = "") {
  return "scenario: " + base_scenario() + "\n" + "target: " + target + "\n" +
         "choices:\n"
         "  cpu:\n"
         "    - {name: 1c, price_usd: 100, source: test fixture, set: {compute.cores: 1}}\n"
         "    - {name: 2c, price_usd: 200, source: test fixture, set: {compute.cores: 2}}\n"
         "  storage:\n"
         "    - {name: sata, price_usd: 10, source: test fixture, set: {storage.device: samsung-850-pro}}\n"
         "    - {name: nvme, price_usd: 50, source: test fixture, set: {storage.device: pcie4-nvme-tlc}}\n"
         "    - {name: pool, price_usd: 40, source: test fixture, set: {storage.kind: pool}}\n" +
         extra_axes;
}

Evaluator simulate(int jobs) {
  return [jobs](const std::vector<Scenario>& points) { return run_points(points, jobs); };
}

std::string load_error(const std::string& text) {
  try {
    auto plan = load_plan_from_text(text, "plan.yaml");
    configurations(plan);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(PlanInput, ErrorsNameFileLineAndKey) {
  // A price without its source.
  EXPECT_CONTAINS(load_error("scenario: " + base_scenario() + "\ntarget: {tps: 10/s}\nchoices:\n  cpu:\n    - {name: a, price_usd: 1}\n"),
                  "plan.yaml:5:7: key 'choices.cpu[0]': missing required key 'source'");
  // A scenario key that does not exist, with a suggestion.
  EXPECT_CONTAINS(load_error(plan_text("{tps: 10/s}") + "  pool:\n    - {name: big, price_usd: 1, source: x, set: {database.bufer_pool: 1GiB}}\n"),
                  "plan.yaml:12:50: key 'choices.pool[0].set.database.bufer_pool': sets a key the scenario does not have (did you mean 'buffer_pool'?)");
  // A value the scenario rejects: the error points at the option in the plan, not at a --set.
  std::string bad_value = load_error(plan_text("{tps: 10/s}") + "  net:\n    - {name: ib, price_usd: 1, source: x, set: {fabric.preset: ib-hdr99}}\n");
  EXPECT_CONTAINS(bad_value, "plan.yaml:12:64: key 'choices.net.ib.set.fabric.preset'");
  EXPECT_CONTAINS(bad_value, "ib-hdr99");
  // Two axes setting the same key, a target with nothing to meet, a bare number where a rate is needed.
  EXPECT_CONTAINS(load_error(plan_text("{tps: 10/s}") + "  more:\n    - {name: x, price_usd: 1, source: x, set: {compute.cores: 4}}\n"),
                  "key 'choices.more[0].set.compute.cores': 'compute.cores' is already set by axis 'cpu'");
  EXPECT_CONTAINS(load_error(plan_text("{threads: 4}")), "plan.yaml:2:9: key 'target': give tps, p99 or both");
  EXPECT_CONTAINS(load_error(plan_text("{tps: 10}")), "plan.yaml:2:15: key 'target.tps'");
  // Prices whose total is past a double: the costs were inf and ranked nothing.
  EXPECT_CONTAINS(load_error(plan_text("{tps: 10/s}") + "  a:\n    - {name: x, price_usd: 1e308, source: x}\n" +
                             "  b:\n    - {name: y, price_usd: 1e308, source: x}\n"),
                  "plan.yaml:14:28: key 'choices.b[0].price_usd': with this price the dearest configuration costs more than a number can hold");
}

// A check across two keys failed at the base scenario's line (io_capacity there, against the
// io_capacity_max an option set): the option's line now, the scenario's message kept.
TEST(PlanInput, AClashAnOptionCausesIsNamedAtTheOption) {
  const std::string e = load_error(plan_text("{tps: 10/s}") + "  flush:\n    - {name: low, price_usd: 1, source: x, set: {database.io_capacity_max: 1000}}\n");
  EXPECT_CONTAINS(e, "plan.yaml:12:");
  EXPECT_CONTAINS(e, "key 'choices.flush.low.set.database.io_capacity_max': with the scenario's own settings this value is refused: ");
  EXPECT_CONTAINS(e, "io_capacity 2000 is above io_capacity_max 1000");
  // A check across sections (an option's compute.memory under the scenario's buffer pool): the
  // option that alone makes the scenario fail; it was the scenario's line.
  const std::string memory = load_error(plan_text("{tps: 10/s}") + "  ram:\n    - {name: tiny, price_usd: 1, source: x, set: {compute.memory: 4MiB}}\n");
  EXPECT_CONTAINS(memory, "plan.yaml:12:");
  EXPECT_CONTAINS(memory, "key 'choices.ram.tiny.set.compute.memory': with the scenario's own settings this value is refused: ");
  // A base scenario that is wrong by itself keeps its own line.
  const std::string broken = write_temp(
      "plan-broken-base.yaml", std::regex_replace(kBaseScenario, std::regex("io_capacity: 2000"), "io_capacity: 2000, io_capacity_max: 1000"));
  const std::string own = load_error("scenario: " + broken + "\ntarget: {tps: 10/s}\nchoices:\n  flush:\n"
                                     "    - {name: low, price_usd: 1, source: x, set: {database.buffer_pool: 16MiB}}\n");
  EXPECT_CONTAINS(own, "plan-broken-base.yaml:");
  EXPECT_EQ(own.find("choices.flush"), std::string::npos) << own;
}

// A quoted number in a `set:` was re-emitted plain and taken as the number; the scenario file refuses
// it. Now the plan's line says so (a quoted string where a string belongs still passes).
TEST(PlanInput, AQuotedNumberIsRefusedAtThePlansLineAsInTheScenario) {
  EXPECT_CONTAINS(load_error(plan_text("{tps: 10/s}") + "  more:\n    - {name: x, price_usd: 1, source: x, set: {database.io_capacity: \"2000\"}}\n"),
                  "plan.yaml:12:70: key 'choices.more.x.set.database.io_capacity': '2000' is quoted, a string");
  EXPECT_CONTAINS(load_error(plan_text("{tps: 10/s}") + "  more:\n    - {name: x, price_usd: 1, source: x, set: {database: {io_capacity: '2000'}}}\n"),
                  "'2000' is quoted, a string");
  EXPECT_EQ(load_error(plan_text("{tps: 10/s}") + "  net:\n    - {name: ib, price_usd: 1, source: x, set: {fabric.preset: \"ib-hdr100\"}}\n"), "");
}

// An option's key with an empty step: "" found the scenario's root and crashed the loader
// (segmentation fault); "a." was refused as if the scenario file wrote it.
TEST(PlanInput, AKeyWithAnEmptyStepIsRefusedAtItsLine) {
  for (const std::string key : {"''", "'compute.'", "'.compute.cores'", "'compute..cores'"})
    EXPECT_CONTAINS(load_error(plan_text("{tps: 10/s}") + "  more:\n    - {name: x, price_usd: 1, source: x, set: {" + key + ": 4}}\n"),
                    "plan.yaml:12:48: key 'choices.more[0].set." + key.substr(1, key.size() - 2) + "': a key path has an empty step");
}

// An empty axis or option name was accepted and labelled its configurations with nothing.
TEST(PlanInput, AnAxisAndAnOptionNeedANameThatIsNotEmpty) {
  EXPECT_CONTAINS(load_error(plan_text("{tps: 10/s}") + "  '':\n    - {name: x, price_usd: 1, source: x, set: {compute.memory: 8GiB}}\n"),
                  "plan.yaml:11:3: key 'choices.': an axis needs a name that is not empty");
  EXPECT_CONTAINS(load_error(plan_text("{tps: 10/s}") + "  more:\n    - {name: ' ', price_usd: 1, source: x, set: {compute.memory: 8GiB}}\n"),
                  "plan.yaml:12:14: key 'choices.more[0].name': an option needs a name that is not empty");
}

// A thread count past an int: yaml-cpp's "bad conversion" named neither the file nor the key.
// A p99 past a double in milliseconds: the JSON said "p99_ms": null (no target), the table "inf ms".
TEST(PlanInput, AP99PastWhatMillisecondsHoldNamesItsKey) {
  EXPECT_CONTAINS(load_error(plan_text("{p99: 1e306s}")), "plan.yaml:2:15: key 'target.p99': '1e306s' is more milliseconds than a number can hold");
}

TEST(PlanInput, AThreadCountPastTheScenariosRangeNamesTheTargetsKey) {
  EXPECT_CONTAINS(load_error(plan_text("{tps: 10/s, threads: 99999999999}")),
                  "plan.yaml:2:30: key 'target.threads': value 99999999999 is out of range: must be between 1 and 100000");
}

// A section's mapping and a key inside it were different keys to the check: both were applied, and
// the later won silently (option cpu=2c ran with the other axis's 1 core).
TEST(PlanInput, AKeyInsideASectionAnotherSetsIsTheSameKey) {
  EXPECT_CONTAINS(load_error(plan_text("{tps: 10/s}") + "  more:\n    - {name: x, price_usd: 1, source: x, set: {compute: {cores: 1}}}\n"),
                  "plan.yaml:12:48: key 'choices.more[0].set.compute': 'compute.cores' is already set by axis 'cpu'");
  std::string text = plan_text("{tps: 10/s}");
  text.replace(text.find("choices:"), 0, "set: {storage: {kind: pool}}\n");
  EXPECT_CONTAINS(load_error(text), "plan.yaml:11:63: key 'choices.storage[2].set.storage.kind': 'storage.kind' is already set by the plan's set");
  EXPECT_CONTAINS(load_error(plan_text("{tps: 10/s, threads: 8}") + "  more:\n    - {name: x, price_usd: 1, source: x, set: {workload: {threads: 4}}}\n"),
                  "'workload.threads' is already set by target.threads");
  EXPECT_CONTAINS(load_error(plan_text("{tps: 10/s}") + "  more:\n    - {name: x, price_usd: 1, source: x, set: {database: {io_capacity: 400}, database.io_capacity: 300}}\n"),
                  "key 'choices.more[0].set.database.io_capacity': 'database.io_capacity' is already set by 'database' in this set");
  // Different keys of one section do not meet: the plan's compute.memory and the cpu axis's compute.cores.
  text = plan_text("{tps: 10/s}");
  text.replace(text.find("choices:"), 0, "set: {compute: {memory: 64GiB}}\n");
  auto plan = load_plan_from_text(text, "plan.yaml");
  auto configs = configurations(plan);
  EXPECT_EQ(configs[5].scenario.compute.cores, 2);
}

// Eight axes of ten options: 10^8 configurations, each a scenario loaded and held in memory (hours,
// and gigabytes past the memory, before any output). Refused at load, as a sweep that large is.
TEST(PlanInput, AProductOfAxesPastTheLimitIsRefusedBeforeLoadingAny) {
  std::string text = "scenario: " + base_scenario() + "\ntarget: {tps: 10/s}\nchoices:\n";
  for (int a = 0; a < 8; ++a) {
    text += "  axis" + std::to_string(a) + ":\n";
    for (int o = 0; o < 10; ++o) text += "    - {name: o" + std::to_string(o) + ", price_usd: 1, source: test fixture}\n";
  }
  EXPECT_CONTAINS(load_error(text), "plan.yaml:4:3: key 'choices': the axes make 100000000 configurations, more than 100000");
}

// A base scenario that cannot be read was named by its own path only, not by the plan's line.
TEST(PlanInput, AScenarioThatCannotBeReadNamesThePlansLine) {
  EXPECT_CONTAINS(load_error("target: {tps: 10/s}\nscenario: no-such-scenario.yaml\nchoices:\n  cpu:\n    - {name: a, price_usd: 1, source: x}\n"),
                  "plan.yaml:2:11: key 'scenario': cannot read file './no-such-scenario.yaml'");
  EXPECT_CONTAINS(load_error("target: {tps: 10/s}\nscenario: .\nchoices:\n  cpu:\n    - {name: a, price_usd: 1, source: x}\n"),
                  "plan.yaml:2:11: key 'scenario': './.' is a directory, not a file");
}

// A workload the bound cannot take was named as the scenario file without a line, even when the
// plan's own set made it so.
TEST(PlanInput, AWorkloadTheBoundCannotTakeNamesWhereItsKindComesFrom) {
  std::string text = plan_text("{tps: 10/s}");
  text.replace(text.find("choices:"), 0, "set: {workload.kind: fio}\n");
  EXPECT_CONTAINS(load_error(text), "plan.yaml:3:22: key 'set.workload.kind': poolsim plan bounds sysbench workloads only");
  auto fio = write_temp("plan-fio.yaml", "compute: {cores: 2}\nworkload:\n  kind: fio\n");
  EXPECT_CONTAINS(load_error("scenario: " + fio + "\ntarget: {tps: 10/s}\nchoices:\n  cpu:\n    - {name: a, price_usd: 1, source: x}\n"),
                  fio + ":3:9: key 'workload.kind': poolsim plan bounds sysbench workloads only (workload.kind is fio)");
}

TEST(PlanInput, ConfigurationsAreTheProductInOrderWithSummedPrices) {
  std::string text = plan_text("{tps: 10/s, threads: 8}");
  text.replace(text.find("choices:"), 0, "set: {simulation.max_duration: 1s}\n");
  auto plan = load_plan_from_text(text, "plan.yaml");
  auto configs = configurations(plan);
  ASSERT_EQ(configs.size(), 6u);
  EXPECT_EQ(configs[0].cost_usd, 110);   // 1c + sata
  EXPECT_EQ(configs[5].cost_usd, 240);   // 2c + pool
  EXPECT_EQ(configs[5].scenario.compute.cores, 2);
  EXPECT_EQ(configs[5].scenario.storage.kind, "pool");
  EXPECT_EQ(configs[5].scenario.workload.threads, 8);  // target.threads
  EXPECT_EQ(configs[5].scenario.params["storage"], "pool");
  EXPECT_EQ(configs[5].scenario.simulation.max_duration_s, 1.0);  // the plan's own set
  // The plan's set and an option may not both set a key.
  text.replace(text.find("{simulation.max_duration: 1s}"), 29, "{compute.cores: 4}");
  EXPECT_CONTAINS(load_error(text), "'compute.cores' is already set by the plan's set");
}

TEST(PlanCli, BoundsOnlyAndBadInput) {
  auto plan = write_temp("plan.yaml", plan_text("{tps: 500/s, p99: 50ms}"));
  auto r = poolsim::testing::run_cli("plan " + plan + " --bounds-only --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["counts"]["configurations"], 6);
  EXPECT_EQ(doc["counts"]["simulated"], 0);
  EXPECT_EQ(doc["configurations"][0]["status"], "pruned");  // one core cannot reach 500 TPS
  auto bad = write_temp("bad-plan.yaml", plan_text("{tps: 500}"));
  r = poolsim::testing::run_cli("plan " + bad);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "bad-plan.yaml:2:15: key 'target.tps'");
  // `run --bounds`: the same bound for each point of a scenario, nothing simulated.
  r = poolsim::testing::run_cli("run " + base_scenario() + " --bounds --set 'sweep.compute.cores=[1,2]'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_CONTAINS(r.out, "compute CPU");
  EXPECT_CONTAINS(r.out, "client threads");
}

// The planner (bound, prune, simulate the survivors) returns the optimum that simulating every
// configuration finds, and prunes none of the configurations that meet the target.
TEST(Plan, FindsTheBruteForceOptimum) {
  auto plan = load_plan_from_text(plan_text("{tps: 500/s, p99: 50ms}", "  memory:\n"
                                                                        "    - {name: 8M, price_usd: 0, source: test fixture, set: {database.buffer_pool: 8MiB}}\n"
                                                                        "    - {name: 32M, price_usd: 5, source: test fixture, set: {database.buffer_pool: 32MiB}}\n"),
                                  "plan.yaml");
  auto configs = configurations(plan);
  ASSERT_EQ(configs.size(), 12u);
  PlanOptions all;
  all.prune = false;
  all.jobs = 2;
  auto brute = run_plan(plan, configs, all, simulate(2));
  // The brute-force optimum: the cheapest configuration whose simulation meets the target.
  int optimum = 0;
  double optimum_cost = 1e300;
  for (const auto& c : brute["configurations"])
    if (c["status"] == "meets" && c["cost_usd"].get<double>() < optimum_cost) {
      optimum_cost = c["cost_usd"].get<double>();
      optimum = c["id"].get<int>();
    }
  ASSERT_GT(optimum, 0) << brute.dump(1);

  PlanOptions pruning;
  pruning.jobs = 2;
  auto planned = run_plan(plan, configs, pruning, simulate(2));
  EXPECT_GT(planned["counts"]["pruned"].get<int>(), 0) << render_plan_table(planned);
  ASSERT_FALSE(planned["cheapest"].empty()) << render_plan_table(planned);
  EXPECT_EQ(planned["cheapest"][0].get<int>(), optimum) << render_plan_table(planned) << render_plan_table(brute);
  for (size_t i = 0; i < configs.size(); ++i) {
    if (brute["configurations"][i]["status"] == "meets") {
      EXPECT_NE(planned["configurations"][i]["status"], "pruned") << "configuration " << i + 1;
    }
  }

  // Stopping at the first configuration that meets the target finds the same one.
  PlanOptions first;
  first.jobs = 2;
  first.cheapest_only = true;
  first.top = 1;
  auto quick = run_plan(plan, configs, first, simulate(2));
  EXPECT_EQ(quick["cheapest"][0].get<int>(), optimum);
  EXPECT_LT(quick["counts"]["simulated"].get<int>(), planned["counts"]["simulated"].get<int>());
}

// On a grid where different resources limit (cores, client threads, device, pool, serial section),
// the simulated TPS never exceeds the bound (plus the slack of a finite measurement window, which the
// planner adds before pruning) and no transaction beats the latency floor: a configuration the
// simulator says meets a target is never pruned.
TEST(Plan, BoundIsNeverBelowTheSimulator) {
  // Small machines: the cores or the client threads limit.
  std::string small = plan_text("{tps: 1/s}", "  threads:\n"
                                               "    - {name: t1, price_usd: 0, source: test fixture, set: {workload.threads: 1}}\n"
                                               "    - {name: t16, price_usd: 0, source: test fixture, set: {workload.threads: 16}}\n");
  // 64 cores and 64 threads on the virtual disk fitted from traces/local-vm's fio jobs (~39k IOPS),
  // local or as the one device of a storage node: the device limits.
  std::string io_bound = "scenario: " + base_scenario() + "\ntarget: {tps: 1/s}\nchoices:\n"
                         "  cpu:\n"
                         "    - {name: 64c, price_usd: 0, source: test fixture, set: {compute.cores: 64, workload.threads: 64,\n"
                         "       catalogue: [" POOLSIM_SOURCE_DIR "/traces/local-vm/profile-devices.yaml]}}\n"
                         "  storage:\n"
                         "    - {name: vdisk, price_usd: 0, source: test fixture, set: {storage.device: local-vm-virtual-disk}}\n"
                         "    - {name: vpool, price_usd: 0, source: test fixture, set: {storage.kind: pool,\n"
                         "       storage.nodes: [{name: flash1, cores: 1, device: local-vm-virtual-disk, devices: 1, ports: 1}]}}\n"
                         "  memory:\n"
                         "    - {name: 8M, price_usd: 0, source: test fixture, set: {database.buffer_pool: 8MiB}}\n"
                         "    - {name: 32M, price_usd: 0, source: test fixture, set: {database.buffer_pool: 32MiB}}\n";
  // Read-only on the same virtual disk with a pool of ~70 % of the data: the unavoidable reads the
  // bound counts (3.5 per transaction; 4.9 simulated) set the device limit, so a bound that
  // over-counted them would fall below the simulated TPS.
  std::string reads = "scenario: " + base_scenario() + "\ntarget: {tps: 1/s}\nchoices:\n"
                      "  cached:\n"
                      "    - {name: ro32M, price_usd: 0, source: test fixture, set: {compute.cores: 64, workload.threads: 64,\n"
                      "       catalogue: [" POOLSIM_SOURCE_DIR "/traces/local-vm/profile-devices.yaml], storage.device: local-vm-virtual-disk,\n"
                      "       workload.test: oltp_read_only, database.buffer_pool: 32MiB}}\n";
  // Seed S000's fitted GreatSQL 8.0 profile on 64 fast cores with the data in memory: its serial
  // section (3.61 us per statement) limits.
  std::string serial = "scenario: " + base_scenario() + "\ntarget: {tps: 1/s}\nchoices:\n"
                       "  server:\n"
                       "    - {name: greatsql, price_usd: 0, source: test fixture, set: {database.profile: greatsql-8.0,\n"
                       "       compute.cores: 64, compute.core_speed: 3.34, workload.threads: 64, database.buffer_pool: 64MiB}}\n";
  std::vector<Configuration> configs;
  for (const auto& text : {small, io_bound, reads, serial}) {
    auto some = configurations(load_plan_from_text(text, "plan.yaml"));
    configs.insert(configs.end(), some.begin(), some.end());
  }
  std::vector<Scenario> points;
  for (const auto& c : configs) points.push_back(c.scenario);
  auto results = run_points(points, 2);
  std::set<std::string> limits;
  for (size_t i = 0; i < configs.size(); ++i) {
    const auto& r = results[i];
    ASSERT_FALSE(r.contains("error")) << r.dump();
    const auto& b = configs[i].bound;
    limits.insert(b.limit);
    EXPECT_LE(r["tps"].get<double>(), b.tps + b.measurement_slack_tps) << r["params"].dump() << " limit " << b.limit;
    EXPECT_GE(r["latency_ms"]["p99"].get<double>(), b.latency_floor_s * 1e3) << r["params"].dump();
  }
  // The grid exercises the cores, the client population, a local device, a pool's devices and a
  // serial section.
  EXPECT_EQ(limits, (std::set<std::string>{"compute CPU", "client threads", "SSD local-vm-virtual-disk", "SSDs", "serial section"}));
}

TEST(Bottleneck, NamesTheBusiestResourceAnSsdsWriteDrainIncluded) {
  // Units 30 % busy but writes at 90 % of what the buffer drains: the drain saturates first.
  nlohmann::ordered_json result = {
      {"devices", {{{"name", "flash0/dev0"}, {"utilisation", 0.3}, {"write_drain_utilisation", 0.9}}}},
      {"links", {{{"name", "flash0-port0-tx"}, {"utilisation", 0.5}}}},
      {"cpus", {{{"host", "compute0"}, {"utilisation", 0.6}}}}};
  auto b = poolsim::bottleneck(result);
  EXPECT_EQ(b["kind"], "SSD write drain");
  EXPECT_EQ(b["resource"], "flash0/dev0");
  EXPECT_DOUBLE_EQ(b["utilisation"].get<double>(), 0.9);
  result["devices"][0]["write_drain_utilisation"] = 0.1;
  EXPECT_EQ(poolsim::bottleneck(result)["kind"], "compute CPU");
  // InnoDB's one-at-a-time resources count as resources: a saturated serial section caps TPS with
  // the hardware partly idle, and so does innodb_thread_concurrency.
  result["innodb"] = {{{"host", "compute0"}, {"serial_section_utilisation", 0.97}, {"thread_concurrency_utilisation", 0.5}}};
  b = poolsim::bottleneck(result);
  EXPECT_EQ(b["kind"], "InnoDB serial section");
  EXPECT_EQ(b["resource"], "compute0");
  result["innodb"][0]["serial_section_utilisation"] = 0.2;
  result["innodb"][0]["thread_concurrency_utilisation"] = 1.0;
  EXPECT_EQ(poolsim::bottleneck(result)["kind"], "InnoDB thread concurrency");
}

TEST(Plan, AThreadCountTheScenarioRefusesNamesTheTargetsLine) {
  // It named `--set workload.threads=100000000`, which the user never typed.
  const std::string error = load_error(plan_text("{tps: 500/s,\n  threads: 100000000}"));
  EXPECT_NE(error.find("plan.yaml:3:"), std::string::npos) << error;
  EXPECT_NE(error.find("key 'target.threads'"), std::string::npos) << error;
  EXPECT_EQ(error.find("--set"), std::string::npos) << error;
}

// Review (session 42): the bound's cases that pruned configurations the simulator finds meeting
// the target, and the planner's other defects.
namespace {
ThroughputBound bound_of(const std::string& yaml) { return throughput_bound(load_scenarios_from_text(yaml, "b.yaml").front()); }
const char* kReadOnly =
    "compute: {cores: 32, memory: 4GiB}\n"
    "workload: {kind: sysbench, test: oltp_read_only, tables: 2, table_size: 100000, rand_type: uniform, threads: 32}\n"
    "simulation: {warmup: 0.2s, batch: 0.1s, min_batches: 4, max_duration: 1s}\n";
}  // namespace

TEST(PlanBound, ALocalVolumeReadsFromEveryStripedDevice) {
  const std::string one = std::string(kReadOnly) + "storage: {kind: local, device: samsung-850-pro, devices: 1}\ndatabase: {buffer_pool: 8MiB}\n";
  std::string four = one;
  four.replace(four.find("devices: 1"), 10, "devices: 4");
  auto b1 = bound_of(one), b4 = bound_of(four);
  ASSERT_TRUE(b1.resources.contains("SSD samsung-850-pro")) << b1.resources.dump();
  ASSERT_TRUE(b4.resources.contains("4 x SSD samsung-850-pro")) << b4.resources.dump();
  EXPECT_NEAR(b4.resources["4 x SSD samsung-850-pro"].get<double>(), 4 * b1.resources["SSD samsung-850-pro"].get<double>(), 1e-6);
}

TEST(PlanBound, TheOsPageCacheHoldsPagesNoReadReachesTheDeviceFor) {
  const std::string direct = std::string(kReadOnly) + "storage: {kind: local, device: samsung-850-pro}\ndatabase: {buffer_pool: 8MiB}\n";
  std::string cached = direct;
  cached.replace(cached.find("buffer_pool: 8MiB"), 17, "buffer_pool: 8MiB, flush_method: fsync");
  // 4 GiB less the pool of page cache holds the 2 x 100k rows: no read is unavoidable.
  EXPECT_GT(bound_of(direct).page_reads_per_txn, 1.0);
  EXPECT_EQ(bound_of(cached).page_reads_per_txn, 0.0);
}

TEST(PlanBound, SlackAndFloorCoverRandomArrivalsAndLongBurstTails) {
  // sysbench's --rate: the window's count is Poisson, its noise beyond the transactions in flight.
  std::string paced = std::string(kReadOnly) + "storage: {kind: local, device: pcie4-nvme-tlc}\ndatabase: {buffer_pool: 64MiB}\n";
  paced.replace(paced.find("threads: 32}"), 12, "threads: 32, rate: 2000/s}");
  auto b = bound_of(paced);
  EXPECT_GE(b.measurement_slack_tps, 32 / 0.4 + 5 * std::sqrt(2000 / 0.4) - 1e-9);
  // A profile with a long-burst tail: the floor is the statements' body (most transactions meet no tail).
  const std::string profile = write_temp("tail-profile.yaml",
                                         poolsim::testing::read_file(std::string(POOLSIM_SOURCE_DIR) + "/scenarios/profiles/mariadb-10.11.yaml") +
                                             "statement_cpu_tail: {share: 0.5, mean: 100ms}\n");
  const std::string plain = std::string(kReadOnly) + "storage: {kind: local, device: pcie4-nvme-tlc}\ndatabase: {buffer_pool: 64MiB}\n";
  std::string tail = plain;
  tail.replace(tail.find("buffer_pool: 64MiB"), 18, "buffer_pool: 64MiB, profile: " + profile);
  auto without = bound_of(plain), with = bound_of(tail);
  EXPECT_LT(with.latency_floor_s, without.latency_floor_s);
}

TEST(PlanInput, AnAxisNamedLikeAnotherOwnerIsStillAnAxis) {
  // An axis named "target.threads" passed the one-owner check of the target's threads.
  EXPECT_CONTAINS(load_error(plan_text("{tps: 10/s, threads: 64}") +
                             "  target.threads:\n    - {name: x, price_usd: 1, source: x, set: {workload.threads: 1}}\n"),
                  "'workload.threads' is already set by target.threads");
  // The scenario's own machinery is named as such, not as an unknown key.
  EXPECT_CONTAINS(load_error(plan_text("{tps: 10/s}") + "  more:\n    - {name: x, price_usd: 1, source: x, set: {variant: fast}}\n"),
                  "a plan may not set the scenario's sweep, variants or validation");
}

TEST(Plan, APointThatCompletedNoTransactionDoesNotMeetALatencyTarget) {
  PlanTarget target;
  target.max_p99_s = 5e-3;
  nlohmann::ordered_json r = {{"tps", 0.0}, {"latency_ms", {{"p99", 0.0}}}, {"transactions", 0}};
  EXPECT_FALSE(meets_target(r, target));
  r["transactions"] = 10;
  EXPECT_TRUE(meets_target(r, target));
}

TEST(PlanCli, BoundsSayWhatTheyLeaveOut) {
  auto r = poolsim::testing::run_cli("run " + base_scenario() + " --bounds --format csv");
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_CONTAINS(r.err, "--bounds prints a table or JSON");
  r = poolsim::testing::run_cli("run " + base_scenario() + " --bounds --set 'sweep.workload.kind=[fio, sysbench]'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_CONTAINS(r.err, "--bounds leaves out 1 of 2 points whose workload.kind is not sysbench");
}
