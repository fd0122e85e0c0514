// Storage devices: an SSD (or RAM) as a queueing device with internal parallelism.
//
// Shape (see scenarios/catalogue/devices.yaml for the figures and their sources): a read goes to one
// parallel unit (flash die) chosen by its address, waits there FIFO, is read, then crosses the host
// interface (PCIe/SATA), a FIFO stage with the interface's bandwidth. Writes cross the interface into
// a write-back buffer and are acknowledged; the buffer drains to flash at the steady-state write rate,
// and a write that finds it full waits for room. Draining programs the units its address maps to:
// with read priority (SSD firmware suspends programs for reads) a program takes a unit only when it
// is idle, so a read waits at most for one program; without (a virtual disk's shared backend, as fio's
// mixed job shows) programs queue FCFS with reads. With program suspension (program_suspend_s >= 0,
// Wu & He, FAST'12) every program queues at its unit and a read that meets one waits only until the
// program reaches a suspend point; the program resumes after the read. fsync costs a flush command;
// without power-loss protection it also waits until the buffer has drained everything written before it.
// Where the flush is not a queued command (SATA, a virtual disk), it first waits for the requests in
// flight, and the requests issued while it runs start only when it completes. As Linux's block layer
// does (blk-flush), a flush requested before the pending flush command has started joins it.
#pragma once
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "platform/server_bank.h"

namespace poolsim {

// The submission queue a write is issued from. InnoDB's page flushing keeps its own queues full in
// bursts (a flush batch: the doublewrite copy, then the pages in place); a thread that writes
// on its own (the redo and binary logs, a user thread's single-page flush) issues from its CPU's
// queue, which a device with several queues serves in turn with the flushing's.
enum class WriteQueue { Flushing, Own };

struct DeviceSpec {
  std::string name;
  std::string kind;          // nvme | sata | pcie-flash | ram | virtual-disk
  std::string description;
  std::string source;        // where the figures come from (datasheet, review, fio trace)
  double capacity_bytes = 0;
  double reference_block_bytes = 4096; // the IO size the latency and IOPS figures are quoted for
  double read_latency_s = 0;          // reference-block random read at QD1, end to end as fio measures it
  double read_service_s = 0;          // unit busy time per reference read; 0: read_latency less the interface
  double read_transfer_Bps = 0;       // per-unit transfer rate for the part of a read beyond the reference block
  double read_iops = 0;               // reference-block random read ceiling; with the unit service it sets the parallelism
  int parallel_units = 0;             // 0: derived as read_iops x unit service time
  double read_bandwidth_Bps = 0;      // host interface ceiling, device to host
  double write_bandwidth_Bps = 0;     // host interface ceiling, host to device
  double write_latency_s = 0;         // acknowledge of a reference-block write into the write buffer, QD1
  double write_iops = 0;              // steady-state random write rate (reference blocks) over the full span:
                                      // the buffer's drain rate when every block holds valid data
  double raw_capacity_bytes = 0;      // flash behind `capacity` (0: unknown; the drain rate then stays write_iops)
  double write_cache_bytes = 0;       // write-back buffer
  double flush_latency_s = 0;         // a flush (fsync) command on an empty buffer
  bool power_loss_protection = false; // PLP: a flush need not wait for the buffer to drain
  bool flush_blocks_io = false;       // a flush is not queued with other commands: it waits for the requests
                                      // in flight, and requests issued while it runs wait for it (SATA's
                                      // non-NCQ FLUSH CACHE; a virtual disk whose host serves the flush)
  bool atomic_writes = false;         // the device can write a 16 KiB page atomically (no doublewrite)
  bool rotational = false;            // the server finds it rotational (innodb_flush_neighbors on MariaDB)
  bool exponential_service = false;   // service times exponential around their mean (queueing studies)
  bool shared_queue = false;          // the first free unit serves (M/M/c) instead of the unit by address
  // Completions interrupt one CPU (a single request queue's vector) instead of the submitting one.
  bool completions_on_one_core = false;
  bool read_priority = true;          // a program takes only an idle unit; false: programs queue FCFS with reads
  double program_suspend_s = -1;      // with read_priority and per-unit queues: time a program takes to reach a suspend
                                      // point for a read (< 0: programs are not suspended, a read waits for the whole program)
  double host_cpu_per_io_s = 0;       // CPU the host's IO path (driver, interrupts, copies) spends per IO
  double host_cpu_per_write_s = -1;   // the same per page write when it differs (< 0: host_cpu_per_io)
  double host_cpu_per_flush_s = 0;    // CPU the host spends per fsync (file system journal, flush command)

