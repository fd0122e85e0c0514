// The hardware of a scenario on SimGrid: compute and storage hosts, their devices, the fabric, and
// one StoragePath per compute node (local devices, one or striped, or a striped volume reached over NVMe-oF).
#pragma once
#include <simgrid/s4u.hpp>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "platform/device.h"
#include "platform/server_bank.h"
#include "scenario/scenario.h"

namespace poolsim {

// SimGrid flop rate of a reference core (core_speed 1.0): CPU costs are written in seconds of such
// a core and executed as seconds x kReferenceFlops.
constexpr double kReferenceFlops = 1e9;

// Where the time of one IO went, for latency breakdowns.
struct IoTiming {
  double device_s = 0;   // queueing and service in the device
  double network_s = 0;  // fabric latency and transfer
  double cpu_s = 0;      // NVMe-oF processing (initiator and target), including queueing for cores
  double total() const { return device_s + network_s + cpu_s; }
};

// The storage a compute node sees. Calls block the calling SimGrid actor until the IO completes.
class StoragePath {
public:
  virtual ~StoragePath() = default;
  // `issue_cpu_done`: the caller already ran the per-IO issuing CPU (issue_cpu_s()) in its own CPU
  // burst before the IO, which saves an execution per IO (the guide: merge CPU between two waits).
  virtual IoTiming read(std::uint64_t offset_bytes, double bytes, bool issue_cpu_done = false) = 0;
  // The completion time of a read issued now, its issuing CPU done, without waiting: the same
  // bookings as read(..., true), for a caller that waits for it by other means (a timer callback).
  virtual double book_read(std::uint64_t offset_bytes, double bytes) = 0;
  virtual IoTiming write(std::uint64_t offset_bytes, double bytes, WriteQueue queue) = 0;
  virtual IoTiming flush() = 0;
  virtual double capacity_bytes() const = 0;
  // Files of `bytes` now live on this path: each device holds its stripe share as valid data.
  virtual void hold(double bytes) = 0;
  virtual bool atomic_writes() const = 0;
  // Whether the server finds the files on a rotational device (MariaDB's neighbour flushing).
  virtual bool rotational() const { return false; }
  // CPU the compute node spends per IO in its own IO path (beyond NVMe-oF's initiator cost).
  virtual double host_cpu_per_io_s() const { return 0; }
  // CPU the compute node spends per page write in its own IO path (the device's `host_cpu_per_write`,
  // else its per-IO figure).
  virtual double host_cpu_per_write_s() const { return host_cpu_per_io_s(); }
  // CPU the compute node spends per flush (fsync) in its own IO path.
  virtual double host_cpu_per_flush_s() const { return 0; }
  // CPU the compute node spends issuing one IO on this path before it waits (NVMe-oF initiator).
  virtual double issue_cpu_s() const { return 0; }

  // The reads booked since the last reset and where their time went, summed: a page read's latency
  // split into the device, the fabric and NVMe-oF's processing, for reports.
  struct ReadTotals {
    std::uint64_t reads = 0;
    IoTiming time;
  };
  const ReadTotals& read_totals() const { return read_totals_; }
  void reset_read_totals() { read_totals_ = ReadTotals{}; }

protected:
  void count_read(const IoTiming& t) {
    ++read_totals_.reads;
    read_totals_.time.device_s += t.device_s;
    read_totals_.time.network_s += t.network_s;
    read_totals_.time.cpu_s += t.cpu_s;
  }

private:
  ReadTotals read_totals_;
};

// One direction of a fabric port. Messages are serialised at line rate, first come first served, in
// the first idle gap at or after they are ready (they reach a link out of order, as devices finish
// out of order). poolsim's messages are pages and capsules (16 KiB take 1.3 us at 100 Gb/s), for
// which FCFS and an adapter's per-packet round robin give the same mean; computing the time at
// submission makes a transfer cost no SimGrid activity.
class FabricLink {
public:
  FabricLink(std::string name, double rate_Bps) : name_(std::move(name)), rate_Bps_(rate_Bps) {}
  // The time the last byte of a message of `bytes` ready at `ready_s` has crossed this link.
  double serialise(double now_s, double ready_s, double bytes) {
    bytes_ += bytes;
    return line_.book(now_s, ready_s, bytes / rate_Bps_);
  }
  const std::string& name() const { return name_; }
  double rate_Bps() const { return rate_Bps_; }
  // Bytes booked since the last reset, those still to cross after `now_s` included.
  double bytes() const { return bytes_; }
  // Bytes that crossed between the last reset and `now_s`: a message is booked whole when it is
  // sent, so a long one (NDB's) counted at booking put a window's utilisation above 1.
  double served_bytes(double now_s) const { return bytes_ - line_.backlog_s(now_s) * rate_Bps_; }
  // A window opening at `now_s` counts the bytes booked before it that cross in it.
  void reset_counters(double now_s) { bytes_ = line_.backlog_s(now_s) * rate_Bps_; }

private:
  std::string name_;
  double rate_Bps_;
  double bytes_ = 0;
  GapServer line_;
};

struct StorageNode {
  StorageNodeConfig config;
  simgrid::s4u::Host* host = nullptr;
  std::vector<std::unique_ptr<NvmeDevice>> devices;
  std::vector<FabricLink> port_tx, port_rx;  // per port: to compute nodes / from compute nodes
  std::unique_ptr<FcfsServerBank> cores;     // NVMe-oF target processing
};

struct ComputeNode {
  simgrid::s4u::Host* host = nullptr;   // where the node's actors run
  std::unique_ptr<FcfsServerBank> cores;  // the node's CPU: one FCFS queue in front of its cores
  double core_speed = 1.0;              // relative to the reference core
  double time_slice_s = 0;              // the scheduler's slice: longer bursts are served in slices
  std::vector<std::unique_ptr<NvmeDevice>> local_devices;  // local mode: one, or the members of a stripe
  FabricLink nic_tx{"", 1.0}, nic_rx{"", 1.0};  // pool mode: the node's adapter
  std::unique_ptr<StoragePath> storage;
  // The core that takes the storage's completion interrupts (-1: each completion interrupts the
  // core that submitted it, as NVMe's per-CPU queues do). When set, the cores keep per-core run
  // queues as Linux does: a thread woken by its page read's completion runs on this core (the wakee goes to the
  // waker's CPU), any other wake-up goes to the thread's last core, or to an idle one when that is
  // busy, and a busy core's waiting threads are not taken by the other cores.
  int irq_core = -1;
  // The bursts booked since the last reset, in reference-core seconds: their count, sum and sum of
  // squares, for the report's mean and squared coefficient of variation.
  std::uint64_t bursts = 0;
  double burst_sum_s = 0, burst_sumsq_s = 0;
  // The wake-up cost offered with the bursts (round trips x the profile's idle wake-up CPU) and the
  // part charged because the burst's core was idle: their ratio is the share of round trips that
  // woke on an idle core, which calibration needs to fit that cost consistently with the model.
  double idle_wakeup_offered_s = 0, idle_wakeup_charged_s = 0;
};

class Platform {
public:
  // Builds the SimGrid platform into `engine` (call before engine.run()).
  Platform(const Scenario& scenario, simgrid::s4u::Engine& engine);
  ~Platform();

