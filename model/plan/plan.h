// Capacity planning (`poolsim plan`): the cheapest configurations that meet a throughput and latency
// target. A plan names a base scenario, a target, and choices: axes of priced options, each setting
// scenario keys. Every configuration (one option per axis) gets an analytic upper bound on its TPS;
// those whose bound cannot meet the target are pruned, the rest are simulated.
#pragma once
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/errors.h"
#include "scenario/scenario.h"

namespace poolsim {

struct PlanTarget {
  double min_tps = 0;    // 0: no throughput target (transactions per second, all compute nodes)
  double max_p99_s = 0;  // 0: no latency target
  int threads = 0;       // > 0: client threads per compute node to serve (sets workload.threads)
  SourceLocation threads_where;  // where the plan gives `threads`, for errors in the value it sets
};

struct PlanOption {
  std::string name;
  double price_usd = 0;
  std::string source;          // where the price comes from
  std::vector<Override> sets;  // scenario keys this option sets (value as YAML text)
  std::vector<SourceLocation> set_locations;  // where each key is written in the plan
  SourceLocation where;
};

struct PlanAxis {
  std::string name;
  std::vector<PlanOption> options;
};

struct Plan {
  std::string name;
  std::string file;
  std::string scenario_file;  // resolved against the plan's directory
  SourceLocation scenario_where;  // where the plan names it, for a file that cannot be read
  PlanTarget target;
  std::vector<Override> sets;  // keys every configuration sets (before the options')
  std::vector<SourceLocation> set_locations;
  std::vector<PlanAxis> axes;
};

// Throws InputError naming the plan file, line and key.
Plan load_plan(const std::string& file);
Plan load_plan_from_text(const std::string& yaml_text, const std::string& origin_name, const std::string& base_dir = ".");
const schema::Spec& plan_schema();

// An upper bound on a sysbench configuration's TPS from the operational laws (utilisation law per
// resource, Little's law for the client population), with lower bounds on the demands: statement CPU,
// the profile's serial section and the page reads that uniform keys cannot avoid. Writes, locks and
// queueing only lower TPS, so leaving them out keeps it a bound. Also a floor under every
// transaction's latency (its own CPU).
struct ThroughputBound {
  double tps = std::numeric_limits<double>::infinity();
  std::string limit;             // the resource that sets the bound
  double latency_floor_s = 0;    // no transaction is faster: p99 >= this
  double page_reads_per_txn = 0; // lower bound used for the IO resources
  // A measured window can count up to one transaction per client thread more than the long-run
  // rate allows (those in flight when it opens): threads / the shortest window the simulation runs.
  double measurement_slack_tps = 0;
  nlohmann::ordered_json resources = nlohmann::ordered_json::object();  // resource -> TPS it allows
};
ThroughputBound throughput_bound(const Scenario& scenario);

struct Configuration {
  std::vector<size_t> choice;  // option index per axis
  double cost_usd = 0;
  Scenario scenario;
  ThroughputBound bound;
};

// Every combination of one option per axis, in order (the last axis varies fastest). Errors in an
// option's keys or values name the plan file and the option.
std::vector<Configuration> configurations(const Plan& plan);

struct PlanOptions {
  bool prune = true;            // skip configurations whose bound cannot meet the target
  bool cheapest_only = false;   // simulate in cost order and stop once `top` configurations meet
  size_t top = 3;               // how many of the cheapest that meet the target to report
  int jobs = 1;                 // simulations in parallel (cheapest_only: the batch size)
  bool simulate = true;         // false: bounds only (nothing is simulated)
};

// Simulates scenarios and returns their result objects in order (run_points in the CLI).
using Evaluator = std::function<std::vector<nlohmann::ordered_json>(const std::vector<Scenario>&)>;

// Bounds, prunes, simulates and ranks. The document holds every configuration with its cost, bound,
// status (pruned, meets, misses, failed, not-simulated) and figures, the ids of the cheapest that
// meet the target and the Pareto front of cost against simulated TPS.
nlohmann::ordered_json run_plan(const Plan& plan, const std::vector<Configuration>& configs, const PlanOptions& options,
                                const Evaluator& evaluate);

// Whether a simulated result meets the target (point estimates).
bool meets_target(const nlohmann::ordered_json& result, const PlanTarget& target);

// write_drain: the busiest SSD's write rate over its steady-state drain rate.
std::string render_plan_table(const nlohmann::ordered_json& doc);

// The bound of each point of a scenario (`poolsim run FILE --bounds`): params, the bound, the
// resource that sets it, and the TPS every resource allows. As JSON {"points": [...]} or a table.
std::vector<nlohmann::ordered_json> bounds_of(const std::vector<Scenario>& points);
std::string render_bounds_table(const std::vector<nlohmann::ordered_json>& rows);

}  // namespace poolsim
