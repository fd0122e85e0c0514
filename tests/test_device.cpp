// The device model against closed forms: service time when idle, M/M/1 and M/M/c mean response
// times, Little's law in a closed loop, the write buffer's drain rate.
#include <gtest/gtest.h>

#include <cmath>
#include <deque>
#include <random>
#include <vector>

#include "core/queueing.h"
#include "platform/platform.h"
#include "sim/simulation.h"
#include "test_support.h"

using namespace poolsim;
using poolsim::testing::scenario_from;

namespace {

// A device section for queueing closed forms: exponential service, interfaces too wide to matter;
// `read` holds the read figures (latency, IOPS, units, queue, ...), one `key: value` per line.
std::string exp_server_device(const std::string& name, const std::string& read) {
  return "devices:\n  " + name + ":\n" +
         "    kind: nvme\n"
         "    source: \"test fixture: an exponential server for queueing closed forms\"\n"
         "    capacity: 1TB\n" + read +
         "    read_bandwidth: 1000GB/s\n"  // a device's ceiling: 4 ns per 4 KiB beside 100 us of service
         "    write_bandwidth: 1000GB/s\n"
         "    write_latency: 10us\n"
         "    write_iops: 100K/s\n"
         "    flush_latency: 10us\n"
         "    service: exponential\n";
}

// An exponential server with mean service 100 us (4 KiB requests, interface time negligible).
std::string queueing_scenario(int units, const std::string& queue, const std::string& rate, double max_s) {
  return exp_server_device("exp-server", "    read_latency: 100us\n    read_iops: 10K/s\n    parallel_units: " +
                                             std::to_string(units) + "\n    queue: " + queue + "\n") +
         R"(storage: {kind: local, device: exp-server}
workload:
  fio: {rw: randread, bs: 4KiB, rate: )" + rate + R"(}
simulation: {seed: 3, warmup: 1s, batch: 1s, min_batches: 10, target_ci: 0.0001%, max_duration: )" +
         std::to_string(max_s) + R"(s}
)";
}

// Erlang C: probability of waiting in M/M/c with offered load a = lambda * S.
double erlang_c(int c, double a) {
  double sum = 0, term = 1;
  for (int k = 0; k < c; ++k) {
    if (k > 0) term *= a / k;
    sum += term;
  }
  double last = term * a / c;  // a^c / c!
  double rho = a / c;
  double top = last / (1 - rho);
  return top / (sum + top);
}

double mmc_response_s(int c, double lambda, double service_s) {
  double a = lambda * service_s;
  return service_s + erlang_c(c, a) * service_s / (c - a);
}

double simulated_mean_latency_s(const std::string& yaml) {
  auto result = run_point(scenario_from(yaml));
  return result["latency_us"]["mean"].get<double>() * 1e-6;
}

}  // namespace

TEST(NvmeDevice, IdleDeviceReturnsItsServiceTime) {
  auto scenario = scenario_from("storage: {kind: local, device: pcie4-nvme-tlc}\n"
                                "workload: {fio: {rw: randread, bs: 16KiB, iodepth: 1}}\n"
                                "simulation: {warmup: 1ms, batch: 10ms, max_duration: 100ms}\n");
  const auto& spec = scenario.device("pcie4-nvme-tlc");
  double expected = spec.unit_read_service_s(16384) + 16384 / spec.read_bandwidth_Bps;
  auto r = run_point(scenario);
  EXPECT_NEAR(r["latency_us"]["mean"].get<double>() * 1e-6, expected, 1e-9);
  EXPECT_NEAR(r["latency_us"]["max"].get<double>() * 1e-6, expected, 1e-9);
  // QD1: one IO at a time, so IOPS = 1 / latency.
  EXPECT_NEAR(r["iops"].get<double>(), 1 / expected, 1 / expected * 0.01);
}

