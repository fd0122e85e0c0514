// Running scenarios. SimGrid allows one Engine per OS process, so run_point() may be called once per
// process; run_points() runs each point in a child process, `jobs` at a time.
#pragma once
#include <functional>
#include <memory>
#include <simgrid/s4u/Engine.hpp>
#include <nlohmann/json.hpp>
#include <vector>

#include "scenario/scenario.h"

namespace poolsim {

// Creates this process's SimGrid engine with poolsim's models (CM02 network, quiet logs).
std::unique_ptr<simgrid::s4u::Engine> create_engine();

// Simulates one point in this process and returns its result object (params + figures).
nlohmann::ordered_json run_point(const Scenario& scenario);

// A one-point run's progress on stderr, one line rewritten at most once a wall second: the warm-up's
// simulated seconds, then the measured batches and the TPS interval against the stop rule's target
// (a long point otherwise prints nothing for minutes). Off by default; the CLI turns it on when a
// single point runs with stderr on a terminal.
void set_point_progress(bool on);

// The busiest resource of a result (devices, links, CPUs): {"resource", "kind", "utilisation"}, where
// kind is "SSD", "link", "compute CPU" or "storage CPU"; null when the result reports none.
nlohmann::ordered_json bottleneck(const nlohmann::ordered_json& result);

// What a point's process cost, from wait4's rusage (the benchmark's figures).
struct PointUsage {
  double cpu_s = 0;      // user + system time
  long max_rss_kb = 0;   // peak resident set
};

// Thrown by run_points when SIGINT or SIGTERM arrived while its points ran (it takes them over where
// their action is the default one), after its children are stopped and their files removed. Not a
// std::exception, so that error handlers pass it on and every scope cleans up as the stack unwinds;
// the CLI then dies of the signal.
struct Interrupted {
  int signal;
};

// Simulates each point in a forked child process, at most `jobs` at once, in order of the input.
// A point that fails has {"params":..., "error": "..."} instead of figures. With `usage`, each point's
// process cost is returned there, in the same order.
std::vector<nlohmann::ordered_json> run_points(const std::vector<Scenario>& points, int jobs,
                                               const std::function<void(size_t done, size_t total)>& progress = {},
                                               std::vector<PointUsage>* usage = nullptr);

}  // namespace poolsim
