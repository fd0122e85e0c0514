// Open-loop load without an actor per request: arrivals wait in our own queue and a pool of worker
// actors serves them, each suspended while idle (creating a SimGrid actor costs tens of us of wall
// time; a resume costs a few). The pool grows when every worker is busy, up to an optional bound
// (sysbench --rate with N threads: arrivals beyond N wait in the queue).
#pragma once
#include <simgrid/s4u.hpp>

#include <deque>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace poolsim {

class WorkerPool {
public:
  // `serve(arrival_s)` runs in a worker for each submitted arrival.
  // At most `max_workers` serve at once (0: unbounded); further arrivals wait in the queue.
  WorkerPool(simgrid::s4u::Host* host, std::string name, std::function<void(double)> serve, size_t max_workers = 0)
      : host_(host), name_(std::move(name)), serve_(std::move(serve)), max_workers_(max_workers) {}

  // An unbounded pool stops growing here: each worker is an actor with its own stack (memory
  // mappings the kernel limits), and more servers than this only hide that the load is beyond the
  // system's capacity. Arrivals beyond them wait in the queue.
  static constexpr size_t kMaxWorkers = 4096;
  // Arrivals waiting beyond this mean the rate exceeds what the system serves: the queue would only
  // grow (and each arrival costs an event), so the generator stops and the run reports saturation.
  static constexpr size_t kMaxBacklog = 100000;

  // Called from the generating actor at the arrival time. False when the backlog is full: the open
  // loop is saturated and the generator should stop.
  bool submit(double arrival_s) {
    if (pending_.size() >= kMaxBacklog) {
      ++saturated_pools();
      return false;
    }
    pending_.push_back(arrival_s);
    if (!idle_.empty()) {
      auto worker = idle_.back();
      idle_.pop_back();
      worker->resume();
    } else if (count_ < (max_workers_ == 0 ? kMaxWorkers : max_workers_)) {
      spawn();
    }
    return true;
  }

  // Pools whose generator stopped at a full backlog in this process's current run (run_point resets it).
  static int& saturated_pools() {
    static int count = 0;
    return count;
  }

  size_t workers() const { return count_; }

  // Starts an actor that submits Poisson arrivals at `rate_per_s` to `pool` forever (a daemon).
  static void start_poisson(const std::shared_ptr<WorkerPool>& pool, double rate_per_s, std::uint64_t seed) {
    simgrid::s4u::Actor::create(pool->name_ + "-arrivals", pool->host_, [pool, rate_per_s, seed] {
      std::mt19937_64 rng(seed);
      std::exponential_distribution<double> gap(rate_per_s);
      while (true) {
        simgrid::s4u::this_actor::sleep_for(gap(rng));
        // Saturated: stop generating, but keep the pool (its workers still drain the queue) alive.
        if (!pool->submit(simgrid::s4u::Engine::get_clock())) simgrid::s4u::this_actor::suspend();
      }
    })->daemonize();
  }

private:
  void spawn() {
    ++count_;
    simgrid::s4u::Actor::create(name_ + "-" + std::to_string(count_), host_, [this] {
      auto self = simgrid::s4u::Actor::self();
      while (true) {
        while (pending_.empty()) {
          idle_.push_back(self);
          simgrid::s4u::this_actor::suspend();
        }
        double arrival = pending_.front();
        pending_.pop_front();
        serve_(arrival);
      }
    })->daemonize();
  }

  simgrid::s4u::Host* host_;
  std::string name_;
  std::function<void(double)> serve_;
  std::deque<double> pending_;
  std::vector<simgrid::s4u::ActorPtr> idle_;
  size_t count_ = 0;
  size_t max_workers_ = 0;
};

}  // namespace poolsim