TEST(NvmeDevice, DirectCallsMatchTheDatasheetShape) {
  DeviceSpec spec = scenario_from("{}").device("pcie4-nvme-tlc");
  NvmeDevice device(spec, 1);
  // 4 KiB at QD1 is the datasheet latency; 16 KiB adds the channel transfer of 12 KiB.
  EXPECT_NEAR(device.read(0, 0, 4096), spec.read_latency_s, 1e-12);
  EXPECT_NEAR(device.read(1, 0, 16384) - 1, spec.read_latency_s + 12288 / spec.read_transfer_Bps + 12288 / spec.read_bandwidth_Bps, 1e-12);
  // A write is acknowledged from the buffer; a flush with power-loss protection does not wait.
  EXPECT_NEAR(device.write(2, 0, 4096) - 2, spec.write_latency_s, 1e-12);
  EXPECT_NEAR(device.flush(3) - 3, spec.flush_latency_s, 1e-12);
}

TEST(NvmeDevice, WriteBufferDrainsAtTheSteadyStateRate) {
  DeviceSpec spec = scenario_from("{}").device("samsung-850-pro");
  NvmeDevice device(spec, 1);
  // Writes far faster than the drain: once the buffer is full, acceptance follows the drain rate.
  double t = 0, first_full = -1;
  const double bytes = 16384;
  int n = 0;
  for (; n < 200000; ++n) {
    double done = device.write(t, 0, bytes);
    if (first_full < 0 && done - t > 2 * spec.write_latency_s) first_full = t;
    t = done;
  }
  double written = n * bytes;
  // Sustained rate over the whole run: cache + drain x time.
  EXPECT_NEAR(written, spec.write_cache_bytes + spec.drain_Bps() * t, written * 0.001);
  // Without power-loss protection a flush waits until the buffer has drained.
  double flushed = device.flush(t);
  EXPECT_GT(flushed - t, spec.write_cache_bytes / spec.drain_Bps() * 0.99);
}

// Greedy / FIFO garbage collection simulated page by page: `blocks` erase blocks of `pages` pages,
// host writes uniform over a fraction 1 / a of them, the oldest block cleaned when no block is free
// (its valid pages rewritten at the head). Returns flash page writes per host page write.
double simulated_write_amplification(double a, int blocks, int pages, std::uint64_t seed) {
  const int physical = blocks * pages;
  const int logical = static_cast<int>(physical / a);
  std::vector<int> where(logical, -1);        // logical page -> physical slot
  std::vector<int> owner(physical, -1);       // physical slot -> logical page (-1: invalid or free)
  std::deque<int> order;                      // blocks in the order they were filled (FIFO)
  std::vector<int> free_blocks;
  for (int b = blocks - 1; b >= 0; --b) free_blocks.push_back(b);
  int head = free_blocks.back(), fill = 0;
  free_blocks.pop_back();
  std::uint64_t flash = 0, host = 0;
  auto program = [&](int lpn) {
    if (fill == pages) {
      order.push_back(head);
      head = free_blocks.back();
      free_blocks.pop_back();
      fill = 0;
    }
    int slot = head * pages + fill++;
    if (where[lpn] >= 0) owner[where[lpn]] = -1;
    where[lpn] = slot;
    owner[slot] = lpn;
    ++flash;
  };
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> lpn(0, logical - 1);
  for (int i = 0; i < logical; ++i) program(i);  // fill once, then overwrite at random
  const std::uint64_t warm = 20ull * physical, measured = 40ull * physical;
  std::uint64_t flash_at = 0, host_at = 0;
  for (std::uint64_t i = 0; i < warm + measured; ++i) {
    if (i == warm) flash_at = flash, host_at = host;
    while (free_blocks.empty() && fill == pages) {  // clean the oldest block
      int victim = order.front();
      order.pop_front();
      std::vector<int> valid;
      for (int p = 0; p < pages; ++p)
        if (owner[victim * pages + p] >= 0) valid.push_back(owner[victim * pages + p]), owner[victim * pages + p] = -1;
      free_blocks.push_back(victim);
      for (int v : valid) program(v);
    }
    program(lpn(rng));
    ++host;
  }
  return static_cast<double>(flash - flash_at) / static_cast<double>(host - host_at);
}

