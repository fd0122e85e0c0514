// The NDB Cluster model (model/ndb/) and custom transaction mixes (model/workload/custom_mix.*):
// closed forms on an idle cluster (a read is the sum of its stages; a write adds the replica chain
// and the commit round), Little's law for the load generators, the utilisation law at the busiest
// thread bank, bad input, and the S004 seed's published figures.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <sstream>

#include "ndb/ndb_schema.h"
#include "sim/output.h"
#include "sim/simulation.h"
#include "test_support.h"
#include "workload/custom_mix.h"

using namespace poolsim;
using poolsim::testing::scenario_from;

namespace {


std::string error_of(const std::string& yaml) {
  try {
    load_scenarios_from_text(yaml, "bad.yaml");
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error for:\n" << yaml;
  return "";
}

// A small cluster with round figures: every stage's cost is distinct, so a sum that matches is not
// an accident.
const char* kCluster =
    "ndb:\n"
    "  data_nodes: 2\n"
    "  replicas: 2\n"
    "  data_node:\n"
    "    threads: {ldm: 2, tc: 1, recv: 1, send: 2}\n"
    "    cpu: {message: 0.5us, signal: 0.25us, tc_row: 1us, tc_conf_row: 0.75us, ldm_read_row: 2us,\n"
    "          ldm_write_row: 3us, ldm_commit_row: 1.25us, ldm_complete_row: 0.5us}\n"
    "    wakeup: 4us\n"
    "  api_node: {cores: 4, recv_threads: 1, cpu: {operation: 20us, statement: 10us, row: 1.5us, result_row: 1us}, wakeup: 3us}\n"
    "  transporter: {kind: tcp, rate: 10Gbps, latency: 6us, send_cpu: 5us, recv_cpu: 7us, send_cpu_batched: 2us, recv_cpu_batched: 3us}\n"
    "  message: {header: 32B, request_row: 100B, data_row: 200B}\n";

// kCluster plus `cluster_extra` (more keys of the ndb section), the mix and the simulation section.
std::string with_mix(const std::string& cluster_extra, const std::string& mix, const std::string& sim) {
  return std::string(kCluster) + cluster_extra + "workload:\n  kind: ndb\n  mix:\n" + mix + sim;
}

const char* kShortSim = "simulation: {warmup: 20ms, batch: 20ms, min_batches: 10, max_duration: 0.4s}\n";

// Figures of the kCluster configuration (seconds).
struct Figures {
  double msg = 0.5e-6, sig = 0.25e-6, tc_row = 1e-6, tc_conf = 0.75e-6, ldm_read = 2e-6, ldm_write = 3e-6,
         ldm_commit = 1.25e-6, wake = 4e-6;
  double op = 20e-6, stmt = 10e-6, row = 1.5e-6, result = 1e-6, api_wake = 3e-6;
  double rate = 10e9 / 8, latency = 6e-6, send = 5e-6, recv = 7e-6, recv_batched = 3e-6;
  double header = 32, request_row = 100, data_row = 200, conf_row = 16;
  double link = 15e-6;  // load_generator.link_latency default
  double wire(double bytes) const { return bytes / rate + latency; }
  // A data node's send thread (after the hand-over), the wire, and the receiving data node's
  // receive thread.
  double dn_hop(double bytes, int signals) const { return wake + send + msg + wire(bytes) + recv + msg + signals * sig; }
  // To the API node's adapter (its receive thread comes on top).
  double dn_to_api(double bytes) const { return wake + send + msg + wire(bytes); }
  // The API's execute() of `rows` rows up to the TC thread's start.
  double to_tc(int rows) const {
    return stmt + rows * row + send + wire(header + rows * request_row) + recv + msg + rows * sig + wake;
  }
};

double mean_ms_of(const nlohmann::ordered_json& point, const std::string& name) {
  for (const auto& o : point["operations"])
    if (o["name"] == name) return o["mean_ms"].get<double>();
  ADD_FAILURE() << "no operation " << name;
  return 0;
}

}  // namespace

TEST(CustomMix, PicksOperationTypesByWeight) {
  CustomMix mix({MixOperation{"a", 1, {MixStatement{2, 3, false, 10}}}, MixOperation{"b", 3, {MixStatement{1, 1, true, 1}}}});
  EXPECT_EQ(mix.operations()[0].statement_count(), 10);
  EXPECT_EQ(mix.operations()[0].row_count(), 60);
  EXPECT_FALSE(mix.operations()[0].writes());
  EXPECT_EQ(mix.operations()[1].written_rows(), 1);
  EXPECT_DOUBLE_EQ(mix.share(1), 0.75);
  std::mt19937_64 rng(3);
  int b = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) b += mix.pick(rng) == 1;
  EXPECT_NEAR(b / static_cast<double>(n), 0.75, 0.005);  // ~5 standard deviations
}

