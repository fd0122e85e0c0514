#include "bench.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
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

// Runs one point in a child process and measures its wall time and peak RSS (wait4's rusage).
BenchFigures measure(const Scenario& scenario) {
  char path[] = "/tmp/poolsim-bench-XXXXXX";
  int fd = mkstemp(path);
  if (fd >= 0) close(fd);
  auto start = std::chrono::steady_clock::now();
  std::fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    std::remove(path);
    return {};  // not ok: reported as failed
  }
  if (pid == 0) {
    // The child never returns into the bench: a failed point leaves no figures (reported as failed).
    try {
      auto r = run_point(scenario);
      std::ofstream(path) << r.dump();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "poolsim bench: %s\n", e.what());
      std::fflush(nullptr);
      _exit(3);
    }
    std::fflush(nullptr);
    _exit(0);
  }
  int status = 0;
  struct rusage usage {};
  wait4(pid, &status, 0, &usage);
  BenchFigures f;
  f.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  f.max_rss_kb = usage.ru_maxrss;
  f.cpu_s = rusage_cpu_s(usage);
  std::ifstream in(path);
  auto doc = nlohmann::json::parse(in, nullptr, false);
  std::remove(path);
  if (!doc.is_discarded() && doc.contains("tps")) {
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

// Each matrix point's CPU beside what it simulated (timed seconds, fast-forwarded virtual seconds),
// then the CPU by pool size: where the matrix's time goes.
void print_matrix_points(const std::vector<nlohmann::ordered_json>& results, const std::vector<double>& cpu_s, double cpu_total_s) {
  std::map<std::string, double> cpu_by_pool;
  auto text = [](const nlohmann::ordered_json& value) { return value.is_string() ? value.get<std::string>() : value.dump(); };
  std::printf("%-52s %8s %8s %8s %8s\n", "point", "tps", "timed s", "ff s", "cpu s");
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    std::string label;
    if (r.contains("params"))
      for (const auto& [key, value] : r["params"].items()) label += (label.empty() ? "" : " ") + text(value);
    if (r.contains("error") || !r.contains("tps")) {
      std::printf("%-52s ERR %s\n", label.c_str(), r.value("error", std::string("no figures")).c_str());
      continue;
    }
    std::printf("%-52s %8.0f %8.1f %8.0f %8.2f\n", label.c_str(), r["tps"].get<double>(),
                r["simulated_s"].get<double>() + r["warmup_s"].get<double>(), r.value("warmup_fast_forward_s", 0.0), cpu_s[i]);
    const auto& params = r["params"];
    if (params.contains("database.buffer_pool")) cpu_by_pool[text(params["database.buffer_pool"])] += cpu_s[i];
  }
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
    std::vector<double> cpu_s;
    auto results = run_points(points, jobs, {}, &cpu_s);
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    double cpu_total = children_cpu_s() - cpu_before;
    print_matrix_points(results, cpu_s, cpu_total);
    std::printf("seed-000 matrix: %zu points with --jobs %d in %.1f s (cpu %.1f s over all points)\n", points.size(), jobs,
                wall, cpu_total);
  } else {
    std::printf("(add --matrix for the seed-000 matrix)\n");
  }
  return 0;
}

}  // namespace poolsim