TEST(WriteAmplification, MatchesThePublishedValueAndItsLimits) {
  // Xiang & Kurkoski (arXiv:1110.4245): over-provisioning 0.3 gives 2.36 (their simulation: 2.35).
  EXPECT_NEAR(write_amplification(1.3), 2.36, 0.01);
  EXPECT_NEAR(write_amplification(50), 1.0, 1e-9);   // a nearly empty device copies nothing
  EXPECT_GT(write_amplification(1.05), 10);           // a nearly full one copies most of each block
  EXPECT_TRUE(std::isinf(write_amplification(1.0)));
  for (double a : {1.1, 1.5, 2.0, 4.0}) EXPECT_LT(write_amplification(a * 1.01), write_amplification(a));
}

TEST(WriteAmplification, MatchesAPageLevelFifoCleaner) {
  // The closed form is the many-pages-per-block limit of FIFO cleaning; 256 pages per block is close.
  for (double a : {1.15, 1.3, 2.0}) {
    double simulated = simulated_write_amplification(a, 256, 256, 7);
    EXPECT_NEAR(simulated, write_amplification(a), write_amplification(a) * 0.03) << "physical / live " << a;
  }
}

TEST(NvmeDevice, WriteBufferDrainsFasterWhenTheDeviceHoldsLittleData) {
  DeviceSpec spec = scenario_from("{}").device("pcie4-nvme-tlc");
  ASSERT_GT(spec.raw_capacity_bytes, spec.capacity_bytes);
  const double full_span_Bps = spec.write_iops * spec.reference_block_bytes;
  // Full: the datasheet's steady state. The program bandwidth it implies, at amplification 1 when
  // the device is nearly empty, capped by the interface.
  EXPECT_NEAR(spec.drain_Bps(), full_span_Bps, 1e-6 * full_span_Bps);
  const double program_Bps = full_span_Bps * write_amplification(spec.raw_capacity_bytes / spec.capacity_bytes);
  EXPECT_NEAR(spec.drain_Bps(spec.capacity_bytes / 1000), std::min(program_Bps, spec.write_bandwidth_Bps), 1e-3 * program_Bps);
  NvmeDevice device(spec, 1);
  EXPECT_NEAR(device.drain_Bps(), full_span_Bps, 1e-6 * full_span_Bps);
  device.add_live_bytes(200e9);
  EXPECT_NEAR(device.drain_Bps(), spec.drain_Bps(200e9), 1e-9 * program_Bps);
  EXPECT_GT(device.drain_Bps(), 3 * full_span_Bps);
  // A device without a raw capacity drains at write_iops whatever it holds.
  DeviceSpec unknown = spec;
  unknown.raw_capacity_bytes = 0;
  EXPECT_EQ(unknown.drain_Bps(1e9), full_span_Bps);
}

TEST(NvmeDevice, TheDatabaseFilesSetTheValidDataOfALocalSsd) {
  // 4 tables of 100k rows: the tablespaces plus the redo log are all the SSD holds, unless `full`.
  auto point = [](const std::string& valid) {
    return run_point(scenario_from("storage: {kind: local, device: pcie4-nvme-tlc, valid_data: " + valid + "}\n"
                                   "workload: {kind: sysbench, tables: 4, table_size: 100000, threads: 2}\n"
                                   "database: {buffer_pool: 64MiB, log_file_size: 48MiB}\n"
                                   "simulation: {warmup: 0.1s, batch: 0.1s, min_batches: 2, max_duration: 0.2s}\n"));
  };
  DeviceSpec spec = scenario_from("{}").device("pcie4-nvme-tlc");
  auto database = point("database")["devices"][0];
  auto full = point("full")["devices"][0];
  double valid = database["valid_data_GB"].get<double>() * 1e9;
  EXPECT_GT(valid, 4 * 100000 * 180.0);  // at least the rows
  EXPECT_LT(valid, 1e9);
  EXPECT_NEAR(database["write_drain_MBps"].get<double>(), spec.drain_Bps(valid) / 1e6, 1e-6);
  EXPECT_NEAR(full["valid_data_GB"].get<double>(), spec.capacity_bytes / 1e9, 1e-6);
  EXPECT_NEAR(full["write_drain_MBps"].get<double>(), spec.write_iops * spec.reference_block_bytes / 1e6, 1e-6);
}

TEST(Queueing, MM1AtUtilisationHalf) {
  double r = simulated_mean_latency_s(queueing_scenario(1, "per-unit", "5K/s", 100));
  double expected = 100e-6 / (1 - 0.5);
  EXPECT_NEAR(r, expected, expected * 0.03);
}

