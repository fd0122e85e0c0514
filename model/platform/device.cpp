#include "platform/device.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace poolsim {

namespace {
constexpr std::uint64_t kUnitStripeBytes = 16384;  // address granule that maps to one parallel unit
}  // namespace

double DeviceSpec::unit_read_service_s(double bytes) const {
  // read_latency is end to end for a reference block, so the unit's default share excludes the
  // interface transfer.
  double ref = reference_block_bytes;
  double interface_ref = read_bandwidth_Bps > 0 ? ref / read_bandwidth_Bps : 0.0;
  double base = read_service_s > 0 ? read_service_s : std::max(read_latency_s - interface_ref, 0.0);
  double extra = (bytes > ref && read_transfer_Bps > 0) ? (bytes - ref) / read_transfer_Bps : 0.0;
  return base + extra;
}

double DeviceSpec::read_delay_s() const {
  if (read_service_s <= 0) return 0.0;
  double interface_ref = read_bandwidth_Bps > 0 ? reference_block_bytes / read_bandwidth_Bps : 0.0;
  return std::max(read_latency_s - read_service_s - interface_ref, 0.0);
}

double DeviceSpec::unit_write_service_s(double bytes, double drain_Bps) const {
  // At the write ceiling every unit programs all the time: units x bytes / drain rate each.
  return drain_Bps > 0 ? units() * bytes / drain_Bps : 0.0;
}

double write_amplification(double physical_over_live) {
  const double a = physical_over_live;
  if (!(a > 1)) return std::numeric_limits<double>::infinity();  // no spare block: cleaning never frees one
  // Newton on f(x) = x - exp(-a (1 - x)) from x = 0. f is concave, negative at 0 and rising to the
  // root x < 1 (x = 1 is the trivial one), so each tangent lands short of it: the iterates rise to it.
  double x = 0;
  for (int i = 0; i < 100; ++i) {
    double e = std::exp(-a * (1 - x));
    double step = (x - e) / (1 - a * e);
    x -= step;
    if (std::abs(step) < 1e-12) break;
  }
  return 1 / (1 - x);
}

double DeviceSpec::drain_Bps(double live_bytes) const {
  if (raw_capacity_bytes <= capacity_bytes || capacity_bytes <= 0) return write_iops * reference_block_bytes;
  // The flash program bandwidth spent on host writes at the amplification of the data actually
  // held; no faster than the host interface takes them.
  double live = live_bytes > 0 ? std::min(live_bytes, capacity_bytes) : capacity_bytes;
  double drain = program_Bps() / write_amplification(raw_capacity_bytes / live);
  return write_bandwidth_Bps > 0 ? std::min(drain, write_bandwidth_Bps) : drain;
}

double DeviceSpec::max_drain_Bps() const {
  if (raw_capacity_bytes <= capacity_bytes || capacity_bytes <= 0) return write_iops * reference_block_bytes;
  return write_bandwidth_Bps > 0 ? std::min(program_Bps(), write_bandwidth_Bps) : program_Bps();
}

double DeviceSpec::program_Bps() const {
  // The datasheet's full-span rate is host writes at the amplification of a device full of data.
  return write_iops * reference_block_bytes * write_amplification(raw_capacity_bytes / capacity_bytes);
}

int DeviceSpec::units() const {
  if (parallel_units > 0) return parallel_units;
  // At the IOPS ceiling every unit is busy: units = IOPS x service time.
  return std::max(1, static_cast<int>(std::lround(read_iops * unit_read_service_s(reference_block_bytes))));
}

NvmeDevice::NvmeDevice(const DeviceSpec& spec, std::uint64_t seed)
    : spec_(spec),
      units_(spec.units(), spec.shared_queue ? FcfsServerBank::Dispatch::SharedQueue : FcfsServerBank::Dispatch::ByAddress),
      host_write_(1, FcfsServerBank::Dispatch::SharedQueue),
      drain_Bps_(spec.drain_Bps()),
      rng_(seed) {
  if (suspends_programs()) programs_.resize(static_cast<size_t>(units_.servers()));
}

void NvmeDevice::add_live_bytes(double bytes) {
  live_bytes_ += bytes;
  drain_Bps_ = spec_.drain_Bps(live_bytes_);
}

double NvmeDevice::sample(double mean_s) {
  if (!spec_.exponential_service || mean_s <= 0) return mean_s;
  return std::exponential_distribution<double>(1.0 / mean_s)(rng_);
}

void NvmeDevice::queue_program(double accepted_s, std::uint64_t unit, double service_s) {
  ProgramBacklog& p = programs_[unit % programs_.size()];
  // Reads already booked on the unit go first; a program joins the unit's backlog or starts a new one.
  double start = std::max({accepted_s, p.until_s, units_.free_at(unit)});
  if (start > p.until_s) p.from_s = start;
  p.until_s = start + service_s;
  program_busy_s_ += service_s;
}

double NvmeDevice::read_start_past_programs(double start_s, bool queued_behind_read, std::uint64_t unit, double service_s) {
  ProgramBacklog& p = programs_[unit % programs_.size()];
  if (p.until_s <= start_s) return start_s;  // the unit has no program left
  if (p.from_s > start_s) {
    // The backlog starts later: the read goes first and pushes it back.
    double overlap = start_s + service_s - p.from_s;
    if (overlap > 0) {
      p.from_s += overlap;
      p.until_s += overlap;
    }
    return start_s;
  }
  // A program is under way. The read waits for its next suspend point unless the unit is already
  // serving reads (the program is suspended); the program resumes once the read has been served.
  double remaining = p.until_s - start_s;
  double wait = queued_behind_read ? 0.0 : std::min(remaining, spec_.program_suspend_s);
  if (wait < remaining) p.until_s += service_s;
  return start_s + wait;
}

