#include "sim/database_run.h"

#include "sim/statistics.h"
#include "sim/worker_pool.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace poolsim {

namespace sg = simgrid::s4u;

DatabaseRun::DatabaseRun(Platform& platform, Measurement& measurement, const Scenario& scenario)
    : platform_(platform), measurement_(measurement), scenario_(scenario),
      layout_(scenario.workload.sysbench.tables, sysbench_table_shape(scenario.workload.sysbench.table_size, scenario.database.page_bytes)),
      mix_(scenario.workload.sysbench) {
  std::uint64_t seed = scenario.simulation.seed;
  // The tablespaces and the redo log are what each node's database keeps on its storage (the
  // doublewrite area, a few MiB, and the system tablespace are left out).
  platform.place_data(layout_.total_pages() * layout_.page_bytes() + scenario.database.redo_capacity_bytes);
  for (size_t n = 0; n < platform.compute().size(); ++n) {
    auto& node = platform.compute()[n];
    servers_.push_back(std::make_unique<InnodbServer>(platform, node, layout_, scenario.database, scenario.profile, seed * 31 + n));
    std::mt19937_64 warm_rng(seed * 977 + n);
    servers_.back()->functional_warmup(mix_, warm_rng);
  }
}

void DatabaseRun::start() {
  const auto& w = scenario_.workload;
  for (size_t n = 0; n < servers_.size(); ++n) {
    auto& server = *servers_[n];
    auto& node = platform_.compute()[n];
    server.start_background();
    server.set_client_threads(w.threads);
    auto make_thread = [&](size_t i) {
      auto t = std::make_unique<ClientThread>();
      t->node = &node;
      t->platform = &platform_;
      t->client = w.clients;
      t->rng.seed(scenario_.simulation.seed * 1000003 + n * 7919 + i);
      threads_.push_back(std::move(t));
      return threads_.back().get();
    };
    if (w.rate_tps > 0) {
      // sysbench --rate: Poisson arrivals served by at most `threads` threads; latency counts from
      // the arrival, so queueing for a thread is part of it.
      auto free_threads = std::make_shared<std::vector<ClientThread*>>();
      for (int i = 0; i < w.threads; ++i) free_threads->push_back(make_thread(i));
      auto pool = std::make_shared<WorkerPool>(
          node.host, "sysbench-" + std::to_string(n),
          [this, &server, free_threads](double arrival) {
            ++rate_arrivals_served_;
            ClientThread* t = free_threads->back();
            free_threads->pop_back();
            t->actor = sg::Actor::self();
            std::vector<Statement> statements;
            mix_.next(t->rng, statements);
            t->breakdown = TxnBreakdown{};
            while (!server.execute(statements, *t)) ++rollbacks_;
            measurement_.complete(sg::Engine::get_clock() - arrival);
            if (measurement_.measuring) breakdown_.add(t->breakdown);
            free_threads->push_back(t);
          },
          static_cast<size_t>(w.threads));
      WorkerPool::start_poisson(pool, w.rate_tps, scenario_.simulation.seed * 104729 + n);
      continue;
    }
    // Threads beyond `threads` load the warm-up only (workload.warmup_threads) and stop once the
    // measurement starts.
    for (int i = 0; i < std::max(w.threads, w.warmup_threads); ++i) {
      ClientThread* t = make_thread(i);
      const bool warmup_only = i >= w.threads;
      t->actor = sg::Actor::create("sysbench-" + std::to_string(n) + "-" + std::to_string(i), node.host,
                                   [this, t, &server, warmup_only] { client_loop(*t, server, warmup_only); });
      t->actor->daemonize();
    }
  }
}

void DatabaseRun::client_loop(ClientThread& t, InnodbServer& server, bool warmup_only) {
  std::vector<Statement> statements;
  while (!(warmup_only && measurement_.measuring)) {
    mix_.next(t.rng, statements);
    double start = sg::Engine::get_clock();
    t.breakdown = TxnBreakdown{};
    // A rolled-back event (deadlock) is re-run; sysbench keeps its latency timer running.
    while (!server.execute(statements, t)) ++rollbacks_;
    if (warmup_only && measurement_.measuring) break;  // its last warm-up transaction is not measured
    measurement_.complete(sg::Engine::get_clock() - start);
    if (measurement_.measuring) breakdown_.add(t.breakdown);
  }
}

void DatabaseRun::reset_counters() {
  breakdown_ = TxnBreakdown{};
  rollbacks_ = 0;
  for (auto& s : servers_) s->reset_counters();
  page_writes_at_last_interval_ = 0;
}

double DatabaseRun::pool_turnovers() const {
  double reads = 0, frames = 0;
  for (auto& s : servers_) {
    reads += static_cast<double>(s->counters.page_reads);
    frames += s->pool().frames();
  }
  return frames > 0 ? reads / frames : 0.0;
}