TEST(CustomMix, ParsesWithDefaultsAndLines) {
  auto s = scenario_from(with_mix("", "    - name: r\n      statements:\n        - {rows: 30}\n"
                                      "    - name: w\n      weight: 2\n      statements:\n        - {tables: 3, kind: write, repeat: 4}\n", ""));
  auto mix = parse_custom_mix(s.document["workload"]["mix"], s.document["workload"]["mix"], schema::Origin{"x", {}});
  ASSERT_EQ(mix.operations().size(), 2u);
  EXPECT_EQ(mix.operations()[0].row_count(), 30);
  EXPECT_EQ(mix.operations()[1].statement_count(), 4);
  EXPECT_EQ(mix.operations()[1].written_rows(), 12);
  EXPECT_NEAR(mix.share(1), 2.0 / 3, 1e-12);
}

TEST(NdbErrors, BadInputNamesFileLineAndKey) {
  const std::string mix = "    - name: r\n      statements:\n        - {rows: 3}\n";
  // Node groups: data_nodes must be a multiple of replicas.
  auto e = error_of("ndb:\n  data_nodes: 3\n  replicas: 2\nworkload:\n  kind: ndb\n  mix:\n" + mix);
  EXPECT_CONTAINS(e, "bad.yaml:2:15");
  EXPECT_CONTAINS(e, "ndb.data_nodes");
  EXPECT_CONTAINS(e, "multiple of replicas");
  // The same made by a --set of replicas names the --set.
  try {
    load_scenarios_from_text("ndb:\n  data_nodes: 2\nworkload:\n  kind: ndb\n  mix:\n" + mix, "bad.yaml", {parse_override("ndb.replicas=3")});
    ADD_FAILURE() << "no error for replicas 3 on 2 data nodes";
  } catch (const InputError& err) {
    EXPECT_CONTAINS(std::string(err.what()), "--set ndb.replicas=3");
    EXPECT_CONTAINS(std::string(err.what()), "key 'ndb.replicas'");
  }
  // An ndb workload needs a mix.
  e = error_of("workload:\n  kind: ndb\n");
  EXPECT_CONTAINS(e, "bad.yaml:2:");
  EXPECT_CONTAINS(e, "workload.mix");
  // Duplicate operation names.
  e = error_of("workload:\n  kind: ndb\n  mix:\n" + mix + mix);
  EXPECT_CONTAINS(e, "bad.yaml:7:13");
  EXPECT_CONTAINS(e, "workload.mix[1].name");
  EXPECT_CONTAINS(e, "duplicate");
  // Schema errors in a statement: unknown key with a suggestion, bad enum value, out of range.
  e = error_of("workload:\n  kind: ndb\n  mix:\n    - name: r\n      statements:\n        - {rowz: 3}\n");
  EXPECT_CONTAINS(e, "bad.yaml:6:12");
  EXPECT_CONTAINS(e, "workload.mix[0].statements[0].rowz");
  EXPECT_CONTAINS(e, "did you mean 'rows'");
  e = error_of("workload:\n  kind: ndb\n  mix:\n    - name: r\n      statements:\n        - {kind: wrte}\n");
  EXPECT_CONTAINS(e, "workload.mix[0].statements[0].kind");
  EXPECT_CONTAINS(e, "did you mean 'write'");
  e = error_of("workload:\n  kind: ndb\n  mix:\n    - name: r\n      weight: -1\n      statements:\n        - {rows: 3}\n");
  EXPECT_CONTAINS(e, "bad.yaml:5:15");
  EXPECT_CONTAINS(e, "out of range");
  // A transporter preset of the other kind; a bare number where a unit is needed.
  e = error_of("ndb:\n  transporter: {kind: rdma, preset: eth-10g-tcp}\nworkload:\n  kind: ndb\n  mix:\n" + mix);
  EXPECT_CONTAINS(e, "bad.yaml:2:37");
  EXPECT_CONTAINS(e, "ndb.transporter.preset");
  e = error_of("ndb:\n  data_node:\n    wakeup: 5\nworkload:\n  kind: ndb\n  mix:\n" + mix);
  EXPECT_CONTAINS(e, "bad.yaml:3:13");
  EXPECT_CONTAINS(e, "ndb.data_node.wakeup");
}