TEST(Queueing, MM1AtUtilisationFourFifths) {
  double r = simulated_mean_latency_s(queueing_scenario(1, "per-unit", "8K/s", 125));
  double expected = 100e-6 / (1 - 0.8);
  EXPECT_NEAR(r, expected, expected * 0.03);
}

TEST(Queueing, MMcAtUtilisationHalf) {
  double r = simulated_mean_latency_s(queueing_scenario(4, "shared", "20K/s", 25));
  double expected = mmc_response_s(4, 20e3, 100e-6);
  EXPECT_NEAR(r, expected, expected * 0.03);
}

TEST(Queueing, MMcAtUtilisationFourFifths) {
  double r = simulated_mean_latency_s(queueing_scenario(4, "shared", "32K/s", 31));
  double expected = mmc_response_s(4, 32e3, 100e-6);
  EXPECT_NEAR(r, expected, expected * 0.03);
}

// Little's law in a closed loop: N = X * R, with N the IOs in flight.
void expect_littles_law(const std::string& storage) {
  auto r = run_point(scenario_from("storage: " + storage + "\n"
                                   "workload: {fio: {rw: randrw, bs: 16KiB, iodepth: 24, fsync: 8}}\n"
                                   "simulation: {warmup: 10ms, batch: 20ms, max_duration: 1s}\n"));
  double x = r["operations"].get<double>() / r["simulated_s"].get<double>();
  double response = r["latency_us"]["mean"].get<double>() * 1e-6;
  EXPECT_NEAR(x * response, 24.0, 24.0 * 0.01);
}

TEST(Queueing, LittlesLawInAClosedLoop) { expect_littles_law("{kind: local, device: pcie4-nvme-tlc}"); }

TEST(Queueing, LittlesLawInAClosedLoopOverTheFabric) {
  expect_littles_law("{kind: pool, nodes: [{name: s1, devices: 2}]}");
}

// Latency against queue depth has fio's shape: flat while the units are mostly idle, rising once
// requests collide, and IOPS saturating at the interface bandwidth.
TEST(NvmeDevice, LatencyRisesWithQueueDepthPastTheParallelism) {
  auto points = load_scenarios_from_text("storage: {kind: local, device: pcie4-nvme-tlc}\n"
                                         "workload: {fio: {rw: randread, bs: 16KiB}}\n"
                                         "simulation: {warmup: 5ms, batch: 10ms, max_duration: 500ms}\n"
                                         "sweep: {workload.fio.iodepth: [1, 256]}\n",
                                         "test.yaml");
  auto results = run_points(points, 2);
  double qd1 = results[0]["latency_us"]["mean"].get<double>();
  double qd256 = results[1]["latency_us"]["mean"].get<double>();
  EXPECT_GT(qd256, 3 * qd1);
  const auto& spec = points[1].device("pcie4-nvme-tlc");
  double ceiling = spec.read_bandwidth_Bps / 16384;
  EXPECT_NEAR(results[1]["iops"].get<double>(), ceiling, ceiling * 0.03);
}

TEST(NvmeDevice, ReadsQueueBehindPrograms) {
  // One unit: a write's program keeps it busy for units x bytes / drain rate, and a read of the
  // same unit arriving meanwhile waits for the program before its own service.
  DeviceSpec spec = scenario_from("{}").device("samsung-850-pro");
  spec.parallel_units = 1;
  spec.read_priority = false;
  NvmeDevice device(spec, 1);
  double program_s = spec.unit_write_service_s(16384, spec.drain_Bps());
  EXPECT_NEAR(program_s, 16384 / spec.drain_Bps(), 1e-15);
  device.write(0, 0, 16384);
  double interface_s = 16384 / spec.write_bandwidth_Bps;  // the write reaches the buffer after its transfer
  double done = device.read(interface_s, 0, 16384);
  EXPECT_NEAR(done, interface_s + program_s + spec.unit_read_service_s(16384) + 16384 / spec.read_bandwidth_Bps, 1e-12);
}

