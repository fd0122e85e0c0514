// The fabric and the CPU against closed forms: transfer time = latency + size / bandwidth, FCFS
// serialisation on a shared port, independent directions, the per-IO cost NVMe-oF adds, and a node's
// cores as one FCFS queue.
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
  auto& port = platform.storage_nodes()[0];
  double arrived = platform.transfer(platform.compute()[0].nic_tx, port.port_rx[0], 0.0, bytes);
  double expected = route_latency_s(scenario) + bytes / scenario.fabric.rate_Bps;
  EXPECT_NEAR(arrived, expected, expected * 1e-9);
  EXPECT_NEAR(platform.route_latency_s(), route_latency_s(scenario), 1e-15);
}

TEST(Fabric, TwoMessagesOnOnePortAreSerialised) {
  // Two compute nodes read from one storage port at once: the port sends one message, then the
  // other; the last byte of both has left after twice the serialisation time, as with fair sharing.
  auto scenario = scenario_from(kTwoComputeOneStorage);
  auto engine = create_engine();
  Platform platform(scenario, *engine);
  const double bytes = 100e6, serialisation = bytes / scenario.fabric.rate_Bps;
  auto& port = platform.storage_nodes()[0].port_tx[0];
  double first = platform.transfer(port, platform.compute()[0].nic_rx, 0.0, bytes);
  double second = platform.transfer(port, platform.compute()[1].nic_rx, 0.0, bytes);
  EXPECT_NEAR(first, route_latency_s(scenario) + serialisation, 1e-12);
  EXPECT_NEAR(second, route_latency_s(scenario) + 2 * serialisation, 1e-12);
  // A message ready later fills the idle gap before a booked one if it fits.
  double late = platform.transfer(port, platform.compute()[0].nic_rx, 10.0, 1.0);
  EXPECT_NEAR(late, 10.0 + 1.0 / scenario.fabric.rate_Bps + route_latency_s(scenario), 1e-12);
}

TEST(Fabric, OppositeDirectionsDoNotShareASplitDuplexPort) {
  auto scenario = scenario_from(kTwoComputeOneStorage);
  auto engine = create_engine();
  Platform platform(scenario, *engine);
  const double bytes = 100e6;
  auto& storage = platform.storage_nodes()[0];
  auto& compute = platform.compute()[0];
  double read = platform.transfer(storage.port_tx[0], compute.nic_rx, 0.0, bytes);
  double write = platform.transfer(compute.nic_tx, storage.port_rx[0], 0.0, bytes);
  double expected = route_latency_s(scenario) + bytes / scenario.fabric.rate_Bps;
  EXPECT_NEAR(read, expected, 1e-12);
  EXPECT_NEAR(write, expected, 1e-12);
}

TEST(Cpu, CoresAreOneFcfsQueueAndLongBurstsAreSliced) {
  // Two cores, three bursts at once: two start at once, the third waits for the first to end. A
  // burst longer than the slice goes back to the queue after each slice.
  auto scenario = scenario_from("compute: {cores: 2}\nstorage: {kind: local, device: pcie4-nvme-tlc}\n");
  auto engine = create_engine();
  Platform platform(scenario, *engine);
  auto& node = platform.compute()[0];
  const double t0 = sg::Engine::get_clock();  // SimGrid's clock goes on from the binary's earlier tests
  std::vector<double> done(3, -1);
  for (int i = 0; i < 3; ++i)
    sg::Actor::create("burst", node.host, [&, i] {
      platform.compute(node, 100e-6);
      done[i] = sg::Engine::get_clock() - t0;
    });
  engine->run();
  EXPECT_NEAR(done[0], 100e-6, 1e-12);
  EXPECT_NEAR(done[1], 100e-6, 1e-12);
  EXPECT_NEAR(done[2], 200e-6, 1e-12);
  EXPECT_NEAR(node.cores->busy_s(), 300e-6, 1e-12);
  // Slices: 1.5 ms on 2 cores (Linux's base slice x (1 + log2 2)).
  EXPECT_NEAR(node.time_slice_s, 1.5e-3, 1e-12);
}