// A batched message's CPU above a lone message's was lowered to it without a word.
TEST(NdbErrors, ABatchedMessageCostingMoreThanALoneOneIsRefused) {
  const std::string mix = "workload:\n  kind: ndb\n  mix:\n    - name: r\n      statements:\n        - {rows: 3}\n";
  auto e = error_of("ndb:\n  transporter: {kind: tcp, send_cpu: 5us, send_cpu_batched: 6us}\n" + mix);
  EXPECT_CONTAINS(e, "bad.yaml:2:61: key 'ndb.transporter.send_cpu_batched': the CPU of a message batched with others");
  // Only the lone cost given, below the preset's batched one: named at the key given.
  e = error_of("ndb:\n  transporter: {kind: tcp, recv_cpu: 0.01us}\n" + mix);
  EXPECT_CONTAINS(e, "key 'ndb.transporter.recv_cpu'");
  EXPECT_NO_THROW(load_scenarios_from_text("ndb:\n  transporter: {kind: tcp, send_cpu: 5us, send_cpu_batched: 5us}\n" + mix, "ok.yaml"));
}

// The schema's limits (100000 repeats x 64 tables x 100000 rows) make 6.4e11 row operations: the
// counts overflowed an int (the output said 49,872,896 rows), and as writes the rows held until the
// commit ended the point in std::bad_alloc (or took the machine's memory).
TEST(NdbErrors, AnOperationHoldingMoreRowsThanMemoryIsRefused) {
  MixOperation huge;
  huge.statements.push_back({64, 100000, true, 100000});
  EXPECT_EQ(huge.row_count(), 640000000000LL);
  EXPECT_EQ(huge.written_rows(), 640000000000LL);
  EXPECT_EQ(huge.rows_held(), 640006400000LL);
  auto e = error_of("workload:\n  kind: ndb\n  mix:\n    - name: r\n      statements:\n        - {rows: 3}\n"
                    "    - name: big\n      statements:\n        - {tables: 64, rows: 100000, kind: write, repeat: 100000}\n");
  EXPECT_CONTAINS(e, "bad.yaml:9:9: key 'workload.mix[1].statements': operation type 'big' holds up to 640006400000 row operations at once");
  // The limit counts every load thread: 100 rows per statement are fine for one thread, not for 10^7.
  const std::string writes = "workload:\n  kind: ndb\n  mix:\n    - name: w\n      statements:\n        - {rows: 100, kind: write, repeat: 100}\n";
  EXPECT_NO_THROW(load_scenarios_from_text(writes, "ok.yaml"));
  e = error_of("ndb:\n  load_generators: 100\n  load_generator: {threads: 100000}\n" + writes);
  EXPECT_CONTAINS(e, "key 'workload.mix[0].statements': operation type 'w' holds up to 10100 row operations at once");
}

// An operation longer than the measured window: ops_per_s 0 and a latency of 0.00 ms were printed
// as a measurement, where sysbench and fio points warn that nothing completed.
TEST(NdbRunWarnings, NoOperationCompletedIsAWarningNotAZeroLatency) {
  auto s = scenario_from(with_mix("  load_generator: {threads: 1}\n",
                                  "    - name: huge\n      statements:\n        - {tables: 64, rows: 100000}\n",
                                  "simulation: {warmup: 10ms, batch: 10ms, min_batches: 2, max_duration: 50ms}\n"));
  auto r = run_points({s}, 1).front();
  ASSERT_FALSE(r.contains("error")) << r.dump();
  EXPECT_EQ(r["business_operations"], 0);
  ASSERT_TRUE(r.contains("warnings")) << r.dump();
  EXPECT_CONTAINS(r["warnings"][0].get<std::string>(), "no business operation completed in the measured");
}

