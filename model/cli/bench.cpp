#include "bench.h"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "scenario/scenario.h"
#include "sim/phase_timer.h"
#include "sim/simulation.h"

namespace poolsim {

namespace {

struct BenchFigures {
  double wall_s = 0;
  double cpu_s = 0;  // the child's user + system time: what the point cost on a shared machine
  double transactions = 0;
  double simulated_s = 0;
  double tps = 0;
  double fast_forward_s = 0;  // virtual seconds the warm-up replayed without timing (not in simulated_s)
  long max_rss_kb = 0;
  bool ok = false;
};

// Runs one point in a child process (run_points: a failed point, a signal or an interrupt are
// handled there) and measures its wall time, CPU and peak RSS.
BenchFigures measure(const Scenario& scenario) {
  auto start = std::chrono::steady_clock::now();
  std::vector<PointUsage> usage;
  const auto doc = run_points({scenario}, 1, {}, &usage).at(0);
  BenchFigures f;
  f.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  f.max_rss_kb = usage.at(0).max_rss_kb;
  f.cpu_s = usage.at(0).cpu_s;
  if (doc.contains("error")) std::fprintf(stderr, "poolsim bench: %s\n", doc["error"].get<std::string>().c_str());
  if (!doc.contains("error") && doc.contains("tps")) {
    f.ok = true;
    f.transactions = doc["transactions"].get<double>();
    f.simulated_s = doc["simulated_s"].get<double>() + doc["warmup_s"].get<double>();
    f.tps = doc["tps"].get<double>();
    f.fast_forward_s = doc.value("warmup_fast_forward_s", 0.0);
  }
  return f;
}

// User + system time of the waited-for child processes so far.
double children_cpu_s() {
  struct rusage usage {};
  getrusage(RUSAGE_CHILDREN, &usage);
  return rusage_cpu_s(usage);
}

void print(const char* label, const BenchFigures& f) {
  // Simulated transactions over the whole run (warm-up included) per wall second and per CPU second
  // of the point's process (one core; the CPU figure does not depend on other load on the machine).
  double simulated_txn = f.tps * f.simulated_s;
  std::printf("%-44s %s  wall %.2f s  cpu %.2f s  simulated %.2f s  tps %.0f  simulated txn per wall s %.0f  per cpu s %.0f  "
              "peak RSS %.0f MiB\n",
              label, f.ok ? "ok " : "ERR", f.wall_s, f.cpu_s, f.simulated_s, f.tps, simulated_txn / f.wall_s,
              simulated_txn / std::max(f.cpu_s, 1e-9), f.max_rss_kb / 1024.0);
  // A fast-forwarded warm-up replays transactions without timing: shown apart, with the rate that
  // counts them too (at the point's TPS).
  if (f.fast_forward_s > 0)
    std::printf("%-44s      fast-forwarded %.0f virtual s: with its transactions, %.0f txn per cpu s\n", "", f.fast_forward_s,
                f.tps * (f.simulated_s + f.fast_forward_s) / std::max(f.cpu_s, 1e-9));
}

// Each matrix point's CPU and peak RSS beside what it simulated (timed seconds, fast-forwarded
// virtual seconds), then the CPU by pool size (where the matrix's time goes) and the largest point.
void print_matrix_points(const std::vector<nlohmann::ordered_json>& results, const std::vector<PointUsage>& usage, double cpu_total_s) {
  std::map<std::string, double> cpu_by_pool;
  long largest_rss_kb = 0;
  auto text = [](const nlohmann::ordered_json& value) { return value.is_string() ? value.get<std::string>() : value.dump(); };
  std::printf("%-52s %8s %8s %8s %8s %8s\n", "point", "tps", "timed s", "ff s", "cpu s", "RSS MiB");
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    std::string label;
    if (r.contains("params"))
      for (const auto& [key, value] : r["params"].items()) label += (label.empty() ? "" : " ") + text(value);
    if (r.contains("error") || !r.contains("tps")) {
      std::printf("%-52s ERR %s\n", label.c_str(), r.value("error", std::string("no figures")).c_str());
      continue;
    }
    std::printf("%-52s %8.0f %8.1f %8.0f %8.2f %8.0f\n", label.c_str(), r["tps"].get<double>(),
                r["simulated_s"].get<double>() + r["warmup_s"].get<double>(), r.value("warmup_fast_forward_s", 0.0), usage[i].cpu_s,
                usage[i].max_rss_kb / 1024.0);
    largest_rss_kb = std::max(largest_rss_kb, usage[i].max_rss_kb);
    const auto& params = r["params"];
    if (params.contains("database.buffer_pool")) cpu_by_pool[text(params["database.buffer_pool"])] += usage[i].cpu_s;
  }
  std::printf("largest point's peak RSS %.0f MiB\n", largest_rss_kb / 1024.0);
  for (const auto& [pool, cpu] : cpu_by_pool)
    std::printf("pool %-10s cpu %8.1f s (%4.1f %% of the matrix)\n", pool.c_str(), cpu, 100.0 * cpu / std::max(cpu_total_s, 1e-9));
}

}  // namespace

int run_bench(bool matrix, int jobs) {
  const std::string seed000 = POOLSIM_SOURCE_DIR "/scenarios/default.yaml";
  // 1. A cached 8-thread run: 8 x 100k rows in a pool that holds them, clients on the host.
  auto cached = load_scenarios_from_text(
      "compute: {cores: 8}\nstorage: {kind: local, device: pcie4-nvme-tlc}\n"
      "database: {buffer_pool: 4GiB}\n"
      "workload: {kind: sysbench, test: oltp_read_write, tables: 8, table_size: 100000, rand_type: uniform, threads: 8}\n"
      "simulation: {warmup: 1s, batch: 0.5s, min_batches: 10, target_ci: 2%, max_duration: 10s}\n",
      "bench-cached")[0];
  print("cached, 8 threads", measure(cached));
  // 2. The seed-000 128-thread point at a 47 GiB pool, pooled NVMe.
  auto point = load_scenarios(seed000, {parse_override("sweep.workload.threads=[128]"), parse_override("sweep.storage.kind=[pool]")})[0];
  print("seed-000, 128 threads, 47 GiB pool, NVMe-oF", measure(point));
  if (matrix) {
    // 3. The seed-000 matrix: 2 storage x 2 server versions (GreatSQL 5.7 and 8.0, seed S000's
    //    scenario) x 4 pool sizes x 5 thread counts = 80 points.
    auto points = load_scenarios(POOLSIM_SOURCE_DIR "/scenarios/seeds/greatsql-ib-pool.yaml",
                                 {parse_override("sweep.database.buffer_pool=[47GiB,93GiB,140GiB,186GiB]")});
    auto start = std::chrono::steady_clock::now();
    double cpu_before = children_cpu_s();
    std::vector<PointUsage> usage;
    auto results = run_points(points, jobs, {}, &usage);
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    double cpu_total = children_cpu_s() - cpu_before;
    print_matrix_points(results, usage, cpu_total);
    std::printf("seed-000 matrix: %zu points with --jobs %d in %.1f s (cpu %.1f s over all points)\n", points.size(), jobs,
                wall, cpu_total);
  } else {
    std::printf("(add --matrix for the seed-000 matrix)\n");
  }
  return 0;
}

}  // namespace poolsim