TEST(NvmeDevice, ReadDelayOccupiesNoUnit) {
  // With read_service set, read_latency = delay + service: QD1 still sees read_latency, while two
  // reads of the one unit overlap their delays and queue only for the service.
  DeviceSpec spec = scenario_from("{}").device("samsung-850-pro");
  spec.parallel_units = 1;
  spec.read_service_s = 20e-6;
  spec.read_bandwidth_Bps = 1e15;
  NvmeDevice device(spec, 1);
  EXPECT_NEAR(device.read(0, 0, 4096), spec.read_latency_s, 1e-9);
  double t = 1.0, first = device.read(t, 0, 4096), second = device.read(t, 0, 4096);
  EXPECT_NEAR(first - t, spec.read_latency_s, 1e-9);
  EXPECT_NEAR(second - first, spec.read_service_s, 1e-9);
}

TEST(Queueing, ClosedLoopThroughputMatchesMva) {
  // A fitted virtual disk's shape (a delay plus one exponential server): closed-loop fio at each
  // queue depth against exact mean value analysis.
  for (int depth : {1, 2, 4, 8}) {
    std::string yaml = exp_server_device("vdisk",
                                         "    reference_block: 16KiB\n    read_latency: 64us\n    read_service: 25us\n"
                                         "    read_iops: 40K/s\n    parallel_units: 1\n    queue: shared\n") +
                       R"(storage: {kind: local, device: vdisk}
workload:
  fio: {rw: randread, bs: 16KiB, iodepth: )" + std::to_string(depth) + R"(}
simulation: {seed: 5, warmup: 0.2s, batch: 0.5s, min_batches: 10, target_ci: 0.5%, max_duration: 20s}
)";
    auto r = run_point(scenario_from(yaml));
    double expected = mva_throughput(depth, 64e-6 - 25e-6 - 16384 / 1000e12, 1, 25e-6);
    EXPECT_NEAR(r["iops"].get<double>(), expected, expected * 0.02) << depth;
  }
}

TEST(NvmeDevice, WithReadPriorityAProgramTakesOnlyAnIdleUnit) {
  // One unit busy with a read: a program arriving meanwhile does not queue on it, so a second read
  // waits only for the first; a program on an idle unit does delay the read that follows it.
  DeviceSpec spec = scenario_from("{}").device("samsung-850-pro");
  spec.parallel_units = 1;
  spec.read_bandwidth_Bps = spec.write_bandwidth_Bps = 1e15;
  ASSERT_TRUE(spec.read_priority);
  NvmeDevice device(spec, 1);
  double service = spec.unit_read_service_s(16384);
  double first = device.read(0, 0, 16384);
  device.write(0, 0, 16384);
  EXPECT_NEAR(device.read(0, 0, 16384), first + service, 1e-9);
  double t = 1.0;
  device.write(t, 0, 16384);
  EXPECT_NEAR(device.read(t, 0, 16384), t + spec.unit_write_service_s(16384, spec.drain_Bps()) + service, 1e-9);
}

TEST(NvmeDevice, ASuspendedProgramDelaysAReadOnlyToItsSuspendPoint) {
  // Program suspension: a read that meets a program waits program_suspend (the program's next
  // suspend point), not the rest of the program; the program then resumes, finishing later by the
  // read's service. A second read queued behind the first finds the program already suspended.
  DeviceSpec spec = scenario_from("{}").device("pcie4-nvme-tlc");
  spec.read_bandwidth_Bps = spec.write_bandwidth_Bps = 1e15;  // no interface time: unit times only
  spec.write_latency_s = 0;
  spec.program_suspend_s = 100e-6;  // every request below is at address 0: one unit of the many
  NvmeDevice device(spec, 1);
  double program_s = spec.unit_write_service_s(16384, spec.drain_Bps());
  double service = spec.unit_read_service_s(16384);
  double transfer = 16384 / spec.read_bandwidth_Bps;
  ASSERT_GT(program_s, spec.program_suspend_s + 2 * service);
  device.write(0, 0, 16384);
  double t = 10e-6;  // the program is under way
  double first = device.read(t, 0, 16384);
  EXPECT_NEAR(first, t + spec.program_suspend_s + service + transfer, 1e-12);
  EXPECT_NEAR(device.read(t, 0, 16384), first + service, 1e-12);
  // The program resumed after both reads: a third read once it is under way again meets it, and one
  // after its end (the program + the three reads it was suspended for) does not.
  double resumed = first + service + 1e-6;
  EXPECT_NEAR(device.read(resumed, 0, 16384), resumed + spec.program_suspend_s + service + transfer, 1e-12);
  double after = program_s + 3 * service + 1e-6;
  EXPECT_NEAR(device.read(after, 0, 16384), after + service + transfer, 1e-12);
  // Near its end a program finishes before it could suspend: the read waits only for the rest.
  double t2 = 1.0;
  device.write(t2, 0, 16384);
  double programmed = t2 + 16384 / spec.write_bandwidth_Bps + program_s;  // from when the buffer accepts it
  double late = programmed - 30e-6;
  EXPECT_NEAR(device.read(late, 0, 16384), programmed + service + transfer, 1e-12);
}