double NvmeDevice::read_arriving(double clock_s, double arrival_s, std::uint64_t offset_bytes, double bytes) {
  double issued = std::max(arrival_s, barrier_until_s_);  // held behind a flush that blocks the queue
  double ready = issued + spec_.read_delay_s();
  double service = sample(spec_.unit_read_service_s(bytes));
  std::uint64_t granule = offset_bytes / kUnitStripeBytes;
  if (suspends_programs()) {
    double unit_free = units_.free_at(granule);
    ready = read_start_past_programs(std::max(ready, unit_free), unit_free > ready, granule, service);
  }
  auto unit = units_.book(clock_s, ready, service, granule);
  double done = unit.end_s;
  if (spec_.read_bandwidth_Bps > 0) done = host_read_.book(clock_s, done, bytes / spec_.read_bandwidth_Bps);
  last_done_s_ = std::max(last_done_s_, done);
  ++counters_.reads;
  counters_.read_bytes += bytes;
  counters_.response_s += done - arrival_s;
  counters_.read_response_s += done - arrival_s;
  return done;
}

double NvmeDevice::write_arriving(double clock_s, double arrival_s, std::uint64_t offset_bytes, double bytes, WriteQueue queue) {
  double arrived = std::max(arrival_s, barrier_until_s_);
  if (spec_.write_bandwidth_Bps > 0) {
    const double transfer_s = bytes / spec_.write_bandwidth_Bps;
    const double backlog_s = std::max(0.0, host_write_.free_at(0) - arrived);
    // Booked in arrival order either way, so the interface serves the same work: a write from its own
    // queue, taken in turn with the flushing's, only moves the flushing's later commands back by its
    // transfer.
    const double fcfs_end_s = host_write_.book(clock_s, arrived, transfer_s).end_s;
    if (queue == WriteQueue::Own && spec_.round_robin_queues()) {
      // Round robin between two queues with work is the interface shared half and half (commands of
      // about equal size): twice its transfer while the flushing's backlog lasts, then the whole.
      arrived += transfer_s + std::min(backlog_s, transfer_s);
    } else {
      arrived = fcfs_end_s;
    }
  }
  double accepted = arrived;
  double drain = drain_Bps_;
  if (drain > 0) {
    // The buffer holds (drained_at - t) x drain bytes at time t; this write needs room for `bytes`.
    double backlog_s = std::max(drained_at_s_ - arrived, 0.0);
    double capacity_s = spec_.write_cache_bytes / drain;
    double need_s = backlog_s + bytes / drain - capacity_s;
    if (need_s > 0) accepted = arrived + need_s;
    drained_at_s_ = std::max(drained_at_s_, accepted) + bytes / drain;
  }
  // Programming keeps the units the write's granules map to busy, from when the buffer accepts it.
  for (double piece = 0; piece < bytes; piece += kUnitStripeBytes) {
    double n = std::min<double>(kUnitStripeBytes, bytes - piece);
    std::uint64_t unit = (offset_bytes + static_cast<std::uint64_t>(piece)) / kUnitStripeBytes;
    double program_s = spec_.unit_write_service_s(n, drain);
    if (suspends_programs()) queue_program(accepted, unit, program_s);
    else if (!spec_.read_priority || units_.idle_at(accepted, unit)) units_.book(clock_s, accepted, program_s, unit);
  }
  double interface_ref = spec_.write_bandwidth_Bps > 0 ? spec_.reference_block_bytes / spec_.write_bandwidth_Bps : 0.0;
  double done = accepted + sample(std::max(spec_.write_latency_s - interface_ref, 0.0));
  last_done_s_ = std::max(last_done_s_, done);
  ++counters_.writes;
  counters_.write_bytes += bytes;
  counters_.response_s += done - arrival_s;
  counters_.write_response_s += done - arrival_s;
  return done;
}

double NvmeDevice::flush(double now_s) {
  // A flush command that has not started yet covers everything completed before it starts: join it
  // (blk-flush merges the flushes pending behind one in flight). Without a blocking flush it must
  // also start after the buffer holds nothing newer than it covers.
  bool pending = !spec_.power_loss_protection && flush_start_s_ >= now_s &&
                 (spec_.flush_blocks_io || drained_at_s_ <= flush_start_s_);
  if (!pending) {
    double start = spec_.power_loss_protection ? now_s : std::max(now_s, drained_at_s_);
    // Not queued: issued once the requests in flight (and any flush before it) have completed.
    if (spec_.flush_blocks_io) start = std::max({start, last_done_s_, barrier_until_s_});
    flush_start_s_ = start;
    flush_done_s_ = start + sample(spec_.flush_latency_s);
    if (spec_.flush_blocks_io) barrier_until_s_ = flush_done_s_;
  }
  ++counters_.flushes;
  counters_.response_s += flush_done_s_ - now_s;
  counters_.flush_response_s += flush_done_s_ - now_s;
  return flush_done_s_;
}

void NvmeDevice::reset_counters(double now_s) {
  counters_ = Counters{};
  units_.reset_counters(now_s);
  program_busy_s_ = 0;
  for (const auto& p : programs_) program_busy_s_ += std::max(0.0, p.until_s - std::max(now_s, p.from_s));
}

double NvmeDevice::backlog_s(double t) const {
  double s = units_.backlog_s(t);
  for (const auto& p : programs_) s += std::max(0.0, p.until_s - std::max(t, p.from_s));
  return s;
}

}  // namespace poolsim
