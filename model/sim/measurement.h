// What a workload reports as it runs: completed operations and their latencies. Counting starts
// when the warm-up ends.
#pragma once
#include <cstdint>

#include "sim/statistics.h"

namespace poolsim {

struct Measurement {
  bool measuring = false;
  std::uint64_t operations = 0;
  std::uint64_t warmup_operations = 0;  // completed during the warm-up (its detection watches them)
  double bytes = 0;
  LatencyHistogram latency;
  LatencyHistogram batch_latency;  // since the last batch boundary (interval series)

  void complete(double latency_s, double payload_bytes = 0) {
    if (!measuring) {
      ++warmup_operations;
      return;
    }
    ++operations;
    bytes += payload_bytes;
    latency.record(latency_s);
    batch_latency.record(latency_s);
  }
};

}  // namespace poolsim
