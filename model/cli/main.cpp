// poolsim: the command line. Verbs: run, plan, schema, calibrate, validate, bench. With no arguments it runs the default scenario.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <thread>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <set>
#include <sstream>

#include "bench.h"
#include "calibration.h"
#include "flush_fit.h"
#include "validation.h"
#include "core/errors.h"
#include "core/output_guard.h"
#include "plan/plan.h"
#include "scenario/scenario.h"
#include "sim/output.h"
#include "sim/simulation.h"

namespace {

constexpr int kExitBadInput = 2;
constexpr int kExitSimulationFailed = 3;

const char* kDefaultScenario = POOLSIM_SOURCE_DIR "/scenarios/default.yaml";

using Input = poolsim::CommandInput;
using poolsim::refuse_output_over_inputs;
using poolsim::require_utf8_names;

// The files a scenario's points name besides the scenario file: its `catalogue:` files and a profile
// given by path, as the loader resolved them; each once (a sweep's or a plan's points share them).
template <typename Points, typename ScenarioOf>
std::vector<Input> scenario_inputs(const Points& points, ScenarioOf scenario_of) {
  std::vector<Input> inputs;
  std::set<std::string> seen;
  auto add = [&](const char* what, const std::string& path) {
    if (seen.insert(path).second) inputs.push_back({what, path});
  };
  for (const auto& point : points) {
    const poolsim::Scenario& s = scenario_of(point);
    for (const auto& f : s.catalogue_files) add("the scenario's device catalogue", f);
    if (!s.profile_file.empty()) add("the scenario's profile", s.profile_file);
  }
  return inputs;
}
std::vector<Input> scenario_inputs(const std::vector<poolsim::Scenario>& points) {
  return scenario_inputs(points, [](const poolsim::Scenario& s) -> const poolsim::Scenario& { return s; });
}

int run_scenario(const std::string& file, const std::vector<std::string>& sets, const std::string& format,
                 const std::string& out_path, int jobs, bool bounds_only = false) {
  require_utf8_names({file}, "run");
  refuse_output_over_inputs(out_path, "--out", {{"the scenario", file}});
  std::vector<poolsim::Override> overrides;
  // A key typed twice on the command line: the last would win, and the first be ignored without a
  // word (the library applies overrides in order, which the Python sweeps rely on).
  std::set<std::string> keys;
  for (const auto& s : sets) {
    overrides.push_back(poolsim::parse_override(s));
    if (!keys.insert(overrides.back().path).second)
      throw poolsim::InputError({"--set " + s, 0, 0}, overrides.back().path, "--set gives this key twice");
  }
  std::vector<poolsim::Scenario> points;
  try {
    points = poolsim::load_scenarios(file, overrides);
  } catch (const poolsim::InputError& e) {
    // A check across keys that a --set made fail is that --set's (the scenario alone loads).
    if (const auto k = poolsim::override_behind(e, file, overrides))
      throw poolsim::InputError({"--set " + sets[*k], 0, 0}, e.key(), poolsim::refused_with_the_scenarios_settings(e));
    throw;
  }
  // The files the points read (their catalogues, a profile given by path) are inputs too: known once
  // the points are loaded, still before any is simulated.
  refuse_output_over_inputs(out_path, "--out", scenario_inputs(points));
  if (bounds_only) {  // analytic bounds, nothing simulated (sysbench points)
    if (format == "csv") throw poolsim::InputError({"--format", 0, 0}, "format", "--bounds prints a table or JSON (--format table|json)");
    std::vector<poolsim::Scenario> sysbench;
    for (auto& p : points)
      if (p.workload.kind == "sysbench") sysbench.push_back(std::move(p));
    if (sysbench.empty()) throw poolsim::InputError({file, 0, 0}, "workload.kind", "--bounds needs sysbench points");
    // Said, not silently dropped: the bounds are sysbench's (fio and NDB points have none).
    if (sysbench.size() < points.size())
      std::cerr << "poolsim: note: --bounds leaves out " << points.size() - sysbench.size() << " of " << points.size()
                << " points whose workload.kind is not sysbench\n";
    auto rows = poolsim::bounds_of(sysbench);
    nlohmann::ordered_json doc;
    doc["points"] = rows;
    poolsim::write_output(out_path, format == "json" ? doc.dump(2) + "\n" : poolsim::render_bounds_table(rows));
    return 0;
  }
  poolsim::OutputFormat fmt = format == "json"  ? poolsim::OutputFormat::Json
                              : format == "csv" ? poolsim::OutputFormat::Csv
                                                : poolsim::OutputFormat::Table;
  bool show_progress = points.size() > 1 && isatty(2);
  // One point shows its own progress (POOLSIM_PROGRESS=1 asks for it where stderr is not a terminal).
  const char* progress_env = std::getenv("POOLSIM_PROGRESS");
  poolsim::set_point_progress(points.size() == 1 && (isatty(2) || (progress_env && std::string(progress_env) == "1")));
  auto results = poolsim::run_points(points, jobs, [&](size_t done, size_t total) {
    if (show_progress) std::cerr << "\rpoolsim: " << done << "/" << total << " points" << (done == total ? "\n" : "") << std::flush;
  });
  int failed = 0;
  for (const auto& r : results)
    if (r.contains("error")) {
      std::cerr << "poolsim: point " << r["params"].dump() << " failed: " << r["error"].get<std::string>() << "\n";
      ++failed;
    }
  if (failed) return kExitSimulationFailed;  // nothing written: outputs are whole or absent
  poolsim::write_output(out_path, poolsim::render(results, fmt));
  return 0;
}

int plan_command(const std::string& file, const poolsim::PlanOptions& options, const std::string& format,
                 const std::string& out_path) {
  require_utf8_names({file}, "plan");
  auto plan = poolsim::load_plan(file);
  refuse_output_over_inputs(out_path, "--out", {{"the plan", file}, {"the plan's scenario", plan.scenario_file}});
  auto configs = poolsim::configurations(plan);  // every option's keys and values checked before any simulation
  // The catalogues and profiles the configurations read (the scenario's, or an option's) are inputs too.
  refuse_output_over_inputs(out_path, "--out",
                            scenario_inputs(configs, [](const poolsim::Configuration& c) -> const poolsim::Scenario& { return c.scenario; }));
  bool show_progress = isatty(2);
  size_t done_before = 0;
  auto doc = poolsim::run_plan(plan, configs, options, [&](const std::vector<poolsim::Scenario>& points) {
    auto results = poolsim::run_points(points, options.jobs, [&](size_t done, size_t) {
      if (show_progress) std::cerr << "\rpoolsim plan: " << done_before + done << " simulated" << std::flush;
    });
    done_before += points.size();
    return results;
  });
  if (show_progress && done_before > 0) std::cerr << "\n";
  poolsim::write_output(out_path, format == "json" ? doc.dump(2) + "\n" : poolsim::render_plan_table(doc));
  for (const auto& c : doc["configurations"])
    if (c["status"] == "failed") return kExitSimulationFailed;
  return 0;
}

int calibrate_command(const std::vector<std::string>& dirs, const std::string& out, const std::string& name,
                      const std::vector<std::string>& background_dirs, const poolsim::FlushFitOptions& flush_fit) {
  std::vector<poolsim::Trace> traces, background;
  poolsim::refuse_repeated_traces(dirs);
  require_utf8_names(dirs, "traces");
  require_utf8_names(background_dirs, "--background");
  std::vector<Input> inputs;
  for (const auto& d : dirs) inputs.push_back({"the trace", d, true});
  for (const auto& d : background_dirs) inputs.push_back({"the background trace", d, true});
  refuse_output_over_inputs(out, "-o", inputs);
  refuse_output_over_inputs(poolsim::devices_file_for(out), "-o", inputs);
  for (const auto& d : dirs) traces.push_back(poolsim::load_trace(d));
  for (const auto& d : background_dirs) background.push_back(poolsim::load_trace(d));
  std::string profile_name = name.empty() ? std::filesystem::path(out).stem().string() : name;
  // A device the traces did not measure keeps its catalogue figures but gets its flush latency
  // fitted by simulating the fsyncing traces with the profile; a device fitted from fio gets its
  // write buffer's size fitted on the page-writing traces' write await the same way.
  auto result = poolsim::calibrate_with_flush_fit(traces, profile_name, background, flush_fit);
  std::cerr << result.report;
  poolsim::write_outputs({{out, result.profile_yaml}, {poolsim::devices_file_for(out), result.devices_yaml}});
  std::cerr << "poolsim calibrate: wrote " << out << " and " << poolsim::devices_file_for(out) << "\n";
  return 0;
}

int validate_command(const poolsim::ValidationOptions& options, const std::vector<std::string>& dirs,
                     const std::string& scenario, const std::string& table, const poolsim::ValidationThresholds& thresholds,
                     const std::string& format, const std::string& out_path) {
  std::vector<Input> inputs = {{"the profile", options.profile}, {"the device catalogue", options.devices},
                               {"the scenario", scenario}, {"the table", table}};
  if (!options.profile.empty()) inputs.push_back({"the profile's device catalogue", poolsim::devices_file_for(options.profile)});
  for (const auto& d : dirs) inputs.push_back({"the trace", d, true});
  refuse_output_over_inputs(out_path, "--out", inputs);
  poolsim::refuse_repeated_traces(dirs, "traces", "the summary's median and maximum and in the gates");
  require_utf8_names(dirs, "traces");
  require_utf8_names({scenario, table, options.profile}, "validate");
  if (!scenario.empty() && !out_path.empty()) {
    // The scenario's catalogue files and profile, as validate_table loads it (--profile in place of
    // the scenario's own, the sweep left out).
    std::vector<poolsim::Override> profile;
    if (!options.profile.empty()) profile.push_back({"database.profile", std::filesystem::absolute(options.profile).string()});
    refuse_output_over_inputs(out_path, "--out", scenario_inputs(poolsim::load_scenarios(scenario, profile, false)));
  }
  auto doc = table.empty() ? poolsim::validate_traces(dirs, options) : poolsim::validate_table(scenario, table, options);
  poolsim::write_output(out_path, format == "json" ? doc.dump(2) + "\n" : poolsim::render_validation_table(doc));
  const auto failures = poolsim::threshold_failures(doc, thresholds);
  for (const auto& f : failures) std::cerr << "poolsim validate: " << f << "\n";
  return failures.empty() ? 0 : 1;
}

// A percentage or a duration: a number, finite and not negative (CLI11's NonNegativeNumber lets NaN through).
const CLI::Validator kFiniteNonNegative(
    [](const std::string& text) {
      double v = 0;
      if (!CLI::detail::lexical_cast(text, v) || !std::isfinite(v) || v < 0) return "'" + text + "' is not a finite number >= 0";
      return std::string();
    },
    "NUMBER >= 0");
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"poolsim: simulate MySQL-family databases on disaggregated NVMe storage"};
  app.require_subcommand(0, 1);
  int default_jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

  // An empty path (--out "") wrote to stdout as if the option were absent; for --devices it meant the default.
  const CLI::Validator non_empty_path([](std::string& path) { return path.empty() ? std::string("an empty path names no file") : std::string(); },
                                   "PATH");
  std::string file, format = "table", out_path;
  std::vector<std::string> sets;
  int jobs = default_jobs;
  auto* run = app.add_subcommand("run", "Run a scenario (and its sweep) and print one row per point");
  run->add_option("file", file, "Scenario YAML")->required()->check(CLI::ExistingFile);
  // One value per --set, so `run --set k=v FILE` leaves FILE to the positional (a vector option would
  // take every argument after it and then report the file missing).
  run->add_option("--set", sets, "Override a key: path.to.key=value (repeatable, one per --set; UTF-8)")->expected(1)->allow_extra_args(false)->take_all();
  run->add_option("--format", format, "Output format")->check(CLI::IsMember({"table", "json", "csv"}));
  run->add_option("--out", out_path, "Write the output to this file (atomically) instead of stdout; not the scenario itself")->check(non_empty_path);
  run->add_option("--jobs", jobs, "Points simulated in parallel (child processes)")->check(CLI::Range(1, 1024));
  bool run_bounds = false;
  run->add_flag("--bounds", run_bounds, "Print each point's analytic TPS bound per resource (poolsim plan's) instead of simulating");

  std::string plan_file, plan_format = "table", plan_out;
  poolsim::PlanOptions plan_options;
  plan_options.jobs = default_jobs;
  bool no_prune = false;
  auto* plan = app.add_subcommand("plan", "Find the cheapest configurations that meet a target (and the cost/TPS Pareto front)");
  plan->add_option("file", plan_file, "Plan YAML (scenarios/plans/README.md)")->required()->check(CLI::ExistingFile);
  plan->add_option("--format", plan_format, "Output format")->check(CLI::IsMember({"table", "json"}));
  plan->add_option("--out", plan_out, "Write the output to this file (atomically) instead of stdout; not the plan or its scenario")->check(non_empty_path);
  plan->add_option("--jobs", plan_options.jobs, "Configurations simulated in parallel")->check(CLI::Range(1, 1024));
  plan->add_option("--top", plan_options.top, "How many of the cheapest configurations that meet the target to report")
      ->check(CLI::Range(1, 1000));
  auto* cheapest_only_flag = plan->add_flag("--cheapest-only", plan_options.cheapest_only,
                 "Simulate in cost order and stop once --top configurations meet the target (no full Pareto front)");
  bool bounds_only = false;
  auto* bounds_only_flag = plan->add_flag("--bounds-only", bounds_only, "Report costs and analytic bounds only; simulate nothing");
  auto* no_prune_flag = plan->add_flag("--no-prune", no_prune, "Simulate every configuration, even those the analytic bound rules out");
  // Flags about what to simulate mean nothing when nothing is simulated.
  bounds_only_flag->excludes(no_prune_flag)->excludes(cheapest_only_flag);

  auto* schema = app.add_subcommand("schema", "Print the JSON Schema of scenario files");
  std::string schema_kind = "scenario";
  schema->add_option("kind", schema_kind, "scenario | catalogue | plan")->check(CLI::IsMember({"scenario", "catalogue", "plan"}));

  std::vector<std::string> trace_dirs;
  std::string profile_out, profile_name;
  auto* calibrate = app.add_subcommand("calibrate", "Fit a server profile (and device models) to measured traces");
  calibrate->add_option("traces", trace_dirs, "Trace directories")->required()->check(CLI::ExistingDirectory);
  calibrate->add_option("-o,--output", profile_out, "Profile YAML to write (devices go to <stem>-devices.yaml); neither may be a file of a trace")->required()->check(non_empty_path);
  calibrate->add_option("--name", profile_name, "Profile name (default: the output file's stem)");
  std::vector<std::string> background_dirs;
  calibrate->add_option("--background", background_dirs,
                        "Traces whose perf_sched_timehist.tsv splits the server's CPU by thread (capture.py --perf-sched): "
                        "the background threads' CPU per transaction is fitted on them and run off the transactions' path")
      ->check(CLI::ExistingDirectory);
  poolsim::FlushFitOptions flush_fit;
  flush_fit.jobs = default_jobs;
  calibrate->add_option("--jobs", flush_fit.jobs, "Traces simulated in parallel where the fit simulates them (a flush latency the traces did not measure, a write buffer's size)")
      ->check(CLI::Range(1, 1024));
  calibrate->add_option("--duration", flush_fit.duration_s, "Simulated seconds per trace where the fit simulates them (0: each trace's own window)")
      ->check(kFiniteNonNegative);

  poolsim::ValidationOptions validation;
  validation.jobs = default_jobs;
  poolsim::ValidationThresholds thresholds;
  std::string validate_format = "table", validate_out, validate_scenario, validate_table;
  std::vector<std::string> validate_dirs;
  auto* validate = app.add_subcommand(
      "validate", "Simulate what was measured (trace directories, or a published table through a scenario) and compare");
  auto* profile_opt = validate->add_option("--profile", validation.profile, "Profile YAML (traces: required)")->check(CLI::ExistingFile);
  auto* devices_opt = validate->add_option("--devices", validation.devices, "Device catalogue (default: <profile stem>-devices.yaml)")->check(non_empty_path);
  auto* remeasured_flag = validate->add_flag("--remeasured-devices", validation.remeasured_devices,
                     "Take each trace's device figures from its own fio jobs, keeping the profile's fitted host CPU (a host that moved)");
  auto* dirs_opt = validate->add_option("traces", validate_dirs, "Trace directories")->check(CLI::ExistingDirectory);
  auto* scenario_opt = validate->add_option("--scenario", validate_scenario, "Scenario whose `validation:` section maps the table")
                           ->check(CLI::ExistingFile);
  auto* table_opt = validate->add_option("--table", validate_table, "Published table (CSV, UTF-8, at most 16 MiB): scenario keys plus measured figures (each key set by one column, each figure from its own column)")
                        ->check(CLI::ExistingFile);
  scenario_opt->needs(table_opt);
  table_opt->needs(scenario_opt);
  dirs_opt->excludes(table_opt);
  remeasured_flag->excludes(table_opt);  // a table has no fio jobs: the flag was ignored without a word
  devices_opt->excludes(table_opt);      // a table's scenario names its own catalogue: --devices was ignored, unread
  // Each gate is kept only when given: 0 is a real threshold, not "off".
  double max_error = 0, max_point_error = 0, max_p95_error = 0;
  auto* max_error_opt = validate->add_option("--max-error", max_error, "Exit 1 when the median |TPS error| exceeds this percentage (0: any error fails; no row to compare fails)")
      ->check(kFiniteNonNegative);
  auto* max_point_error_opt = validate->add_option("--max-point-error", max_point_error, "Exit 1 when any |TPS error| exceeds this percentage")
      ->check(kFiniteNonNegative);
  auto* max_p95_error_opt = validate->add_option("--max-p95-error", max_p95_error, "Exit 1 when the median |p95 error| exceeds this percentage")
      ->check(kFiniteNonNegative);
  validate->add_option("--format", validate_format, "Output format")->check(CLI::IsMember({"table", "json"}));
  validate->add_option("--out", validate_out, "Write the output to this file; not one of the command's inputs (profile, catalogue, scenario, table, a trace's files)")->check(non_empty_path);
  validate->add_option("--jobs", validation.jobs, "Points simulated in parallel")->check(CLI::Range(1, 1024));
  validate->add_option("--duration", validation.duration_s, "Cap on simulated seconds per point (default: a trace's own measured window; a table's scenario max_duration)")
      ->check(kFiniteNonNegative);

  bool bench_matrix = false;
  auto* bench = app.add_subcommand("bench", "Print simulation speed and memory figures");
  bench->add_flag("--matrix", bench_matrix, "Also time the 80-point seed-000 matrix");
  bench->add_option("--jobs", jobs, "Points in parallel for the matrix")->check(CLI::Range(1, 1024));

  // What went to standard output must have arrived there (a full disk, a closed pipe): otherwise
  // the run fails, as a file output would. The help too: exit 0 would say it was printed.
  auto checked_stdout = [](int code) {
    std::cout.flush();
    if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout)) {
      std::cerr << "poolsim: error: cannot write to standard output: " << std::strerror(errno) << "\n";
      return code != 0 ? code : kExitBadInput;
    }
    return code;
  };
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? checked_stdout(0) : kExitBadInput;
  }

  try {
    return checked_stdout([&]() -> int {
      if (*run) return run_scenario(file, sets, format, out_path, jobs, run_bounds);
      if (*plan) {
        plan_options.prune = !no_prune;
        plan_options.simulate = !bounds_only;
        return plan_command(plan_file, plan_options, plan_format, plan_out);
      }
      if (*bench) return poolsim::run_bench(bench_matrix, jobs);
      if (*calibrate) return calibrate_command(trace_dirs, profile_out, profile_name, background_dirs, flush_fit);
      if (*validate) {
        if (validate_table.empty() && (validate_dirs.empty() || !*profile_opt))
          throw poolsim::InputError({"validate", 0, 0}, "", "give trace directories and --profile, or --scenario and --table");
        if (max_error_opt->count()) thresholds.max_median_tps_error_pct = max_error;
        if (max_point_error_opt->count()) thresholds.max_point_tps_error_pct = max_point_error;
        if (max_p95_error_opt->count()) thresholds.max_median_p95_error_pct = max_p95_error;
        return validate_command(validation, validate_dirs, validate_scenario, validate_table, thresholds, validate_format,
                                validate_out);
      }
      if (*schema) {
        const auto& spec = schema_kind == "catalogue" ? poolsim::device_catalogue_schema()
                           : schema_kind == "plan"    ? poolsim::plan_schema()
                                                      : poolsim::scenario_schema();
        auto doc = poolsim::schema::to_json_schema(spec);
        doc["$schema"] = "https://json-schema.org/draft/2020-12/schema";
        doc["title"] = "poolsim " + std::string(schema_kind == "catalogue" ? "device catalogue" : schema_kind);
        std::cout << doc.dump(2) << "\n";
        return 0;
      }
      // No verb: the main job, the default scenario.
      return run_scenario(kDefaultScenario, {}, "table", "", default_jobs);
    }());
  } catch (const poolsim::InputError& e) {
    std::cerr << "poolsim: error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const poolsim::Interrupted& interrupted) {
    // Everything cleaned up on the way here: now die of the signal, as a shell expects (130, 143).
    std::signal(interrupted.signal, SIG_DFL);
    std::raise(interrupted.signal);
    return 128 + interrupted.signal;
  } catch (const std::exception& e) {
    std::cerr << "poolsim: error: " << e.what() << "\n";
    return kExitBadInput;
  }
}