TEST(NdbSchema, PresetsFollowTheTransporterKind) {
  auto s = scenario_from(with_mix("", "    - name: r\n      statements: [{rows: 1}]\n", ""));
  auto tcp = parse_ndb_config(s.document, s.document, schema::Origin{"x", {}});
  EXPECT_EQ(tcp.transporter.kind, "tcp");
  auto r = load_scenarios_from_text(std::string(kCluster) + "workload:\n  kind: ndb\n  mix: [{name: r, statements: [{rows: 1}]}]\n",
                                    "x.yaml", {{"ndb.transporter.kind", "rdma"}, {"ndb.transporter.latency", "1us"}});
  auto rdma = parse_ndb_config(r.front().document, r.front().document, schema::Origin{"x", {}});
  EXPECT_EQ(rdma.transporter.preset, "ib-fdr-rdma");
  EXPECT_DOUBLE_EQ(rdma.transporter.latency_s, 1e-6);  // the override wins over the preset
  // kCluster's explicit tcp figures stay: rate 10 Gb/s.
  EXPECT_DOUBLE_EQ(rdma.transporter.rate_Bps, 10e9 / 8);
}

// One thread alone on the cluster: a one-row committed read is the sum of its stages. The TC is on
// the row's primary (distribution hint), so the read is local to it: API -> TC node, TC, LDM, the
// row to the API, the confirmation through the TC (TCKEYCONF); the API waits for both. Both replies
// reach the connection's one receive thread: the TCKEYCONF arrives while it still reads the row, so
// it waits and comes in with the next call at the batched cost.
TEST(NdbClosedForm, IdleReadIsTheSumOfItsStages) {
  auto point = run_point(scenario_from(with_mix("  load_generator: {threads: 1, think_time: 1ms}\n",
                                                "    - name: r\n      statements: [{rows: 1}]\n", kShortSim)));
  Figures f;
  double at_tc = f.link + f.op + f.to_tc(1);
  double tc_done = at_tc + f.tc_row;
  double ldm_done = tc_done + f.wake + f.ldm_read;
  double data = ldm_done + f.dn_to_api(f.header + f.data_row) + f.recv;
  double confirmed = ldm_done + f.wake + f.tc_conf;
  double tckeyconf_arrives = confirmed + f.dn_to_api(f.header + f.conf_row);
  ASSERT_LT(tckeyconf_arrives, data);  // the case this closed form is written for
  double tckeyconf = data + f.recv_batched;
  double expected = std::max(data, tckeyconf) + f.api_wake + f.result + f.link;
  EXPECT_NEAR(point["latency_ms"]["mean"].get<double>(), expected * 1e3, 1e-9);
  EXPECT_NEAR(point["latency_ms"]["max"].get<double>(), expected * 1e3, expected * 1e3 * 0.01);  // histogram bucket
  EXPECT_NEAR(point["messages_per_op"].get<double>(), 3.0, 1e-12);  // request, row, TCKEYCONF
}

// A one-row write adds the replica chain (primary on the TC's node, then the backup on the other
// node and its confirmation back) and the commit round on both replicas before the TCKEYCONF.
TEST(NdbClosedForm, IdleWriteAddsTheReplicaChainAndTheCommitRound) {
  auto point = run_point(scenario_from(with_mix("  load_generator: {threads: 1, think_time: 1ms}\n",
                                                "    - name: w\n      statements: [{rows: 1, kind: write}]\n", kShortSim)));
  Figures f;
  double conf_bytes = f.header + f.conf_row;
  double tc_done = f.link + f.op + f.to_tc(1) + f.tc_row;
  double primary = tc_done + f.wake + f.ldm_write;                                         // local primary
  double backup = primary + f.dn_hop(f.header + f.request_row, 1) + f.wake + f.ldm_write;  // remote backup
  double prepared = backup + f.dn_hop(conf_bytes, 1) + f.wake + f.tc_conf;                 // back to the TC
  double local_commit = prepared + f.wake + f.ldm_commit + f.wake;
  double remote_commit = prepared + f.dn_hop(conf_bytes, 1) + f.wake + f.ldm_commit + f.dn_hop(conf_bytes, 1) + f.wake;
  double committed = std::max(local_commit, remote_commit) + f.tc_conf;
  double expected = committed + f.dn_to_api(conf_bytes) + f.recv + f.api_wake + f.result + f.link;
  EXPECT_NEAR(point["latency_ms"]["mean"].get<double>(), expected * 1e3, 1e-9);
  // request, prepare to the backup and back, commit there and back, complete there, TCKEYCONF
  EXPECT_NEAR(point["messages_per_op"].get<double>(), 7.0, 1e-12);
}