TEST(NvmeDevice, SuspendableProgramsQueueSoTheUnitsProgramTheWholeWriteRate) {
  // Every program queues at its unit (none is dropped because its unit was busy), so over a steady
  // write stream the units spend write rate x program time programming: utilisation = written
  // bytes / drain rate / units, the closed form of a unit at the drain rate.
  DeviceSpec spec = scenario_from("{}").device("pcie4-nvme-tlc");
  spec.parallel_units = 4;
  spec.program_suspend_s = 100e-6;
  NvmeDevice device(spec, 1);
  const double interval_s = 20e-6;
  const int writes = 20000;
  for (int i = 0; i < writes; ++i) {
    double t = i * interval_s;
    device.write(t, static_cast<std::uint64_t>(i) * 16384, 16384);
    device.read(t + interval_s / 2, static_cast<std::uint64_t>(i * 7) * 16384, 16384);
  }
  double programming_s = writes * 16384.0 / spec.drain_Bps() * spec.units();
  double reading_s = writes * spec.unit_read_service_s(16384);
  EXPECT_NEAR(device.unit_busy_s(), programming_s + reading_s, 1e-9 * programming_s);
}

TEST(NvmeDevice, SuspensionCutsTheMeanReadWaitToTheClosedForm) {
  // Poisson programs keep one die busy a fraction rho of the time; sparse Poisson reads of that die
  // find it programming with probability rho (PASTA), the program's remaining time uniform on (0, P).
  // Without suspension a read waits for all of it, rho P / 2 on average; with it, for at most the
  // suspend time s: rho E[min(U(0, P), s)] = rho (s - s^2 / (2 P)). (Programs queued behind the
  // current one, and the reads' own pushes of the programs, add well under 1 % at rho = 0.1; the
  // 100,000 reads' standard error is ~1 %. The tolerance, 1.5 %, separates min(R, s) from a flat
  // wait of s, 2.9 % apart here.)
  DeviceSpec spec = scenario_from("{}").device("pcie4-nvme-tlc");
  spec.read_bandwidth_Bps = spec.write_bandwidth_Bps = 1e15;
  const double suspend_s = 100e-6, rho = 0.1;
  const double program_s = spec.unit_write_service_s(16384, spec.drain_Bps());
  const double read_s = spec.unit_read_service_s(16384) + 16384 / spec.read_bandwidth_Bps;
  auto mean_read_wait = [&](double suspend) {
    DeviceSpec d = spec;
    d.program_suspend_s = suspend;
    NvmeDevice device(d, 1);
    std::mt19937_64 rng(7);
    std::exponential_distribution<double> next_write(rho / program_s), next_read(rho / program_s / 5);
    double t_write = next_write(rng), t_read = next_read(rng), wait = 0;
    int reads = 0;
    while (reads < 100000) {
      if (t_write < t_read) {
        device.write(t_write, 0, 16384);  // address 0: every program on the same die
        t_write += next_write(rng);
      } else {
        wait += device.read(t_read, 0, 16384) - t_read - read_s;
        ++reads;
        t_read += next_read(rng);
      }
    }
    return wait / reads;
  };
  ASSERT_GT(program_s, 4 * suspend_s);
  EXPECT_NEAR(mean_read_wait(suspend_s), rho * (suspend_s - suspend_s * suspend_s / (2 * program_s)),
              0.015 * rho * suspend_s);
  // The same stream without suspension: a program takes the die only when it is idle (the others
  // are not programmed there: an Erlang loss system M/G/1/1, which carries a / (1 + a) of an offered
  // load a) and a read waits for all of what is left of the one under way.
  const double carried = rho / (1 + rho);
  EXPECT_NEAR(mean_read_wait(-1), carried * program_s / 2, 0.015 * carried * program_s / 2);
}

