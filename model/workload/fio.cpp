#include "workload/fio.h"

#include <random>

#include "sim/worker_pool.h"

namespace poolsim {

namespace sg = simgrid::s4u;

namespace {

struct IoIssuer {
  StoragePath* path;
  const FioConfig* config;
  Measurement* measurement;
  std::uint64_t blocks;
  std::mt19937_64 rng;
  int writes_since_fsync = 0;

  void one_io() {
    const auto& c = *config;
    bool is_read = c.rw == "randread" ||
                   (c.rw == "randrw" && std::uniform_real_distribution<double>(0, 1)(rng) < c.read_fraction);
    auto offset = static_cast<std::uint64_t>(std::uniform_int_distribution<std::uint64_t>(0, blocks - 1)(rng) * c.block_bytes);
    double start = sg::Engine::get_clock();
    if (is_read) {
      path->read(offset, c.block_bytes);
    } else {
      path->write(offset, c.block_bytes, WriteQueue::Flushing);  // a job's IOs: one queue, in order
      if (c.fsync_every > 0 && ++writes_since_fsync >= c.fsync_every) {
        writes_since_fsync = 0;
        path->flush();
      }
    }
    measurement->complete(sg::Engine::get_clock() - start, c.block_bytes);
  }
};

}  // namespace

void start_fio(Platform& platform, Measurement& measurement, const FioConfig& config, std::uint64_t seed) {
  for (size_t n = 0; n < platform.compute().size(); ++n) {
    auto& node = platform.compute()[n];
    double span = config.span_bytes > 0 ? config.span_bytes : node.storage->capacity_bytes();
    auto blocks = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(span / config.block_bytes));
    if (config.rate_iops > 0) {
      // Open loop: one generator per node; a worker pool serves the arrivals.
      auto issuer = std::make_shared<IoIssuer>(
          IoIssuer{node.storage.get(), &config, &measurement, blocks, std::mt19937_64(seed * 1000003 + n), 0});
      auto pool = std::make_shared<WorkerPool>(node.host, "fio-" + std::to_string(n), [issuer](double) { issuer->one_io(); });
      WorkerPool::start_poisson(pool, config.rate_iops, issuer->rng());
      continue;
    }
    for (int j = 0; j < config.numjobs * config.iodepth; ++j) {
      auto issuer = std::make_shared<IoIssuer>(
          IoIssuer{node.storage.get(), &config, &measurement, blocks, std::mt19937_64(seed * 7919 + n * 100003 + j), 0});
      sg::Actor::create("fio-" + std::to_string(n) + "-" + std::to_string(j), node.host, [issuer] {
        while (true) issuer->one_io();
      })->daemonize();
    }
  }
}

}  // namespace poolsim