TEST(Cpu, AWindowCountsTheWorkServedInItNotTheWorkBooked) {
  // Three 100 us bursts booked at once on one core run until 300 us. A window from 0 to 150 us was
  // busy 150 us of its 150: the 150 us still queued at its end are the next window's, which starts
  // with them as busy time (the report's utilisation: 1, where counting bookings said 2).
  poolsim::FcfsServerBank core(1, poolsim::FcfsServerBank::Dispatch::Cores);
  for (int i = 0; i < 3; ++i) core.book(0, 0, 100e-6);
  EXPECT_NEAR(core.busy_s() - core.backlog_s(150e-6), 150e-6, 1e-12);
  core.reset_counters(150e-6);
  EXPECT_NEAR(core.busy_s(), 150e-6, 1e-12);
  EXPECT_NEAR(core.backlog_s(300e-6), 0.0, 1e-12);
}

TEST(Cpu, IdleGapsBookedAheadAreNotCountedAsWork) {
  // Work booked ahead of now (a request that reaches an NVMe-oF target after its fabric crossing, a
  // read that reaches a flash unit after the device's delay) leaves its server idle until it starts.
  // At 5 s, two 1 s bursts booked at 0 for 10 s and 20 s on one server are 2 s of work still to do,
  // not the 16 s to the server's free_at: a window from 0 to 5 s served nothing (the figure was
  // (2 - 16) / 5 before), one from 5 to 15 s served 1 s.
  for (auto dispatch : {poolsim::FcfsServerBank::Dispatch::Cores, poolsim::FcfsServerBank::Dispatch::ByAddress}) {
    poolsim::FcfsServerBank bank(1, dispatch);
    bank.book(0, 10, 1);
    bank.book(0, 20, 1);
    EXPECT_NEAR(bank.backlog_s(5), 2.0, 1e-12);
    EXPECT_NEAR(bank.busy_s() - bank.backlog_s(5), 0.0, 1e-12);
    bank.reset_counters(5);
    EXPECT_NEAR(bank.busy_s() - bank.backlog_s(15), 1.0, 1e-12);
    EXPECT_NEAR(bank.backlog_s(20.5), 0.5, 1e-12);
    // A booking at now on the idle server keeps no gap; the gaps past are forgotten.
    bank.book(30, 30, 1);
    EXPECT_NEAR(bank.backlog_s(30), 1.0, 1e-12);
  }
  // The same per named server (a node's per-core shares with an interrupt core): core 0's window
  // from 0 to 5 s served nothing of its 1 s booked for 10 s.
  poolsim::FcfsServerBank cores(2, poolsim::FcfsServerBank::Dispatch::SharedQueue);
  cores.book_on(0, 0, 10, 1);
  cores.book_on(1, 0, 0, 2);
  EXPECT_NEAR(cores.server_busy_s()[0] - cores.server_backlog_s(0, 5), 0.0, 1e-12);
  EXPECT_NEAR(cores.server_busy_s()[1] - cores.server_backlog_s(1, 5), 2.0, 1e-12);
  cores.reset_counters(5);
  EXPECT_NEAR(cores.server_busy_s()[0] - cores.server_backlog_s(0, 12), 1.0, 1e-12);
}

TEST(Cpu, ALongBurstLetsAShortOneInAfterItsSlice) {
  // One core, slice 0.75 ms: a 2 ms burst and a 0.1 ms one ready at once. The short one runs after
  // the long one's first slice, not after all of it.
  auto scenario = scenario_from("compute: {cores: 1}\nstorage: {kind: local, device: pcie4-nvme-tlc}\n");
  auto engine = create_engine();
  Platform platform(scenario, *engine);
  auto& node = platform.compute()[0];
  const double t0 = sg::Engine::get_clock();  // SimGrid's clock goes on from the binary's earlier tests
  double long_done = -1, short_done = -1;
  sg::Actor::create("long", node.host, [&] {
    platform.compute(node, 2e-3);
    long_done = sg::Engine::get_clock() - t0;
  });
  sg::Actor::create("short", node.host, [&] {
    platform.compute(node, 0.1e-3);
    short_done = sg::Engine::get_clock() - t0;
  });
  engine->run();
  EXPECT_NEAR(short_done, 0.85e-3, 1e-12);
  EXPECT_NEAR(long_done, 2.1e-3, 1e-12);
}

