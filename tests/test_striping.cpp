// Local devices striped into one volume (RAID0, as Linux md does) against closed forms.
#include <gtest/gtest.h>

#include "sim/simulation.h"
#include "test_support.h"

using namespace poolsim;
using poolsim::testing::scenario_from;

namespace {

// `members` exponential single-unit servers (mean service 100 us for 4 KiB reads, interfaces too
// wide to matter), striped with a 512 KiB chunk, under closed-loop fio random reads at `depth`.
std::string striped_fio(int members, int depth) {
  return R"(devices:
  exp-server:
    kind: sata
    source: "test fixture: an exponential server for queueing closed forms"
    capacity: 1TB
    read_latency: 100us
    read_iops: 10K/s
    parallel_units: 1
    queue: shared
    read_bandwidth: 1000GB/s
    write_bandwidth: 1000GB/s
    write_latency: 10us
    write_iops: 100K/s
    flush_latency: 10us
    service: exponential
storage: {kind: local, device: exp-server, devices: )" + std::to_string(members) + R"(, stripe: 512KiB}
workload:
  fio: {rw: randread, bs: 4KiB, iodepth: )" + std::to_string(depth) + R"(}
simulation: {seed: 7, warmup: 0.2s, batch: 0.5s, min_batches: 10, target_ci: 0.5%, max_duration: 20s}
)";
}

}  // namespace

TEST(LocalStripe, ClosedLoopOverTwoMembersMatchesTheProductForm) {
  // N requests, each to either member with probability 1/2 (uniform offsets over 512 KiB chunks),
  // two exponential single servers of mean S: the product form makes the N + 1 splits equally
  // likely, so a member is busy N / (N + 1) of the time and X = 2 N / ((N + 1) S).
  const double service_s = 100e-6;
  for (int depth : {1, 2, 4, 16}) {
    auto r = run_point(scenario_from(striped_fio(2, depth)));
    double expected = 2.0 * depth / ((depth + 1) * service_s);
    EXPECT_NEAR(r["iops"].get<double>(), expected, expected * 0.02) << depth;
    ASSERT_EQ(r["devices"].size(), 2u);
    // Both members carry half of the reads.
    double a = r["devices"][0]["reads_per_s"].get<double>(), b = r["devices"][1]["reads_per_s"].get<double>();
    EXPECT_NEAR(a, b, 0.05 * (a + b)) << depth;
  }
}

TEST(LocalStripe, OneMemberIsTheSingleDevice) {
  // `devices: 1` is the plain local device: with N >= 1 requests always queued its single server
  // never idles, so X = 1 / S.
  auto r = run_point(scenario_from(striped_fio(1, 4)));
  EXPECT_NEAR(r["iops"].get<double>(), 1 / 100e-6, 1 / 100e-6 * 0.02);
  EXPECT_EQ(r["devices"].size(), 1u);
}
