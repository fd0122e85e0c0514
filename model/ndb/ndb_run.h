// A benchmark against MySQL NDB Cluster: load generators whose threads run business operations of a
// custom mix (workload/custom_mix.h) in a closed loop through the API nodes on the cluster
// (ndb/cluster.h). Mirrors sim/database_run.h: the simulation's controller measures the operations
// (ops_per_s, latency) and this run adds the figures per operation type and the cluster's threads.
#pragma once
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <vector>

#include "ndb/cluster.h"
#include "ndb/ndb_schema.h"
#include "platform/platform.h"
#include "sim/measurement.h"
#include "sim/statistics.h"
#include "workload/custom_mix.h"

namespace poolsim {

class NdbRun {
public:
  NdbRun(Platform& platform, Measurement& measurement, const Scenario& scenario);
  void start();
  void reset_counters();
  // Called by the controller as the warm-up ends: counters and batches start from now (they started
  // at the first operation completed after it, so a window with none reported the warm-up's).
  void start_measuring();
  // Adds the per-type figures (`operations`), per-operation counts and the cluster's utilisations
  // over the window of `elapsed_s` that ends at `now_s`.
  void report(nlohmann::ordered_json& out, double elapsed_s, double now_s) const;

  // Operations took no simulated time (every cost they meet zero, or below the clock's resolution):
  // the load threads stopped, since their closed loop would never have advanced the clock.
  bool stalled() const { return stalled_; }
  // Operation types the window saw no operation of complete (their latencies are not measured).
  std::vector<std::string> types_not_measured() const;

  const NdbConfig& config() const { return config_; }
  const CustomMix& mix() const { return mix_; }
  TransactionCoordinator& coordinator() { return coordinator_; }

private:
  struct LoadThread {
    int generator = 0;
    int api = 0;
    int connection = 0;
    std::mt19937_64 rng;
  };
  struct TypeStats {
    std::uint64_t count = 0;
    LatencyHistogram latency;
    std::uint64_t batch_count = 0;
    LatencyHistogram batch_latency;
    BatchMeans rate, mean;
    double statements = 0, messages = 0;
  };
  void thread_loop(LoadThread& thread);
  void record(size_t type, double latency_s, const StatementStats& stats, std::int64_t statements);
  void sample_batches();

  Platform& platform_;
  Measurement& measurement_;
  const Scenario& scenario_;
  NdbConfig config_;
  CustomMix mix_;
  TransactionCoordinator coordinator_;
  std::vector<std::unique_ptr<LoadThread>> threads_;
  std::vector<TypeStats> types_;
  bool stalled_ = false;
};

}  // namespace poolsim
