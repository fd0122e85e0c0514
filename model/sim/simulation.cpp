#include "sim/simulation.h"
#include "sim/worker_pool.h"

#include <iostream>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <new>
#include <simgrid/s4u.hpp>
#include <sstream>

#include "core/temp_directory.h"
#include "platform/platform.h"
#include "sim/measurement.h"
#include "sim/phase_timer.h"
#include "sim/database_run.h"
#include "ndb/ndb_run.h"
#include "workload/fio.h"

namespace poolsim {

namespace sg = simgrid::s4u;

namespace {

struct RunState {
  double measure_start_s = 0;
  double measure_end_s = 0;
  BatchMeans throughput;  // operations per second, one value per batch
  BatchMeans mean_latency, p95_latency, p99_latency;  // per batch, seconds
  nlohmann::ordered_json series = nlohmann::ordered_json::array();
  std::string stop_reason;
  double warmup_s = 0;  // the warm-up discarded (configured or detected)
  double warmup_turnovers = -1;  // the pool's turnovers in the warm-up, when the warm-up counted them
  double fast_forward_s = 0;      // virtual seconds of the warm-up's fast-forward (not in warmup_s)
  bool fast_forward_steady = false;  // the fast-forward ended on its steadiness test (no timed turnovers follow)
  DatabaseRun* database = nullptr;
  NdbRun* ndb = nullptr;
};

// Ends warm-up, then measures batch by batch until the throughput's confidence interval is narrow
// enough (after min_batches) or the duration cap is reached. It is the only non-daemon actor, so the
// simulation ends when it returns.
// A detected warm-up: batches of throughput until MSER truncates less than the first half of the
// series (the transient is over), at most the duration cap.
double detect_warmup(Measurement& measurement, const SimulationConfig& sim) {
  constexpr size_t kMinBatches = 10;
  std::vector<double> rates;
  std::uint64_t last_ops = measurement.warmup_operations;
  double start = sg::Engine::get_clock();
  while (sg::Engine::get_clock() - start < sim.max_duration_s) {
    sg::this_actor::sleep_for(sim.batch_s);
    rates.push_back((measurement.warmup_operations - last_ops) / sim.batch_s);
    last_ops = measurement.warmup_operations;
    if (rates.size() >= kMinBatches && 2 * mser_truncation(rates) < rates.size()) break;
  }
  return sg::Engine::get_clock() - start;
}

bool g_point_progress = false;

// The progress line of set_point_progress: rewritten in place, at most once a wall second, and ended
// with a newline when the point ends.
class ProgressLine {
public:
  void show(const std::function<std::string()>& text) {
    if (!g_point_progress) return;
    const auto now = std::chrono::steady_clock::now();
    if (shown_ && now - last_ < std::chrono::seconds(1)) return;
    last_ = now;
    shown_ = true;
    std::fprintf(stderr, "\rpoolsim: %-100s", text().c_str());
    std::fflush(stderr);
  }
  ~ProgressLine() {
    if (shown_) std::fprintf(stderr, "\n");
  }

private:
  bool shown_ = false;
  std::chrono::steady_clock::time_point last_;
};

void controller(Platform& platform, Measurement& measurement, RunState& state, const SimulationConfig& sim) {
  ProgressLine progress;
  if (sim.warmup_auto) {
    state.warmup_s = detect_warmup(measurement, sim);
  } else if (sim.warmup_fast_forward && sim.warmup_turnovers > 0 && state.database) {
    // The timed pace stretch's second half sets the pace of the virtual clock; the fast-forward
    // brings the turnovers; the timed settle stretch lets the flushing's timed loops take over.
    const double half_s = sim.fast_forward_pace_s / 2;
    sg::this_actor::sleep_for(half_s);
    const std::uint64_t ops = measurement.warmup_operations;
    sg::this_actor::sleep_for(half_s);
    const double tps = static_cast<double>(measurement.warmup_operations - ops) / half_s;
    phase_mark("timed-warmup");
    const double timed_s = sim.fast_forward_pace_s + sim.fast_forward_settle_s;
    const double max_replay_s = std::max(0.0, sim.max_warmup_s - timed_s);
    std::function<void(double)> replay_progress;
    if (g_point_progress)
      replay_progress = [&](double virtual_s) {
        progress.show([&] {
          char text[128];
          std::snprintf(text, sizeof text, "warm-up: replaying %.0f virtual s (%.0f turnovers%s, at most %.0f s)", virtual_s,
                        sim.warmup_turnovers, sim.fast_forward_steady ? " or steady flushing" : "", max_replay_s);
          return std::string(text);
        });
      };
    state.fast_forward_s = state.database->fast_forward(tps, sim.warmup_turnovers, max_replay_s, sim.fast_forward_steady,
                                                        &state.fast_forward_steady, replay_progress);
    phase_mark("fast-forward");
    progress.show([&] {
      char text[96];
      std::snprintf(text, sizeof text, "warm-up: %.0f s simulated, %.0f s of it replayed", sg::Engine::get_clock() + state.fast_forward_s,
                    state.fast_forward_s);
      return std::string(text);
    });
    sg::this_actor::sleep_for(sim.fast_forward_settle_s);
    state.warmup_s = timed_s;
  } else {
    sg::this_actor::sleep_for(state.warmup_s = sim.warmup_s);
  }
  if (sim.warmup_turnovers > 0 && state.database) {
    // Whole batches, so the first measured batch starts on the flushing's one-second beat as before.
    // A fast-forward's virtual seconds count against max_warmup; one that ended steady needs no
    // more turnovers.
    const double start = sg::Engine::get_clock() - state.warmup_s;
    while (!state.fast_forward_steady && state.database->pool_turnovers() < sim.warmup_turnovers &&
           sg::Engine::get_clock() - start + state.fast_forward_s + sim.batch_s <= sim.max_warmup_s + 1e-9) {
      sg::this_actor::sleep_for(sim.batch_s);
      progress.show([&] {
        char text[96];
        std::snprintf(text, sizeof text, "warm-up: %.0f s simulated, %.2f of %.2f pool turnovers", sg::Engine::get_clock() + state.fast_forward_s,
                      state.database->pool_turnovers(), sim.warmup_turnovers);
        return std::string(text);
      });
    }
    state.warmup_s = sg::Engine::get_clock() - start;
    state.warmup_turnovers = state.database->pool_turnovers();
  }
  phase_mark("timed-warmup");
  measurement.measuring = true;
  state.measure_start_s = sg::Engine::get_clock();
  platform.reset_counters(state.measure_start_s);
  if (state.database) state.database->reset_counters();
  if (state.ndb) state.ndb->start_measuring();
  measurement.batch_latency.clear();
  std::uint64_t last_ops = 0;
  const int max_batches = std::max(sim.min_batches, static_cast<int>(std::ceil(sim.max_duration_s / sim.batch_s - 1e-9)));
  while (true) {
    sg::this_actor::sleep_for(sim.batch_s);
    double rate = (measurement.operations - last_ops) / sim.batch_s;
    state.throughput.add(rate);
    last_ops = measurement.operations;
    const auto& b = measurement.batch_latency;
    if (b.count() > 0) {
      state.mean_latency.add(b.mean_s());
      state.p95_latency.add(b.quantile_s(0.95));
      state.p99_latency.add(b.quantile_s(0.99));
    }
    state.series.push_back({{"t_s", sg::Engine::get_clock() - state.measure_start_s}, {"ops_per_s", rate},
                            {"latency_mean_ms", b.mean_s() * 1e3}, {"latency_p95_ms", b.quantile_s(0.95) * 1e3}});
    if (state.database) state.database->add_interval_figures(state.series.back(), rate * sim.batch_s);
    measurement.batch_latency.clear();
    int batches = static_cast<int>(state.throughput.size());
    progress.show([&] {
      char text[128];
      if (batches < 2) {
        std::snprintf(text, sizeof text, "measuring: %d batch", batches);
      } else {
        const auto e = state.throughput.estimate(sim.confidence);
        std::snprintf(text, sizeof text, "measuring: %d batches, %.0f per s +-%.1f %% (stops at +-%.1f %%, %d batches at least)", batches,
                      e.mean, e.mean > 0 ? 100 * e.half_width / e.mean : 0.0, 100 * sim.target_rel_ci, sim.min_batches);
      }
      return std::string(text);
    });
    // Each estimate is a few passes over all the batches: past 1,000 of them, the stop rule looks
    // every thousandth of the run (stopping at most 0.1 % later) rather than after every batch, so
    // a long run's intervals cost linear, not quadratic, time.
    const int check_every = std::max(1, batches / 1000);
    if (batches >= sim.min_batches && (batches - sim.min_batches) % check_every == 0) {
      auto e = state.throughput.estimate(sim.confidence);
      if (e.mean > 0 && e.half_width <= sim.target_rel_ci * e.mean) {
        state.stop_reason = "confidence-reached";
        break;
      }
    }
    if (batches >= max_batches) {
      state.stop_reason = "max-duration";
      break;
    }
  }
  state.measure_end_s = sg::Engine::get_clock();
}

// What a point that ran out of memory says: std::bad_alloc alone named nothing to change. A
// sysbench point's memory grows with the pages of its data set and the frames of its pool, each
// tracked (README, "Speed and memory").
std::string out_of_memory_message(const Scenario& s) {
  std::string text = "ran out of memory (std::bad_alloc)";
  if (s.workload.kind == "sysbench")
    text += ": poolsim tracks every page of the data set (workload.tables " + std::to_string(s.workload.sysbench.tables) +
            " x workload.table_size " + std::to_string(s.workload.sysbench.table_size) + " rows) and every frame of the pool (database.buffer_pool " +
            format_quantity(s.database.buffer_pool_bytes, Dimension::Bytes) + ")";
  return text + "; give the process more memory (ulimit -v) or simulate a smaller configuration";
}

nlohmann::ordered_json latency_json(const LatencyHistogram& h, double scale) {
  return {{"mean", h.mean_s() * scale},    {"p50", h.quantile_s(0.50) * scale}, {"p95", h.quantile_s(0.95) * scale},
          {"p99", h.quantile_s(0.99) * scale}, {"max", h.max_s() * scale}};
}

}  // namespace

std::unique_ptr<sg::Engine> create_engine() {
  // CM02 is the plain latency + size / bandwidth model with max-min sharing: no TCP corrections
  // (LV08's default multiplies latency by ~13), which suits RDMA; TCP's costs are modelled
  // explicitly (per-IO stack CPU and adapter latency, see the fabric presets).
  // Actor stacks of 256 KiB instead of SimGrid's 8 MiB: the default test suite (208 tests) passes with 64 KiB (the
  // actors' calls are shallow), and 4,000 client threads then reserve 1 GiB of address space, not 32
  // (with 8 MiB a 128-thread point failed under `ulimit -v 1500000`).
  static std::vector<std::string> args = {"poolsim", "--cfg=network/model:CM02", "--cfg=network/crosstraffic:0", "--cfg=contexts/stack-size:256",
                                          "--log=root.thresh:critical", "--log=xbt_cfg.thresh:critical"};
  static std::vector<char*> argv;
  argv.clear();
  for (auto& a : args) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  return std::make_unique<sg::Engine>(&argc, argv.data());
}

void set_point_progress(bool on) { g_point_progress = on; }

namespace {
// A warning in the point's JSON and on stderr.
void warn(nlohmann::ordered_json& out, const Scenario& scenario, const std::string& warning) {
  out["warnings"].push_back(warning);
  std::cerr << "poolsim: warning: " << scenario.name << " " << scenario.params.dump() << ": " << warning << "\n";
}
}  // namespace

nlohmann::ordered_json run_point(const Scenario& scenario) {
  phase_mark("start");
  WorkerPool::saturated_pools() = 0;
  auto engine_owner = create_engine();
  auto& engine = *engine_owner;
  Platform platform(scenario, engine);
  Measurement measurement;
  RunState state;
  std::unique_ptr<DatabaseRun> database;
  std::unique_ptr<NdbRun> ndb;  // MySQL NDB Cluster with a custom mix (model/ndb/)
  if (scenario.workload.kind == "sysbench") {
    phase_mark("platform");
    database = std::make_unique<DatabaseRun>(platform, measurement, scenario);
    phase_mark("functional-warmup");
    database->start();
    state.database = database.get();
  } else if (scenario.workload.kind == "ndb") {
    ndb = std::make_unique<NdbRun>(platform, measurement, scenario);
    ndb->start();
    state.ndb = ndb.get();
  } else {
    start_fio(platform, measurement, scenario.workload.fio, scenario.simulation.seed);
  }
  // Other processes on the compute nodes: actors that keep `background_cores` cores busy, a slice at
  // a time in the nodes' CPU queues (not counted as the database's CPU).
  for (auto& node : platform.compute()) {
    double load = scenario.compute.background_cores;
    for (int i = 0; load > 1e-9; ++i, load -= 1.0) {
      double share = std::min(1.0, load);
      ComputeNode* n = &node;
      sg::Actor::create("background-" + std::to_string(i), node.host, [share, n] {
        while (true) {
          const double now_s = sg::Engine::get_clock();
          double ran = n->cores->book(now_s, now_s, n->time_slice_s).end_s;
          sg::this_actor::sleep_until(ran + n->time_slice_s * (1 - share) / share);
        }
      })->daemonize();
    }
  }
  auto& first = platform.compute().front();
  sg::Actor::create("controller", first.host, [&] { controller(platform, measurement, state, scenario.simulation); });
  engine.run();
  phase_mark("measurement");
  if (ndb && ndb->stalled())
    throw InputError({scenario.file, 0, 0}, "workload.mix",
                     "operations of the mix take no simulated time (a load thread ended a thousand of them at the instant they "
                     "started: the costs they meet in ndb are zero or below the clock's resolution), so the closed loop "
                     "would never advance the clock: give some cost a positive time (for example "
                     "ndb.load_generator.link_latency or think_time)");

  double elapsed = state.measure_end_s - state.measure_start_s;
  double confidence = scenario.simulation.confidence;
  auto throughput = state.throughput.estimate(confidence);
  nlohmann::ordered_json out;
  out["params"] = scenario.params;
  out["scenario"] = scenario.name;
  out["workload"] = scenario.workload.kind;
  out["storage"] = scenario.storage.kind;
  if (database) {
    const auto& mix = database->mix();
    double statements = mix.reads() + mix.writes() + mix.others();
    const auto& h = measurement.latency;
    out["tps"] = throughput.mean;
    out["qps"] = throughput.mean * statements;
    out["latency_ms"] = latency_json(h, 1e3);
    out["ci95"] = {{"tps", throughput.half_width},
                   {"qps", throughput.half_width * statements},
                   {"latency_mean_ms", state.mean_latency.estimate(confidence).half_width * 1e3},
                   {"latency_p95_ms", state.p95_latency.estimate(confidence).half_width * 1e3},
                   {"latency_p99_ms", state.p99_latency.estimate(confidence).half_width * 1e3}};
    out["transactions"] = measurement.operations;
    if (measurement.operations == 0) {
      // An empty histogram reads as zero latency: say that nothing was measured rather than print it,
      // and why when it is known (every attempt rolled back: deadlocks on a tiny table).
      std::ostringstream warning_text;
      warning_text << "no transaction completed in the measured " << elapsed << " s: latency_ms is not a measurement ";
      if (database->rollbacks() > 0)
        warning_text << "(every transaction rolled back and was retried: " << database->rollbacks() << " rollbacks, deadlocks on too few rows for the threads)";
      else if (scenario.workload.rate_tps > 0 && database->rate_arrivals_served() == 0)
        warning_text << "(no transaction arrived: workload.rate " << scenario.workload.rate_tps << "/s starts one every "
                     << 1.0 / scenario.workload.rate_tps << " s on average, and " << state.measure_end_s << " s were simulated)";
      else
        warning_text << "(every transaction took longer)";
      warn(out, scenario, warning_text.str());
    }
    database->report(out, elapsed, state.measure_end_s);
  } else if (ndb) {
    out["ops_per_s"] = throughput.mean;
    out["latency_ms"] = latency_json(measurement.latency, 1e3);
    out["ci95"] = {{"ops_per_s", throughput.half_width},
                   {"latency_mean_ms", state.mean_latency.estimate(confidence).half_width * 1e3},
                   {"latency_p95_ms", state.p95_latency.estimate(confidence).half_width * 1e3},
                   {"latency_p99_ms", state.p99_latency.estimate(confidence).half_width * 1e3}};
    out["business_operations"] = measurement.operations;
    const double think_time_s = ndb->config().load_generator.think_time_s;
    if (measurement.operations == 0) {
      // As for transactions and IOs: an empty histogram read as a latency of 0.00 ms.
      std::ostringstream warning_text;
      warning_text << "no business operation completed in the measured " << elapsed << " s: latency_ms is not a measurement ";
      if (think_time_s >= elapsed)
        warning_text << "(the load threads wait ndb.load_generator.think_time " << think_time_s
                     << " s between operations, and start spread over it: a max_duration of several think times measures them)";
      else
        warning_text << "(every operation took longer)";
      warn(out, scenario, warning_text.str());
    } else if (auto missing = ndb->types_not_measured(); !missing.empty()) {
      std::ostringstream warning_text;
      warning_text << "no operation of type";
      for (size_t i = 0; i < missing.size(); ++i) warning_text << (i ? ", '" : " '") << missing[i] << "'";
      warning_text << " completed in the measured " << elapsed
                   << " s: their latencies are null (a rare type or a long one needs a longer max_duration)";
      warn(out, scenario, warning_text.str());
    }
    ndb->report(out, elapsed, state.measure_end_s);  // operations per type, cluster threads (devices, links, cpus)
  } else {
    out["iops"] = throughput.mean;
    out["iops_ci95"] = throughput.half_width;
    out["throughput_MBps"] = measurement.bytes / elapsed / 1e6;
    out["latency_us"] = latency_json(measurement.latency, 1e6);
    out["operations"] = measurement.operations;
    if (measurement.operations == 0) {
      std::ostringstream warning_text;
      warning_text << "no IO completed in the measured " << elapsed << " s: iops and latency_us are not a measurement (every IO took longer)";
      warn(out, scenario, warning_text.str());
    }
  }
  if (WorkerPool::saturated_pools() > 0)
    warn(out, scenario, "workload.rate: the open loop saturated (more than " + std::to_string(WorkerPool::kMaxBacklog) +
                            " arrivals waited, so arrivals stopped): the rate is beyond what the system serves; the throughput is its "
                            "capacity and the latencies are not the open loop's");
  out["simulated_s"] = elapsed;
  out["warmup_s"] = state.warmup_s;
  out["warmup"] = scenario.simulation.warmup_auto ? "detected" : "configured";
  if (state.warmup_turnovers >= 0) out["warmup_turnovers"] = state.warmup_turnovers;
  if (scenario.simulation.warmup_fast_forward) out["warmup_fast_forward_s"] = state.fast_forward_s;
  if (scenario.simulation.warmup_fast_forward && scenario.simulation.fast_forward_steady)
    out["warmup_fast_forward_steady"] = state.fast_forward_steady;
  out["batches"] = throughput.batches;
  // The length of the batches the throughput's interval was computed from (several measured batches
  // merged when consecutive ones were correlated: BatchMeans).
  out["ci95_batch_s"] = throughput.batches_per_ci_batch * scenario.simulation.batch_s;
  out["stop"] = state.stop_reason;
  auto resources = platform.report(state.measure_end_s);
  for (auto& [key, value] : resources.items())
    if (!out.contains(key)) out[key] = value;  // a run may report its own resources (ndb)
  out["bottleneck"] = bottleneck(out);
  out["series"] = state.series;
  if (database || scenario.workload.kind == "fio") out["latency_histogram"] = measurement.latency.to_json();
  return out;
}

nlohmann::ordered_json bottleneck(const nlohmann::ordered_json& result) {
  nlohmann::ordered_json best;
  double highest = -1;
  auto consider = [&](const char* list, const char* name_key, const char* figure,
                      const std::function<std::string(const nlohmann::ordered_json&)>& kind) {
    if (!result.contains(list) || !result[list].is_array()) return;
    for (const auto& r : result[list]) {
      if (!r.contains(figure) || !r.contains(name_key) || !r[figure].is_number()) continue;
      double u = r[figure].get<double>();
      if (u > highest) {
        highest = u;
        best = {{"resource", r[name_key]}, {"kind", kind(r)}, {"utilisation", u}};
      }
    }
  };
  consider("devices", "name", "utilisation", [](const auto&) { return std::string("SSD"); });
  // An SSD's write buffer draining to flash is a resource of its own (pool-scaling saturates it first).
  consider("devices", "name", "write_drain_utilisation", [](const auto&) { return std::string("SSD write drain"); });
  consider("links", "name", "utilisation", [](const auto&) { return std::string("link"); });
  consider("cpus", "host", "utilisation", [](const auto& r) { return r.value("role", std::string("compute")) + " CPU"; });
  // InnoDB's one-at-a-time resources: a saturated serial section (the profiles' global latches) or
  // innodb_thread_concurrency caps TPS with the hardware partly idle.
  consider("innodb", "host", "serial_section_utilisation", [](const auto&) { return std::string("InnoDB serial section"); });
  consider("innodb", "host", "thread_concurrency_utilisation", [](const auto&) { return std::string("InnoDB thread concurrency"); });
  // With per-core run queues one core (the interrupt's) can saturate while the node's mean does not.
  if (result.contains("cpus") && result["cpus"].is_array())
    for (const auto& r : result["cpus"]) {
      if (!r.contains("core_utilisation") || !r["core_utilisation"].is_array() || !r.contains("host")) continue;
      const auto& cores = r["core_utilisation"];
      for (size_t c = 0; c < cores.size(); ++c)
        if (cores[c].is_number() && cores[c].get<double>() > highest) {
          highest = cores[c].get<double>();
          best = {{"resource", r["host"].get<std::string>() + "/core" + std::to_string(c)},
                  {"kind", "compute CPU core"},
                  {"utilisation", highest}};
        }
    }
  return best;
}

namespace {

// SIGINT or SIGTERM while points run: the handler only notes the signal; the parent's wait loop then
// stops its children, removes their directory and throws Interrupted.
volatile std::sig_atomic_t g_interrupt_signal = 0;
extern "C" void note_interrupt(int signal) { g_interrupt_signal = signal; }

// Takes SIGINT and SIGTERM over while their action is the default one (a host that handles them
// itself, such as Python, keeps its handlers), and gives them back.
class InterruptGuard {
public:
  InterruptGuard() {
    for (int i = 0; i < kCount; ++i) {
      struct sigaction current {};
      if (sigaction(kSignals[i], nullptr, &current) != 0 || current.sa_handler != SIG_DFL) continue;
      struct sigaction noting {};
      noting.sa_handler = note_interrupt;
      sigemptyset(&noting.sa_mask);
      installed_[i] = sigaction(kSignals[i], &noting, &saved_[i]) == 0;
    }
  }
  ~InterruptGuard() { restore(); }
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
  void restore() {
    for (int i = 0; i < kCount; ++i)
      if (installed_[i]) sigaction(kSignals[i], &saved_[i], nullptr), installed_[i] = false;
  }
  // The signals it takes over, as a set (to block them).
  static sigset_t signal_set() {
    sigset_t set;
    sigemptyset(&set);
    for (int signal : kSignals) sigaddset(&set, signal);
    return set;
  }

private:
  static constexpr int kCount = 2;
  static constexpr int kSignals[kCount] = {SIGINT, SIGTERM};
  struct sigaction saved_[kCount] {};
  bool installed_[kCount] = {false, false};
};

// The child processes of run_points and the directory their results come back through: whatever
// ends the run (the last point, an exception, a signal), no child outlives it and the directory goes.
struct PointProcesses {
  TempDirectory dir{"poolsim-"};  // results come back through files here
  std::map<pid_t, size_t> running;
  ~PointProcesses() { stop(); }
  void stop() {
    // SIGKILL: a child holds nothing but its result file, in the directory removed below.
    for (const auto& [pid, point] : running) kill(pid, SIGKILL);
    for (const auto& [pid, point] : running) waitpid(pid, nullptr, 0);
    running.clear();
    dir.remove();
  }
};

}  // namespace

std::vector<nlohmann::ordered_json> run_points(const std::vector<Scenario>& points, int jobs,
                                               const std::function<void(size_t, size_t)>& progress,
                                               std::vector<PointUsage>* point_usage) {
  jobs = std::max(1, jobs);
  InterruptGuard interrupts;
  std::vector<nlohmann::ordered_json> results(points.size());
  if (point_usage) point_usage->assign(points.size(), PointUsage{});
  PointProcesses processes;
  const std::string dir = processes.dir.path();
  auto& running = processes.running;
  size_t next = 0, done = 0;
  auto result_file = [&](size_t i) { return dir + "/point-" + std::to_string(i) + ".json"; };
  // Stops the children, removes the directory and gives the signals back, then unwinds (Interrupted).
  auto stop_if_interrupted = [&] {
    const int signal = g_interrupt_signal;
    if (signal == 0) return;
    g_interrupt_signal = 0;
    processes.stop();
    interrupts.restore();
    throw Interrupted{signal};
  };
  std::fflush(nullptr);
  while (done < points.size()) {
    stop_if_interrupted();
    while (next < points.size() && static_cast<int>(running.size()) < jobs) {
      // The signals wait while the child is made, so that it has the default actions before one can
      // reach it (and dies of it, as before); the parent's arrives when it unblocks them.
      const sigset_t interrupt_signals = InterruptGuard::signal_set();
      sigset_t previous;
      sigprocmask(SIG_BLOCK, &interrupt_signals, &previous);
      pid_t pid = fork();
      if (pid == 0) interrupts.restore();
      sigprocmask(SIG_SETMASK, &previous, nullptr);
      if (pid < 0) throw std::runtime_error("fork failed");
      if (pid == 0) {
        int code = 0;
        nlohmann::ordered_json r;
        try {
          r = run_point(points[next]);
        } catch (const std::bad_alloc&) {
          r = {{"params", points[next].params}, {"error", out_of_memory_message(points[next])}};
          code = 3;
        } catch (const std::exception& e) {
          r = {{"params", points[next].params}, {"error", e.what()}};
          code = 3;
        }
        std::string tmp = result_file(next) + ".tmp";
        {
          std::ofstream out(tmp);
          out << r.dump();
        }
        std::rename(tmp.c_str(), result_file(next).c_str());
        std::fflush(nullptr);
        _exit(code);
      }
      running[pid] = next++;
    }
    // Wait for one of our own children only (a caller such as Python may have others), polling
    // them; a signal interrupting the wait is not an error.
    int status = 0;
    struct rusage usage {};
    auto it = running.end();
    while (it == running.end()) {
      for (auto r = running.begin(); r != running.end(); ++r) {
        pid_t pid = wait4(r->first, &status, WNOHANG, &usage);
        if (pid == r->first || (pid < 0 && errno == ECHILD)) {
          if (pid < 0) status = 0;
          it = r;
          break;
        }
      }
      if (it == running.end()) {
        stop_if_interrupted();
        usleep(2000);
      }
    }
    size_t i = it->second;
    running.erase(it);
    if (point_usage) (*point_usage)[i] = {rusage_cpu_s(usage), usage.ru_maxrss};
    std::ifstream in(result_file(i));
    if (in) {
      std::stringstream text;
      text << in.rdbuf();
      results[i] = nlohmann::ordered_json::parse(text.str(), nullptr, false);
    }
    if (!in || results[i].is_discarded()) {
      std::string why = WIFSIGNALED(status) ? "killed by signal " + std::to_string(WTERMSIG(status))
                                            : "exited with code " + std::to_string(WEXITSTATUS(status));
      results[i] = {{"params", points[i].params}, {"error", "the simulation process " + why}};
    }
    std::remove(result_file(i).c_str());
    ++done;
    if (progress) progress(done, points.size());
  }
  stop_if_interrupted();
  return results;  // (the directory goes with `processes`)
}

}  // namespace poolsim