// Closed loop: N threads each alternate a business operation (R) and the think time (Z), so
// X (R + Z) = N (Little's law), loaded or not.
TEST(NdbClosedForm, LittlesLawForTheLoadGenerators) {
  for (int threads : {4, 32}) {
    auto point = run_point(scenario_from(with_mix(
        "  load_generators: 2\n  api_nodes: 2\n  load_generator: {threads: " + std::to_string(threads) + ", think_time: 200us}\n",
        "    - name: r\n      weight: 2\n      statements: [{tables: 2, rows: 3, repeat: 4}]\n"
        "    - name: w\n      statements: [{rows: 3, repeat: 2}, {rows: 3, kind: write, repeat: 2}]\n",
        kShortSim)));
    double x = point["ops_per_s"].get<double>();
    double r = point["latency_ms"]["mean"].get<double>() * 1e-3;
    EXPECT_NEAR(x * (r + 200e-6), 2.0 * threads, 0.02 * 2 * threads) << threads << " threads";
  }
}

// With one LDM thread made slow, the cluster cannot do more operations per second than that thread
// can serve (utilisation law X = U / D <= 1 / D), and the closed loop drives it close to the bound.
TEST(NdbClosedForm, ThroughputIsBoundedByTheBusiestThreadBank) {
  auto point = run_point(scenario_from(
      "ndb:\n  data_nodes: 1\n  replicas: 1\n  data_node: {threads: {ldm: 1, tc: 2, recv: 2, send: 2}, cpu: {ldm_read_row: 50us}}\n"
      "  api_node: {recv_threads: 4}\n  load_generator: {threads: 64}\n"
      "workload:\n  kind: ndb\n  mix:\n    - name: r\n      statements: [{rows: 4}]\n" + std::string(kShortSim)));
  double demand = 4 * 50e-6;  // LDM seconds per operation
  double x = point["ops_per_s"].get<double>();
  EXPECT_LE(x, 1.0 / demand * 1.01);
  EXPECT_GE(x, 1.0 / demand * 0.95);
  double ldm_utilisation = -1;
  for (const auto& c : point["cpus"])
    if (c["host"] == "ndbd0/ldm") ldm_utilisation = c["utilisation"].get<double>();
  EXPECT_NEAR(ldm_utilisation, x * demand, 0.02);  // U = X D
  EXPECT_GT(ldm_utilisation, 0.95);
}

// Messages are booked whole when sent: a 60 MB message on a 100 Mb/s link (4.8 s) counted at booking
// made the link 1,280 % busy, and with no operation completed in the window the counters kept the
// warm-up's. What a window reports is what was served in it: at most all of it.
TEST(NdbRunWarnings, AWindowCountsOnlyTheWorkServedInIt) {
  auto point = run_point(scenario_from(
      "ndb:\n  data_nodes: 1\n  replicas: 1\n  transporter: {kind: tcp, rate: 100Mbps}\n  message: {data_row: 20MB}\n"
      "  load_generator: {threads: 8}\n"
      "workload:\n  kind: ndb\n  mix:\n    - name: r\n      statements: [{rows: 3}]\n"
      "simulation: {warmup: 0.5s, batch: 0.2s, min_batches: 10, max_duration: 3s}\n"));
  double busiest_link = 0;
  for (const auto& l : point["links"]) busiest_link = std::max(busiest_link, l["utilisation"].get<double>());
  EXPECT_LE(busiest_link, 1.0 + 1e-9);
  EXPECT_GT(busiest_link, 0.99);  // the link serialises the whole window
  for (const auto& c : point["cpus"]) {
    EXPECT_LE(c["utilisation"].get<double>(), 1.0 + 1e-9) << c.dump();
    EXPECT_LE(c["busiest_thread"].get<double>(), 1.0 + 1e-9) << c.dump();
  }
}