double DatabaseRun::fast_forward(double tps, double turnovers, double max_s, bool until_steady, bool* steady,
                                 const std::function<void(double virtual_s)>& each_second) {
  fast_forward_rng_.seed(scenario_.simulation.seed * 7368787 + 17);
  double virtual_s = 0;
  bool all_steady = until_steady, replayed = false;
  for (auto& s : servers_) {
    const double target = turnovers * s->pool().frames(), read = static_cast<double>(s->counters.page_reads);
    const auto max_reads = static_cast<std::uint64_t>(std::max(0.0, target - read));
    if (max_reads == 0) continue;
    replayed = true;
    // The steadiness test, MSER-5 (White, Cobb & Spratt 2000: MSER over batch means of 5 values,
    // which a short noisy series cannot fool as easily as single values): after each batch of 5
    // virtual seconds, from the detected warm-up's minimum of 10 batches on, it finds the transient
    // in the first half of both series, the rate the flushing writes at and the state it keeps.
    constexpr std::size_t kSecondsPerBatch = 5, kMinBatches = 10;
    std::vector<double> writes_per_s, dirty_pages;
    double writes_sum = 0, dirty_sum = 0;
    std::size_t seconds = 0;
    InnodbServer::SteadyTest test;
    if (until_steady || each_second)
      test = [&](double page_writes_per_s, std::uint32_t dirty) {
        ++seconds;
        if (each_second) each_second(static_cast<double>(seconds));
        if (!until_steady) return false;
        writes_sum += page_writes_per_s;
        dirty_sum += dirty;
        if (seconds % kSecondsPerBatch != 0) return false;
        writes_per_s.push_back(writes_sum / kSecondsPerBatch);
        dirty_pages.push_back(dirty_sum / kSecondsPerBatch);
        writes_sum = dirty_sum = 0;
        return writes_per_s.size() >= kMinBatches && 2 * mser_truncation(writes_per_s) < writes_per_s.size() &&
               2 * mser_truncation(dirty_pages) < dirty_pages.size();
      };
    const auto ff = s->fast_forward(mix_, fast_forward_rng_, tps / static_cast<double>(servers_.size()), max_s, max_reads, test);
    all_steady = all_steady && ff.steady;
    if (std::getenv("POOLSIM_WARMUP_TRACE"))
      std::fprintf(stderr, "fast-forward: %.0f virtual s at %.0f TPS, %llu transactions, %llu reads, %llu page writes; dirty %.1f %%\n",
                   ff.virtual_s, tps, static_cast<unsigned long long>(ff.transactions), static_cast<unsigned long long>(ff.reads),
                   static_cast<unsigned long long>(ff.page_writes), 100.0 * s->pool().dirty_pages() / std::max(1u, s->pool().frames()));
    virtual_s = std::max(virtual_s, ff.virtual_s);
  }
  if (steady) *steady = all_steady && replayed;  // a pool past its turnovers already was not tested
  return virtual_s;
}

void DatabaseRun::add_interval_figures(nlohmann::ordered_json& interval, double transactions) {
  double dirty = 0, frames = 0;
  std::uint64_t page_writes = 0;
  for (auto& s : servers_) {
    dirty += s->pool().dirty_pages();
    frames += s->pool().frames();
    page_writes += s->counters.page_writes;
  }
  interval["dirty_pct"] = frames > 0 ? 100.0 * dirty / frames : 0.0;
  interval["data_page_writes_per_txn"] =
      transactions > 0 ? static_cast<double>(page_writes - page_writes_at_last_interval_) / transactions : 0.0;
  page_writes_at_last_interval_ = page_writes;
}

void DatabaseRun::report(nlohmann::ordered_json& out, double elapsed_s, double window_end_s) const {
  double txns = static_cast<double>(measurement_.operations);
  double per = txns > 0 ? 1e3 / txns : 0;  // ms per transaction
  out["breakdown_ms"] = {{"cpu", breakdown_.cpu_s * per},
                         {"read_io", breakdown_.read_io_s * per},
                         {"network", breakdown_.network_s * per},
                         {"log_fsync", breakdown_.log_fsync_s * per},
                         {"lock_wait", breakdown_.lock_wait_s * per},
                         {"free_page_wait", breakdown_.free_page_wait_s * per},
                         {"concurrency_queue", breakdown_.queue_s * per},
                         {"serial_section", breakdown_.serial_section_s * per}};
  out["rollbacks_per_s"] = rollbacks_ / elapsed_s;
  auto servers = nlohmann::ordered_json::array();
  for (const auto& s : servers_) servers.push_back(s->report(elapsed_s, txns / servers_.size(), window_end_s));
  out["innodb"] = servers;
}

}  // namespace poolsim
