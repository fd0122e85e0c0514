// A sysbench run against InnoDB servers: one server per compute node, its client threads, the
// functional warm-up, and the database figures of the results.
#pragma once
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "engine/btree.h"
#include "engine/innodb.h"
#include "platform/platform.h"
#include "sim/measurement.h"
#include "workload/sysbench.h"

namespace poolsim {

class DatabaseRun {
public:
  DatabaseRun(Platform& platform, Measurement& measurement, const Scenario& scenario);
  void start();
  void reset_counters();
  // Adds tps/qps/latency, the breakdown and the InnoDB figures to `out`.
  void report(nlohmann::ordered_json& out, double elapsed_s, double window_end_s) const;
  const SysbenchMix& mix() const { return mix_; }
  // Pages read by the buffer pools since the timed run began, in units of their frames.
  double pool_turnovers() const;
  std::uint64_t rollbacks() const { return rollbacks_; }  // since the last reset (the measurement's start)
  // Transactions a fixed rate's arrivals started, warm-up included (a closed loop starts them all the time).
  std::uint64_t rate_arrivals_served() const { return rate_arrivals_served_; }
  // The servers' flushing brought on without timing (InnodbServer::fast_forward), `tps` in all,
  // until their pools have read `turnovers` times their frames since the timed run began, or for
  // `max_s` virtual seconds, or with `until_steady` until each server's flushing is steady (MSER-5
  // over its virtual seconds' pages written and dirty pages, as the detected warm-up uses it).
  // Returns the virtual seconds (the longest of the servers'); `steady` says whether every server
  // that replayed stopped on the steadiness test. `each_second`, when given, is called after every
  // virtual second a server replays, with that server's virtual seconds so far (for progress).
  double fast_forward(double tps, double turnovers, double max_s, bool until_steady = false, bool* steady = nullptr,
                      const std::function<void(double virtual_s)>& each_second = {});
  // The servers' state for an interval of the time series: dirty pages in % of the frames, and data
  // pages written since the last call (so a series shows when the flushing reaches its steady state).
  void add_interval_figures(nlohmann::ordered_json& interval, double transactions);

private:
  void client_loop(ClientThread& thread, InnodbServer& server, bool warmup_only = false);
  Platform& platform_;
  Measurement& measurement_;
  const Scenario& scenario_;
  DataLayout layout_;
  SysbenchMix mix_;
  std::vector<std::unique_ptr<InnodbServer>> servers_;
  std::vector<std::unique_ptr<ClientThread>> threads_;
  TxnBreakdown breakdown_;  // summed over measured transactions
  std::uint64_t rollbacks_ = 0;
  std::uint64_t rate_arrivals_served_ = 0;
  std::uint64_t page_writes_at_last_interval_ = 0;
  std::mt19937_64 fast_forward_rng_;
};

}  // namespace poolsim