namespace {
// A local disk whose completions interrupt one CPU (one request queue, as traces/local-vm's vda).
const char* kOneQueueDisk =
    "compute: {cores: 2}\n"
    "devices: {one-queue-disk: {kind: virtual-disk, source: test, capacity: 100GiB, read_latency: 70us,\n"
    "          read_iops: 40000/s, read_bandwidth: 1GB/s, write_bandwidth: 1GB/s, write_latency: 70us,\n"
    "          write_iops: 30000/s, flush_latency: 100us, completion_interrupts: one-core}}\n"
    "storage: {kind: local, device: one-queue-disk}\n";
}  // namespace

TEST(Cpu, ThreadsWokenByOneQueuesCompletionsShareItsInterruptCore) {
  // Two threads woken by completions at once, 1 ms of work each: both run on the interrupt's core,
  // one after the other, though the other core is idle (the wakee goes to the waker's CPU). The
  // same bursts woken otherwise run side by side.
  auto scenario = scenario_from(kOneQueueDisk);
  auto engine = create_engine();
  Platform platform(scenario, *engine);
  auto& node = platform.compute()[0];
  ASSERT_EQ(node.irq_core, 0);
  const double t0 = sg::Engine::get_clock();  // SimGrid's clock goes on from the binary's earlier tests
  std::vector<double> done(4, -1);
  std::vector<int> core(4, -1);
  for (int i = 0; i < 4; ++i)
    sg::Actor::create("woken", node.host, [&, i] {
      double start = t0 + (i < 2 ? 0.0 : 10e-3);
      platform.compute_from(node, start, 1e-3, 0.0, /*on_irq_core=*/i < 2, &core[i]);
      done[i] = sg::Engine::get_clock() - t0;
    });
  engine->run();
  EXPECT_NEAR(std::min(done[0], done[1]), 1e-3, 1e-12);
  EXPECT_NEAR(std::max(done[0], done[1]), 2e-3, 1e-12);
  EXPECT_EQ(core[0], 0);
  EXPECT_EQ(core[1], 0);
  EXPECT_NEAR(done[2], 11e-3, 1e-12);
  EXPECT_NEAR(done[3], 11e-3, 1e-12);
  EXPECT_NE(core[2], core[3]);
}

TEST(Cpu, AWokenThreadWaitsForItsBusyCoreUnlessAnotherIsIdle) {
  // Per-core queues: a thread last on core 0 queues there while core 0 is busy and core 1 is busy
  // too, even when core 1 frees first (a busy core's queue is not shared); with core 1 idle it
  // moves there at once.
  auto scenario = scenario_from(kOneQueueDisk);
  auto engine = create_engine();
  Platform platform(scenario, *engine);
  auto& node = platform.compute()[0];
  const double t0 = sg::Engine::get_clock();  // SimGrid's clock goes on from the binary's earlier tests
  int on_core0 = -1, on_core1 = -1, sticky = 0, mover = 0;
  double sticky_done = -1, mover_done = -1;
  sg::Actor::create("long-on-0", node.host, [&] { platform.compute_from(node, t0, 1e-3, 0.0, true, &on_core0); });
  sg::Actor::create("short-on-1", node.host, [&] {
    on_core1 = 1;
    platform.compute_from(node, t0, 0.2e-3, 0.0, false, &on_core1);
  });
  sg::Actor::create("sticky", node.host, [&] {
    platform.compute_from(node, t0 + 0.1e-3, 0.1e-3, 0.0, false, &sticky);  // last ran on core 0
    sticky_done = sg::Engine::get_clock() - t0;
  });
  sg::Actor::create("mover", node.host, [&] {
    mover = 0;
    platform.compute_from(node, t0 + 0.5e-3, 0.1e-3, 0.0, false, &mover);  // core 0 busy, core 1 idle
    mover_done = sg::Engine::get_clock() - t0;
  });
  engine->run();
  EXPECT_EQ(on_core0, 0);
  EXPECT_EQ(on_core1, 1);
  EXPECT_NEAR(sticky_done, 1.1e-3, 1e-12);  // behind the 1 ms burst on core 0, not after core 1's 0.2 ms
  EXPECT_EQ(sticky, 0);
  EXPECT_NEAR(mover_done, 0.6e-3, 1e-12);
  EXPECT_EQ(mover, 1);
  // Each core's busy time is kept for the report.
  const auto& busy = node.cores->server_busy_s();
  ASSERT_EQ(busy.size(), 2u);
  EXPECT_NEAR(busy[0], 1.1e-3, 1e-12);
  EXPECT_NEAR(busy[1], 0.3e-3, 1e-12);
}