  // Derived figures.
  // NVMe has a submission queue per CPU (Linux blk-mq) and the controller fetches commands from the
  // queues with work in round robin (NVMe base specification, "Command Arbitration": round robin is
  // the arbitration every controller supports); SATA (NCQ), a PCIe flash card's driver and a one-queue
  // virtual disk take commands from one queue in order.
  bool round_robin_queues() const { return kind == "nvme"; }
  double unit_read_service_s(double bytes) const;   // time one unit is busy for a read of `bytes`
  double read_delay_s() const;                       // the part of read_latency that occupies no unit
  double unit_write_service_s(double bytes, double drain_Bps) const;  // time writing `bytes` to flash keeps one unit busy
  int units() const;
  // The rate the write buffer drains to flash when `live_bytes` of the device hold valid data (0: all
  // of `capacity`, the datasheet's preconditioned steady state). Garbage collection copies the valid
  // pages of each block it erases; the fewer blocks hold valid data, the less it copies, so the same
  // flash program bandwidth takes more host writes (see write_amplification()).
  double drain_Bps(double live_bytes = 0) const;
  // The fastest the buffer can drain, whatever the device holds: the flash program rate (with
  // raw_capacity; no faster than the interface), else write_iops.
  double max_drain_Bps() const;
  // The flash program rate the full-span write_iops implies (raw_capacity > capacity).
  double program_Bps() const;
};

// Write amplification of greedy / FIFO garbage collection under uniform random writes, as a function
// of `physical_over_live` = flash capacity / valid data (> 1). A block reaches the cleaner after the
// whole flash has been written once more; each of its pages is still valid with probability
// x = exp(-a (1 - x)), and cleaning it writes 1 / (1 - x) pages per host page. This is the closed form
// x = -W0(-a e^-a) / a of Desnoyers (ACM TOS 2014, "Analytic models of SSD write performance") and
// Xiang & Kurkoski (arXiv:1110.4245: 2.36 at over-provisioning 0.3, simulation 2.35).
double write_amplification(double physical_over_live);

// One device instance: analytic FCFS queues, no SimGrid activity of its own. Callers get the
// completion time of each request and wait for it with one timer.
class NvmeDevice {
public:
  NvmeDevice(const DeviceSpec& spec, std::uint64_t seed);

  // Each returns the completion time (simulated seconds) of a request arriving at `now_s`.
  double read(double now_s, std::uint64_t offset_bytes, double bytes) { return read_arriving(now_s, now_s, offset_bytes, bytes); }
  // A write from its own queue (WriteQueue::Own) on a device that serves its queues in round robin
  // shares the interface with the flushing's backlog instead of waiting behind it.
  double write(double now_s, std::uint64_t offset_bytes, double bytes, WriteQueue queue = WriteQueue::Flushing) {
    return write_arriving(now_s, now_s, offset_bytes, bytes, queue);
  }
  // The same for a request booked at `clock_s` that reaches the device later, at `arrival_s` (across
  // a fabric): the queues forget what was served before the clock, not before the arrival, which
  // another request booked later may precede.
  double read_arriving(double clock_s, double arrival_s, std::uint64_t offset_bytes, double bytes);
  double write_arriving(double clock_s, double arrival_s, std::uint64_t offset_bytes, double bytes, WriteQueue queue = WriteQueue::Flushing);
  double flush(double now_s);

  const DeviceSpec& spec() const { return spec_; }
  // Valid data on the device (a file system on a discarded device holds only its files): sets the
  // drain rate. Until it is called the device is full (the datasheet's steady state).
  void add_live_bytes(double bytes);
  double valid_bytes() const { return live_bytes_ > 0 ? live_bytes_ : spec_.capacity_bytes; }
  double drain_Bps() const { return drain_Bps_; }

  struct Counters {
    std::uint64_t reads = 0, writes = 0, flushes = 0;
    double read_bytes = 0, write_bytes = 0;
    double response_s = 0;  // sum of response times: mean queue depth = response_s / elapsed (Little)
    double read_response_s = 0, write_response_s = 0, flush_response_s = 0;  // per kind, for mean awaits
  };
  const Counters& counters() const { return counters_; }
  // Fraction of the parallel units' capacity in use since the last reset.
  double unit_busy_s() const { return units_.busy_s() + program_busy_s_; }
  // Counters from `now_s`, keeping as busy the work booked before it and served after it.
  void reset_counters(double now_s);
  // Work booked on the units (reads, writes, programs) not yet served at `t`, in unit-seconds.
  double backlog_s(double t) const;

private:
  double sample(double mean_s);
  // Program suspension: a unit's programs queue on their own timeline and yield to its reads.
  bool suspends_programs() const { return spec_.read_priority && !spec_.shared_queue && spec_.program_suspend_s >= 0; }
  void queue_program(double accepted_s, std::uint64_t unit, double service_s);
  double read_start_past_programs(double start_s, bool queued_behind_read, std::uint64_t unit, double service_s);
  struct ProgramBacklog {
    double from_s = 0, until_s = 0;  // the unit programs from `from` to `until` unless a read suspends it
  };
  std::vector<ProgramBacklog> programs_;  // by unit (only when suspends_programs())
  double program_busy_s_ = 0;

  DeviceSpec spec_;
  FcfsServerBank units_;
  GapServer host_read_;        // interface, device to host
  FcfsServerBank host_write_;  // interface, host to device (writes arrive in time order)
  double live_bytes_ = 0;      // 0: the whole capacity
  double drain_Bps_ = 0;       // spec_.drain_Bps(live_bytes_)
  double drained_at_s_ = 0;    // time at which everything accepted so far has reached flash
  double last_done_s_ = 0;     // the latest completion of a read or write issued so far
  double barrier_until_s_ = 0; // flush_blocks_io: requests issued before this wait until then
  double flush_start_s_ = -1;  // the latest flush command: when it starts and completes
  double flush_done_s_ = -1;
  Counters counters_;
  std::mt19937_64 rng_;
};

}  // namespace poolsim