// The S004 seed (scenarios/seeds/ndb-rdma.yaml): published ~10,100 vs ~12,500 business ops/s (ratio
// within 5 points, absolutes within 10 %), mean response per type within 2.1-4.4 ms (TCP) and
// 1.15-3.08 ms (RDMA).
TEST(NdbSeed, TcpVsRdmaMatchesThePublishedFigures) {
  auto points = load_scenarios(std::string(POOLSIM_SOURCE_DIR) + "/scenarios/seeds/ndb-rdma.yaml");
  ASSERT_EQ(points.size(), 2u);
  auto results = run_points(points, 2);
  std::map<std::string, nlohmann::ordered_json> by;
  for (const auto& r : results) {
    ASSERT_FALSE(r.contains("error")) << r.dump();
    by[r["params"]["ndb.transporter.kind"].get<std::string>()] = r;
  }
  double tcp = by["tcp"]["ops_per_s"].get<double>(), rdma = by["rdma"]["ops_per_s"].get<double>();
  EXPECT_NEAR(tcp, 10100, 1010);
  EXPECT_NEAR(rdma, 12500, 1250);
  EXPECT_NEAR(rdma / tcp, 12500.0 / 10100.0, 0.05);
  for (const auto& o : by["tcp"]["operations"]) {
    EXPECT_GE(o["mean_ms"].get<double>(), 2.1) << o.dump();
    EXPECT_LE(o["mean_ms"].get<double>(), 4.4) << o.dump();
  }
  for (const auto& o : by["rdma"]["operations"]) {
    EXPECT_GE(o["mean_ms"].get<double>(), 1.15) << o.dump();
    EXPECT_LE(o["mean_ms"].get<double>(), 3.08) << o.dump();
  }
  EXPECT_LT(mean_ms_of(by["rdma"], "read-2t"), mean_ms_of(by["tcp"], "read-2t"));
}

// Review (session 41): a mix whose every cost is zero ran at one simulated instant for ever.
TEST(NdbErrors, OperationsThatTakeNoTimeFailThePointInsteadOfHanging) {
  const std::string zero_costs =
      "ndb:\n"
      "  data_nodes: 2\n"
      "  replicas: 2\n"
      "  data_node: {cpu: {message: 0us, signal: 0us, tc_row: 0us, tc_conf_row: 0us, ldm_read_row: 0us, ldm_write_row: 0us,\n"
      "                    ldm_commit_row: 0us, ldm_complete_row: 0us}, wakeup: 0us}\n"
      "  api_node: {cpu: {operation: 0us, statement: 0us, row: 0us, result_row: 0us}, wakeup: 0us}\n"
      "  load_generator: {threads: 1, think_time: 0us, link_latency: 0us}\n"
      "  transporter: {kind: tcp, rate: 1e30B/s, latency: 0us, send_cpu: 0us, recv_cpu: 0us, send_cpu_batched: 0us, recv_cpu_batched: 0us}\n"
      "  message: {header: 0B, request_row: 0B, data_row: 0B}\n"
      "workload:\n  kind: ndb\n  mix:\n    - name: r\n      statements: [{tables: 1, rows: 3, kind: read}]\n"
      "simulation: {warmup: 0.02s, batch: 0.01s, min_batches: 5, max_duration: 0.1s}\n";
  auto r = run_points({scenario_from(zero_costs)}, 1).front();
  ASSERT_TRUE(r.contains("error")) << r.dump();
  EXPECT_CONTAINS(r["error"].get<std::string>(), "key 'workload.mix': operations of the mix take no simulated time");
}

// Review (session 41): a type with no completion in the window reported 0 ms latencies.
TEST(NdbRunWarnings, ATypeWithNoCompletionHasNullLatenciesAndAWarning) {
  auto s = scenario_from(with_mix("  load_generator: {threads: 4}\n",
                                  "    - name: light\n      statements:\n        - {tables: 1, rows: 3}\n"
                                  "    - name: heavy\n      weight: 1e-9\n      statements:\n        - {tables: 1, rows: 3}\n",
                                  "simulation: {warmup: 10ms, batch: 10ms, min_batches: 2, max_duration: 50ms}\n"));
  auto r = run_points({s}, 1).front();
  ASSERT_FALSE(r.contains("error")) << r.dump();
  ASSERT_EQ(r["operations"].size(), 2u);
  EXPECT_GT(r["operations"][0]["mean_ms"].get<double>(), 0.0);
  EXPECT_TRUE(r["operations"][1]["mean_ms"].is_null()) << r["operations"][1].dump();
  EXPECT_TRUE(r["operations"][1]["p99_ms"].is_null());
  ASSERT_TRUE(r.contains("warnings")) << r.dump();
  EXPECT_CONTAINS(r["warnings"][0].get<std::string>(), "no operation of type 'heavy' completed");
  // The table leaves the cell empty rather than printing null or 0.
  const std::string csv = render({r}, OutputFormat::Csv);
  EXPECT_EQ(csv.find("null"), std::string::npos) << csv;
}