TEST(NvmeDevice, ABlockingFlushWaitsForTheQueueAndHoldsBackLaterRequests) {
  // SATA: FLUSH CACHE is not queued. It starts when the read in flight has completed, and a read
  // issued while it runs starts only when it completes (transfer time = latency + size/bandwidth,
  // shifted to the flush's end).
  DeviceSpec spec = scenario_from("{}").device("samsung-850-pro");
  ASSERT_TRUE(spec.flush_blocks_io);
  spec.write_cache_bytes = 0;  // nothing buffered: the flush costs its latency alone
  spec.read_bandwidth_Bps = spec.write_bandwidth_Bps = 1e15;  // no interface queueing between the reads
  NvmeDevice device(spec, 1);
  double idle_read = device.read(0, 0, 16384);
  double t = 1.0;
  double in_flight = device.read(t, 0, 16384);
  double flushed = device.flush(t + 1e-6);
  EXPECT_NEAR(flushed, in_flight + spec.flush_latency_s, 1e-12);
  double held = device.read(t + 2e-6, 1 << 20, 16384);
  EXPECT_NEAR(held, flushed + idle_read, 1e-12);
  // The same device with a queued flush (NVMe): the read does not wait.
  spec.flush_blocks_io = false;
  NvmeDevice queued(spec, 1);
  queued.read(t, 0, 16384);
  queued.flush(t + 1e-6);
  EXPECT_NEAR(queued.read(t + 2e-6, 1 << 20, 16384), t + 2e-6 + idle_read, 1e-12);
}

TEST(NvmeDevice, AWriteFromItsOwnQueueSharesTheInterfaceWithTheFlushingBacklog) {
  // NVMe serves its submission queues in round robin: a log write issued while a flush batch has
  // 100 page writes queued at the interface shares it half and half with them (twice its transfer
  // time, then the acknowledgement), and the flushing's next page is moved back by its transfer only.
  // SATA takes one queue in order: the same write waits for the whole batch.
  DeviceSpec spec = scenario_from("{}").device("pcie4-nvme-tlc");
  ASSERT_TRUE(spec.round_robin_queues());
  spec.write_cache_bytes = 1e12;  // the buffer never fills: interface time and acknowledgement only
  const double page = 16384, log = 4096, pages = 100;
  const double page_s = page / spec.write_bandwidth_Bps, log_s = log / spec.write_bandwidth_Bps;
  const double ack_s = spec.write_latency_s - spec.reference_block_bytes / spec.write_bandwidth_Bps;
  NvmeDevice nvme(spec, 1);
  for (int i = 0; i < pages; ++i) nvme.write(0, i * page, page, WriteQueue::Flushing);
  EXPECT_NEAR(nvme.write(0, 1e9, log, WriteQueue::Own), 2 * log_s + ack_s, 1e-12);
  EXPECT_NEAR(nvme.write(0, 2e9, page, WriteQueue::Flushing), (pages + 1) * page_s + log_s + ack_s, 1e-12);
  // With no backlog the queue makes no difference: transfer time = latency + size / bandwidth.
  EXPECT_NEAR(nvme.write(1, 3e9, log, WriteQueue::Own) - 1, log_s + ack_s, 1e-12);
  // A backlog shorter than the write's transfer is shared for its length only.
  nvme.write(2, 0, page, WriteQueue::Flushing);
  EXPECT_NEAR(nvme.write(2, 1e9, 4 * page, WriteQueue::Own) - 2, 4 * page_s + page_s + ack_s, 1e-12);

  DeviceSpec sata_spec = spec;
  sata_spec.kind = "sata";
  ASSERT_FALSE(sata_spec.round_robin_queues());
  NvmeDevice sata(sata_spec, 1);
  for (int i = 0; i < pages; ++i) sata.write(0, i * page, page, WriteQueue::Flushing);
  EXPECT_NEAR(sata.write(0, 1e9, log, WriteQueue::Own), pages * page_s + log_s + ack_s, 1e-12);
}