  std::vector<ComputeNode>& compute() { return compute_; }
  std::vector<StorageNode>& storage_nodes() { return storage_; }
  const Scenario& scenario() const { return scenario_; }
  // The database's files on each compute node's storage: unless storage.valid_data is full, the
  // devices hold only these as valid data (their write buffers drain at that amplification).
  void place_data(double bytes_per_node);

  // Runs `reference_s` seconds of reference-core CPU work on the calling actor's compute node: it
  // queues for a core (FCFS), and a burst longer than the scheduler's slice goes back to the queue
  // after each slice, as a time-sharing scheduler serves it.
  void compute(ComputeNode& node, double reference_s) { compute_from(node, now_s(), reference_s); }
  // The same for work that becomes ready at `ready_s` >= now (after a known delay): one timer in all
  // when the burst fits in a slice.
  // `idle_extra_s` is added when a core is idle at `ready_s` (the cost of waking on an idle core).
  void compute_from(ComputeNode& node, double ready_s, double reference_s, double idle_extra_s = 0, bool on_irq_core = false, int* last_core = nullptr);
  // The end of the burst compute_from would run, booked now without waiting, when it fits in one
  // scheduler slice (the same booking compute_from makes); a negative value when it does not (it is
  // then not booked). For a burst followed at once by an IO issued at its end (one wait for both).
  double book_burst(ComputeNode& node, double ready_s, double reference_s, double idle_extra_s = 0, bool on_irq_core = false, int* last_core = nullptr);
  // The completion time of `reference_s` of CPU work on `node` ready at `ready_s` (no waiting: for
  // short work inside a chain of analytic stages, such as an NVMe-oF initiator's issuing).
  double book_cpu(ComputeNode& node, double ready_s, double reference_s);
  // The time the last byte of a message sent at `ready_s` reaches the other end: serialised on the
  // sender's link and (cut-through) on the receiver's, plus the route's latency.
  double transfer(FabricLink& out, FabricLink& in, double ready_s, double bytes) const;
  // Adapter, switch and adapter: the latency of a route between a compute and a storage node.
  double route_latency_s() const;

  static double now_s() { return simgrid::s4u::Engine::get_clock(); }
  void reset_counters(double now_s);
  // The idle wake-up CPU `idle_extra_s` offered and whether the burst's core was idle at `at_s`:
  // counts both, and returns what is charged.
  double idle_wakeup_charge(ComputeNode& node, int core, double at_s, double idle_extra_s);
  // Utilisations since the last reset: devices, links, CPUs.
  nlohmann::ordered_json report(double now_s) const;

private:
  // Counts one burst for the report.
  static void count_burst(ComputeNode& node, double work_s);
  // The core a burst ready at `t` runs on when the node keeps per-core queues (irq_core >= 0): the
  // interrupt's core after a completion; else the thread's last core if free, else an idle one,
  // else the last core (a busy core's queue is not shared). -1: the shared queue (the first free core).
  static int pick_core(const ComputeNode& node, double t, bool on_irq_core, const int* last_core);
  // Whether `core` (-1: any core) is idle at `t`.
  static bool core_idle_at(const ComputeNode& node, int core, double t);
  // Books `service_s` of core time at `at_s` on `core` (-1: the first free core) and records the core
  // the thread ran on in `last_core` (per-core queues only); returns the end.
  static double book_core(ComputeNode& node, int core, double at_s, double service_s, int* last_core);

  const Scenario& scenario_;
  std::vector<ComputeNode> compute_;
  std::vector<StorageNode> storage_;
  double counters_since_s_ = 0;
};

}  // namespace poolsim