// Review (session 41): rows of points with other operation types were written by position under the
// longest row's headers (a latency under dev_util%, the bottleneck under cpu_util%).
TEST(NdbOutput, PointsWithOtherOperationTypesPutEachCellUnderItsOwnHeader) {
  nlohmann::ordered_json one = {{"params", {{"variant", "one"}}}, {"ops_per_s", 100.0}, {"ci95", {{"ops_per_s", 1.0}}},
                                {"latency_ms", {{"mean", 1.0}, {"p95", 2.0}}},
                                {"operations", {{{"name", "r"}, {"mean_ms", 1.5}}}}};
  nlohmann::ordered_json two = one;
  two["params"]["variant"] = "two";
  two["operations"] = {{{"name", "alpha"}, {"mean_ms", 3.5}}, {{"name", "beta"}, {"mean_ms", 4.5}}};
  const std::string csv = render({one, two}, OutputFormat::Csv);
  std::istringstream lines(csv);
  std::string header_line, row_one, row_two;
  std::getline(lines, header_line);
  std::getline(lines, row_one);
  std::getline(lines, row_two);
  auto split = [](const std::string& line) {
    std::vector<std::string> cells;
    std::stringstream in(line);
    std::string c;
    while (std::getline(in, c, ',')) cells.push_back(c);
    if (!line.empty() && line.back() == ',') cells.push_back("");
    return cells;
  };
  const auto headers = split(header_line), a = split(row_one), b = split(row_two);
  ASSERT_EQ(a.size(), headers.size()) << csv;
  ASSERT_EQ(b.size(), headers.size()) << csv;
  auto at = [&](const std::vector<std::string>& row, const std::string& header) {
    auto it = std::find(headers.begin(), headers.end(), header);
    EXPECT_NE(it, headers.end()) << header << " in " << header_line;
    return it == headers.end() ? std::string("?") : row[static_cast<size_t>(it - headers.begin())];
  };
  EXPECT_EQ(at(a, "r_ms"), "1.50");
  EXPECT_EQ(at(a, "alpha_ms"), "");
  EXPECT_EQ(at(b, "alpha_ms"), "3.50");
  EXPECT_EQ(at(b, "beta_ms"), "4.50");
  EXPECT_EQ(at(b, "r_ms"), "");
  EXPECT_EQ(at(a, "dev_util%"), "0.0");
  EXPECT_EQ(at(b, "bottleneck"), "");
  // A failed point's error goes under "error", not under the first figure's header.
  nlohmann::ordered_json failed = {{"params", {{"variant", "three"}}}, {"error", "boom"}};
  const std::string with_error = render({one, failed}, OutputFormat::Csv);
  EXPECT_CONTAINS(with_error.substr(0, with_error.find('\n')), ",error");
  EXPECT_CONTAINS(with_error, "three,,,,,,,,,,boom");
}

TEST(NdbErrors, OperationTypeNamesAndStatementsThatWouldMislead) {
  auto mix = [](const std::string& ops) { return with_mix("", ops, kShortSim); };
  EXPECT_CONTAINS(error_of(mix("    - name: mean\n      statements: [{rows: 1}]\n")),
                  "key 'workload.mix[0].name': an operation type named 'mean' would share the results table's column mean_ms");
  EXPECT_CONTAINS(error_of(mix("    - name: p95\n      statements: [{rows: 1}]\n")), "column p95_ms");
  EXPECT_CONTAINS(error_of(mix("    - name: ''\n      statements: [{rows: 1}]\n")),
                  "key 'workload.mix[0].name': an operation type needs a name that is not blank");
  EXPECT_CONTAINS(error_of(mix("    - name: a\n      statements:\n        - {rows: 1}\n        -\n")),
                  "key 'workload.mix[0].statements[1]': an empty statement (a dash with nothing after it)");
}

