// The fabric against closed forms: transfer time = latency + size / bandwidth, fair sharing of a
// link, and the per-IO cost NVMe-oF adds.
#include <gtest/gtest.h>

#include "platform/platform.h"
#include "sim/simulation.h"
#include "test_support.h"

using namespace poolsim;
using poolsim::testing::scenario_from;
namespace sg = simgrid::s4u;

namespace {
const char* kTwoComputeOneStorage =
    "compute: {count: 2}\n"
    "storage: {kind: pool, nodes: [{name: flash1, devices: 1, ports: 1}]}\n"
    "fabric: {preset: ib-hdr100}\n";

double route_latency_s(const Scenario& s) { return 2 * s.fabric.nic_latency_s + s.fabric.switch_latency_s; }
}  // namespace

TEST(Fabric, OneTransferTakesLatencyPlusSizeOverBandwidth) {
  auto scenario = scenario_from(kTwoComputeOneStorage);
  auto engine = create_engine();
  Platform platform(scenario, *engine);
  const double bytes = 100e6;
  double elapsed = -1;
  auto* from = platform.compute()[0].host;
  auto* to = platform.storage_nodes()[0].host;
  sg::Actor::create("sender", from, [&] {
    sg::Comm::sendto(from, to, static_cast<std::uint64_t>(bytes));
    elapsed = sg::Engine::get_clock();
  });
  engine->run();
  double expected = route_latency_s(scenario) + bytes / scenario.fabric.rate_Bps;
  EXPECT_NEAR(elapsed, expected, expected * 1e-6);
}

TEST(Fabric, TwoFlowsOnALinkEachGetHalf) {
  // Two compute nodes read from one storage port at once: the port is the bottleneck.
  auto scenario = scenario_from(kTwoComputeOneStorage);
  auto engine = create_engine();
  Platform platform(scenario, *engine);
  const double bytes = 100e6;
  std::vector<double> done(2, -1);
  auto* storage = platform.storage_nodes()[0].host;
  for (int i = 0; i < 2; ++i) {
    auto* compute = platform.compute()[i].host;
    sg::Actor::create("reader", compute, [&, i, compute] {
      sg::Comm::sendto(storage, compute, static_cast<std::uint64_t>(bytes));
      done[i] = sg::Engine::get_clock();
    });
  }
  engine->run();
  double expected = route_latency_s(scenario) + 2 * bytes / scenario.fabric.rate_Bps;
  for (double d : done) EXPECT_NEAR(d, expected, expected * 1e-3);
}

TEST(Fabric, OppositeDirectionsDoNotShareASplitDuplexPort) {
  auto scenario = scenario_from(kTwoComputeOneStorage);
  auto engine = create_engine();
  Platform platform(scenario, *engine);
  const double bytes = 100e6;
  std::vector<double> done(2, -1);
  auto* storage = platform.storage_nodes()[0].host;
  auto* compute = platform.compute()[0].host;
  sg::Actor::create("read", compute, [&] {
    sg::Comm::sendto(storage, compute, static_cast<std::uint64_t>(bytes));
    done[0] = sg::Engine::get_clock();
  });
  sg::Actor::create("write", compute, [&] {
    sg::Comm::sendto(compute, storage, static_cast<std::uint64_t>(bytes));
    done[1] = sg::Engine::get_clock();
  });
  engine->run();
  double expected = route_latency_s(scenario) + bytes / scenario.fabric.rate_Bps;
  for (double d : done) EXPECT_NEAR(d, expected, expected * 1e-3);
}

// At QD1 an NVMe-oF read costs the local read plus initiator and target CPU, a capsule one way and
// the data back: the budget in devices.md is +6-12 us for RDMA with kernel initiator and target.
TEST(Fabric, NvmeofRdmaAddsItsPerIoBudget) {
  auto scenario = scenario_from("storage: {kind: pool, nodes: [{name: s1, devices: 1}]}\n"
                                "workload: {fio: {rw: randread, bs: 16KiB, iodepth: 1}}\n"
                                "simulation: {warmup: 1ms, batch: 10ms, max_duration: 100ms}\n");
  const auto& spec = scenario.device("pcie4-nvme-tlc");
  double local = spec.unit_read_service_s(16384) + 16384 / spec.read_bandwidth_Bps;
  const auto& f = scenario.fabric;
  double one_way = route_latency_s(scenario);
  double added = f.initiator_cpu_s + f.target_cpu_s + (one_way + f.capsule_bytes / f.rate_Bps) + (one_way + 16384 / f.rate_Bps);
  auto r = run_point(scenario);
  double measured = r["latency_us"]["mean"].get<double>() * 1e-6;
  EXPECT_NEAR(measured, local + added, 1e-9);
  EXPECT_GE(added, 6e-6);
  EXPECT_LE(added, 12e-6);
}
