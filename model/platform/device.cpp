#include "platform/device.h"

#include <algorithm>
#include <cmath>

namespace poolsim {

namespace {
constexpr double kBaseIoBytes = 4096.0;     // datasheet latencies and IOPS are quoted for 4 KiB
constexpr std::uint64_t kUnitStripeBytes = 16384;  // address granule that maps to one parallel unit
}  // namespace

double DeviceSpec::unit_read_service_s(double bytes) const {
  // read_latency is end to end for 4 KiB, so the unit's share excludes the interface transfer.
  double interface_4k = read_bandwidth_Bps > 0 ? kBaseIoBytes / read_bandwidth_Bps : 0.0;
  double extra = (bytes > kBaseIoBytes && read_transfer_Bps > 0) ? (bytes - kBaseIoBytes) / read_transfer_Bps : 0.0;
  return std::max(read_latency_s - interface_4k, 0.0) + extra;
}

int DeviceSpec::units() const {
  if (parallel_units > 0) return parallel_units;
  // At the IOPS ceiling every unit is busy: units = IOPS x service time.
  return std::max(1, static_cast<int>(std::lround(read_iops * unit_read_service_s(kBaseIoBytes))));
}

NvmeDevice::NvmeDevice(const DeviceSpec& spec, std::uint64_t seed)
    : spec_(spec),
      units_(spec.units(), spec.shared_queue ? FcfsServerBank::Dispatch::SharedQueue : FcfsServerBank::Dispatch::ByAddress),
      host_write_(1, FcfsServerBank::Dispatch::SharedQueue),
      rng_(seed) {}

double NvmeDevice::sample(double mean_s) {
  if (!spec_.exponential_service || mean_s <= 0) return mean_s;
  return std::exponential_distribution<double>(1.0 / mean_s)(rng_);
}

double NvmeDevice::read(double now_s, std::uint64_t offset_bytes, double bytes) {
  auto unit = units_.book(now_s, sample(spec_.unit_read_service_s(bytes)), offset_bytes / kUnitStripeBytes);
  double done = unit.end_s;
  if (spec_.read_bandwidth_Bps > 0) done = host_read_.book(now_s, done, bytes / spec_.read_bandwidth_Bps);
  ++counters_.reads;
  counters_.read_bytes += bytes;
  counters_.response_s += done - now_s;
  return done;
}

double NvmeDevice::write(double now_s, std::uint64_t /*offset_bytes*/, double bytes) {
  double arrived = now_s;
  if (spec_.write_bandwidth_Bps > 0) arrived = host_write_.book(now_s, bytes / spec_.write_bandwidth_Bps).end_s;
  double accepted = arrived;
  double drain = spec_.drain_Bps();
  if (drain > 0) {
    // The buffer holds (drained_at - t) x drain bytes at time t; this write needs room for `bytes`.
    double backlog_s = std::max(drained_at_s_ - arrived, 0.0);
    double capacity_s = spec_.write_cache_bytes / drain;
    double need_s = backlog_s + bytes / drain - capacity_s;
    if (need_s > 0) accepted = arrived + need_s;
    drained_at_s_ = std::max(drained_at_s_, accepted) + bytes / drain;
  }
  double interface_4k = spec_.write_bandwidth_Bps > 0 ? kBaseIoBytes / spec_.write_bandwidth_Bps : 0.0;
  double done = accepted + sample(std::max(spec_.write_latency_s - interface_4k, 0.0));
  ++counters_.writes;
  counters_.write_bytes += bytes;
  counters_.response_s += done - now_s;
  return done;
}

double NvmeDevice::flush(double now_s) {
  double start = spec_.power_loss_protection ? now_s : std::max(now_s, drained_at_s_);
  double done = start + sample(spec_.flush_latency_s);
  ++counters_.flushes;
  counters_.response_s += done - now_s;
  return done;
}

void NvmeDevice::reset_counters() {
  counters_ = Counters{};
  units_.reset_counters();
}

}  // namespace poolsim