TEST(Cpu, AWokenThreadPrefersItsLastCoreWhenBothAreIdle) {
  // Both cores idle: a thread last on core 1 stays there (cache-hot), not on the first idle core.
  auto scenario = scenario_from(kOneQueueDisk);
  auto engine = create_engine();
  Platform platform(scenario, *engine);
  auto& node = platform.compute()[0];
  int last = 1;
  sg::Actor::create("woken", node.host, [&] { platform.compute_from(node, 0.0, 0.1e-3, 0.0, false, &last); });
  engine->run();
  EXPECT_EQ(last, 1);
  const auto& busy = node.cores->server_busy_s();
  ASSERT_EQ(busy.size(), 2u);
  EXPECT_NEAR(busy[0], 0.0, 1e-15);
  EXPECT_NEAR(busy[1], 0.1e-3, 1e-12);
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

TEST(Fabric, APageReadsTimeSplitsIntoDeviceFabricAndTargetAsTheClosedForms) {
  // One thread of point selects on a pool far smaller than its data: every read alone on the path
  // (nothing is written), so each part is its closed form: the device's service plus its transfer,
  // the capsule's and the page's crossings (latency + size / bandwidth each), the target's CPU. On
  // local storage the device is all of it.
  const std::string workload =
      "compute: {cores: 4}\n"
      "workload: {kind: sysbench, test: oltp_point_select, tables: 2, table_size: 100000, rand_type: uniform, threads: 1}\n"
      "database: {buffer_pool: 8MiB, io_capacity: 2000}\n"
      "simulation: {warmup: 0.2s, batch: 0.1s, min_batches: 5, max_duration: 0.5s}\n";
  auto scenario = scenario_from(workload +
                                "storage: {kind: pool, nodes: [{name: s1, devices: 1, ports: 1}]}\n"
                                "fabric: {preset: ib-hdr100}\n");
  const auto& spec = scenario.device("pcie4-nvme-tlc");
  const double page = scenario.database.page_bytes;
  const double device_s = spec.unit_read_service_s(page) + page / spec.read_bandwidth_Bps;
  const auto& f = scenario.fabric;
  const double one_way = route_latency_s(scenario);
  const double fabric_s = (one_way + f.capsule_bytes / f.rate_Bps) + (one_way + page / f.rate_Bps);
  auto pool = run_point(scenario)["innodb"][0];
  ASSERT_GT(pool["page_reads_per_txn"].get<double>(), 0.5);
  const auto& read = pool["read_us"];
  EXPECT_NEAR(read["device"].get<double>(), device_s * 1e6, 1e-6);
  EXPECT_NEAR(read["fabric"].get<double>(), fabric_s * 1e6, 1e-6);
  EXPECT_NEAR(read["nvmeof_cpu"].get<double>(), f.target_cpu_s / scenario.storage.nodes[0].core_speed * 1e6, 1e-6);
  EXPECT_NEAR(read["mean"].get<double>(),
              read["device"].get<double>() + read["fabric"].get<double>() + read["nvmeof_cpu"].get<double>(), 1e-9);

  auto local = run_point(scenario_from(workload + "storage: {kind: local, device: pcie4-nvme-tlc}\n"))["innodb"][0]["read_us"];
  EXPECT_NEAR(local["device"].get<double>(), device_s * 1e6, 1e-6);
  EXPECT_DOUBLE_EQ(local["fabric"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(local["mean"].get<double>(), local["device"].get<double>());
}