TEST(NdbErrors, KeysOfAnotherWorkloadKindAreRefused) {
  const std::string ndb_mix = "    - name: r\n      statements: [{rows: 1}]\n";
  // An NDB cluster and mix without `kind: ndb` ran the default fio job.
  std::string no_kind = with_mix("", ndb_mix, kShortSim);
  no_kind.replace(no_kind.find("  kind: ndb\n"), std::strlen("  kind: ndb\n"), "");
  EXPECT_CONTAINS(error_of(no_kind), "key 'ndb': an NDB cluster runs with workload.kind ndb only (workload.kind is fio (the default))");
  EXPECT_CONTAINS(error_of("workload:\n  kind: sysbench\n  mix:\n" + ndb_mix), "key 'workload.mix': a custom mix runs on an NDB cluster");
  // sysbench's threads and rate do not pace the NDB load generators or fio.
  EXPECT_CONTAINS(error_of(with_mix("", ndb_mix, kShortSim) + "sweep: {workload.threads: [1, 64]}\n"),
                  "key 'workload.threads': sysbench's key, which ndb would ignore");
  EXPECT_CONTAINS(error_of("workload:\n  kind: fio\n  rate: 100/s\n"),
                  "key 'workload.rate': sysbench's key, which fio would ignore (workload.kind is fio): the fio job's own keys are under workload.fio");
  EXPECT_CONTAINS(error_of("workload:\n  test: oltp_read_write\n  threads: 16\n"), "bad.yaml:2:9: key 'workload.test'");
  // A kind chosen per point (--set, a sweep, a variant) is a what-if on the file: its keys stay.
  EXPECT_NO_THROW(load_scenarios_from_text("workload: {kind: sysbench, threads: 4}\n", "ok.yaml", {parse_override("workload.kind=fio")}));
  EXPECT_NO_THROW(load_scenarios_from_text("workload: {kind: sysbench, threads: 4}\nsweep: {workload.kind: [sysbench, fio]}\n", "ok.yaml"));
  EXPECT_NO_THROW(load_scenarios_from_text("workload: {kind: sysbench, threads: 4}\nvariants: {f: {workload.kind: fio}}\nvariant: f\n", "ok.yaml"));
}

// Review (session 41): a database section under fio or NDB, or a platform section under NDB, ran
// without a word about being ignored (NDB's CPUs are analytic; fio writes to the devices).
TEST(NdbErrors, SectionsTheKindDoesNotReadAreRefused) {
  const std::string ndb = with_mix("", "    - name: r\n      statements: [{rows: 1}]\n", kShortSim);
  EXPECT_CONTAINS(error_of(ndb + "database: {buffer_pool: 1GiB}\n"), "key 'database': database holds InnoDB's settings");
  EXPECT_CONTAINS(error_of(ndb + "compute: {cores: 8}\n"), "key 'compute': compute holds the platform of sysbench and fio points");
  EXPECT_CONTAINS(error_of(ndb + "fabric: {preset: ib-hdr100}\n"), "(workload.kind is ndb)");
  EXPECT_CONTAINS(error_of("workload: {kind: fio}\ndatabase: {checksum: none}\n"), "bad.yaml:2:11: key 'database'");
  EXPECT_CONTAINS(error_of("database: {checksum: none}\n"), "(workload.kind is fio (the default))");
  // fio reads the platform; a kind chosen per point keeps the file's sections.
  EXPECT_NO_THROW(load_scenarios_from_text("workload: {kind: fio}\ncompute: {cores: 8}\n", "ok.yaml"));
  EXPECT_NO_THROW(load_scenarios_from_text("workload: {kind: sysbench, threads: 4}\ndatabase: {buffer_pool: 1GiB}\n", "ok.yaml",
                                           {parse_override("workload.kind=fio")}));
}

TEST(NdbErrors, AVariantsReplicasAreBlamedForNodeGroupsTheyCannotForm) {
  const std::string text = with_mix("", "    - name: r\n      statements: [{rows: 1}]\n", kShortSim) +
                           "variants:\n  bad: {ndb.replicas: 4}\nvariant: bad\n";
  EXPECT_CONTAINS(error_of(text), "key 'ndb.replicas': 2 data nodes cannot form node groups of 4 replicas");
}