TEST(NvmeDevice, FlushesRequestedBeforeThePendingOneStartsJoinIt) {
  // blk-flush: while a flush command waits (here behind a long read queue), later fsyncs join it
  // rather than queueing flush after flush; one requested after it started needs a new one.
  DeviceSpec spec = scenario_from("{}").device("samsung-850-pro");
  spec.write_cache_bytes = 0;
  spec.parallel_units = 1;
  NvmeDevice device(spec, 1);
  double last = 0;
  for (int i = 0; i < 10; ++i) last = device.read(0, 0, 16384);
  double first = device.flush(0);
  EXPECT_NEAR(first, last + spec.flush_latency_s, 1e-12);
  EXPECT_EQ(device.flush(last * 0.5), first);  // not started yet: joins
  double started = last + 1e-9;
  EXPECT_NEAR(device.flush(started), first + spec.flush_latency_s, 1e-12);  // after the next one
  EXPECT_EQ(device.counters().flushes, 3u);  // three fsyncs, whatever the commands
}

TEST(GapServer, WorkConservingBookingFillsShortGaps) {
  // Busy [0, 1] and [1.5, 3]: one unit of work ready at 0.5 takes the half-unit gap and then the
  // time after 3 (ends 3.5), where first-gap booking waits for a gap it fits whole (ends 4).
  GapServer gaps, whole;
  for (GapServer* s : {&gaps, &whole}) {
    s->book(0, 0, 1);
    s->book(0, 1.5, 1.5);
  }
  EXPECT_DOUBLE_EQ(gaps.book_work_conserving(0, 0.5, 1), 3.5);
  EXPECT_DOUBLE_EQ(whole.book(0, 0.5, 1), 4.0);
  // The server never idles while booked work is ready: five units ready at 0 around a booking at
  // [2, 3] end at 6 = 5 units of work + 1 busy.
  GapServer busy;
  busy.book(0, 2, 1);
  double last = 0;
  for (int i = 0; i < 5; ++i) last = busy.book_work_conserving(0, 0, 1);
  EXPECT_DOUBLE_EQ(last, 6.0);
  EXPECT_DOUBLE_EQ(busy.busy_s(), 6.0);
  // Work that fills a gap exactly ends at the gap's end; the next goes after the joined interval.
  GapServer exact;
  exact.book(0, 0, 1);
  exact.book(0, 2, 1);
  EXPECT_DOUBLE_EQ(exact.book_work_conserving(0, 1, 1), 2.0);
  EXPECT_DOUBLE_EQ(exact.book_work_conserving(0, 0, 0.5), 3.5);
  // Intervals already past (before `now`) are forgotten without changing what comes after.
  EXPECT_DOUBLE_EQ(exact.book_work_conserving(10, 10, 1), 11.0);
}

// Busy time is counted when work is booked; a window counts what was served in it: the booked
// intervals' parts after its end are the backlog, and a window that opens inside an interval
// carries that interval's rest.
TEST(GapServer, TheBacklogIsTheBookedWorkAfterATime) {
  GapServer link;
  link.book(0, 0, 1);    // [0, 1]
  link.book(0, 2, 3);    // [2, 5]
  link.book(0, 4, 0.5);  // [5, 5.5]: joined to the one before
  EXPECT_DOUBLE_EQ(link.busy_s(), 4.5);
  EXPECT_DOUBLE_EQ(link.backlog_s(0), 4.5);
  EXPECT_DOUBLE_EQ(link.backlog_s(3), 2.5);
  EXPECT_DOUBLE_EQ(link.backlog_s(6), 0.0);
  link.reset_counters(3);  // a window from 3 ...
  EXPECT_DOUBLE_EQ(link.busy_s() - link.backlog_s(4), 1.0);  // ... to 4 was busy throughout
  FabricLink wire("l", 1e6);  // 1 MB/s
  wire.serialise(0, 0, 3e6);  // 3 s on the wire
  EXPECT_DOUBLE_EQ(wire.served_bytes(1), 1e6);
  wire.reset_counters(1);
  EXPECT_DOUBLE_EQ(wire.served_bytes(2), 1e6);
}
