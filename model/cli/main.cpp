// poolsim: the command line. Verbs: run, schema. With no arguments it runs the default scenario.
#include <unistd.h>

#include <CLI/CLI.hpp>
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
#include "core/errors.h"
#include "scenario/scenario.h"
#include "sim/output.h"
#include "sim/simulation.h"

namespace {

constexpr int kExitBadInput = 2;
constexpr int kExitSimulationFailed = 3;

const char* kDefaultScenario = POOLSIM_SOURCE_DIR "/scenarios/default.yaml";

int run_scenario(const std::string& file, const std::vector<std::string>& sets, const std::string& format,
                 const std::string& out_path, int jobs) {
  std::vector<poolsim::Override> overrides;
  for (const auto& s : sets) overrides.push_back(poolsim::parse_override(s));
  auto points = poolsim::load_scenarios(file, overrides);
  poolsim::OutputFormat fmt = format == "json"  ? poolsim::OutputFormat::Json
                              : format == "csv" ? poolsim::OutputFormat::Csv
                                                : poolsim::OutputFormat::Table;
  bool show_progress = points.size() > 1 && isatty(2);
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

std::string devices_file_for(const std::string& profile_path) {
  std::filesystem::path p(profile_path);
  return (p.parent_path() / (p.stem().string() + "-devices.yaml")).string();
}

int calibrate_command(const std::vector<std::string>& dirs, const std::string& out, const std::string& name) {
  std::vector<poolsim::Trace> traces;
  for (const auto& d : dirs) traces.push_back(poolsim::load_trace(d));
  std::string profile_name = name.empty() ? std::filesystem::path(out).stem().string() : name;
  auto result = poolsim::calibrate(traces, profile_name);
  std::cerr << result.report;
  poolsim::write_output(out, result.profile_yaml);
  poolsim::write_output(devices_file_for(out), result.devices_yaml);
  std::cerr << "poolsim calibrate: wrote " << out << " and " << devices_file_for(out) << "\n";
  return 0;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int validate_command(const std::string& profile, const std::string& devices_arg, const std::vector<std::string>& dirs,
                     double max_error, double max_point_error, double max_p95_error, const std::string& format,
                     const std::string& out_path, int jobs, double duration_s) {
  std::string devices = devices_arg.empty() ? devices_file_for(profile) : devices_arg;
  std::vector<poolsim::Trace> traces;
  std::vector<poolsim::Scenario> points;
  for (const auto& d : dirs) traces.push_back(poolsim::load_trace(d));
  // Devices the profile's catalogue lacks (a device the fit never saw) come from the trace's own fio
  // jobs, with no fitted host CPU: the device hold-out.
  auto known = poolsim::load_device_catalogue({devices});
  std::string unseen;
  std::set<std::string> added;
  for (const auto& t : traces) {
    std::string name = poolsim::device_name_for(t);
    if (!known.count(name) && added.insert(name).second) unseen += poolsim::device_yaml_from_fio(t, 0.0);
  }
  std::string extra_devices = std::filesystem::temp_directory_path() / ("poolsim-unseen-" + std::to_string(getpid()) + ".yaml");
  poolsim::write_output(extra_devices, unseen.empty() ? "{}\n" : unseen);
  for (size_t i = 0; i < traces.size(); ++i) {
    const auto& d = dirs[i];
    std::string yaml = poolsim::scenario_for_trace(traces[i], std::filesystem::absolute(profile).string(),
                                                   {std::filesystem::absolute(devices).string(), extra_devices}, duration_s);
    auto loaded = poolsim::load_scenarios_from_text(yaml, d + " (scenario from meta.yaml)");
    points.push_back(loaded.front());
  }
  auto results = poolsim::run_points(points, jobs);
  std::filesystem::remove(extra_devices);
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  std::vector<double> tps_errors, p95_errors;
  for (size_t i = 0; i < traces.size(); ++i) {
    const auto& r = results[i];
    if (r.contains("error")) throw std::runtime_error("simulating " + dirs[i] + " failed: " + r["error"].get<std::string>());
    const auto& m = traces[i].sysbench;
    double tps = r["tps"].get<double>(), p95 = r["latency_ms"]["p95"].get<double>();
    double e_tps = 100 * (tps - m.tps) / m.tps, e_p95 = 100 * (p95 - m.latency_p95_ms) / m.latency_p95_ms;
    tps_errors.push_back(std::fabs(e_tps));
    p95_errors.push_back(std::fabs(e_p95));
    nlohmann::ordered_json row = {{"trace", dirs[i]},
                                  {"measured", {{"tps", m.tps}, {"p95_ms", m.latency_p95_ms}}},
                                  {"predicted", {{"tps", tps}, {"p95_ms", p95}, {"tps_ci95", r["ci95"]["tps"]}}},
                                  {"error_pct", {{"tps", e_tps}, {"p95_ms", e_p95}}}};
    // The counters behind the figures, measured against simulated, per transaction.
    const auto& db = r["innodb"][0];
    auto counter = [&](const char* name) { return traces[i].per_txn(name).value_or(std::nan("")); };
    row["counters_per_txn"] = {
        {"page_reads", {{"measured", counter("Innodb_buffer_pool_reads")}, {"predicted", db["page_reads_per_txn"]}}},
        {"page_writes", {{"measured", counter("Innodb_pages_written")}, {"predicted", db["data_page_writes_per_txn"]}}},
        {"doublewrite_pages", {{"measured", counter("Innodb_dblwr_pages_written")}, {"predicted", db["doublewrite_pages_per_txn"]}}},
        {"fsyncs", {{"measured", counter("Innodb_data_fsyncs")}, {"predicted", db["fsyncs_per_txn"]}}},
        {"redo_bytes", {{"measured", counter("Innodb_os_log_written")}, {"predicted", db["redo_bytes_per_txn"]}}}};
    row["predicted_breakdown_ms"] = r["breakdown_ms"];
    row["predicted_cpu_utilisation"] = r["cpus"][0]["utilisation"];
    if (m.latency_p99_ms) {
      row["measured"]["p99_ms"] = *m.latency_p99_ms;
      row["predicted"]["p99_ms"] = r["latency_ms"]["p99"];
      row["error_pct"]["p99_ms"] = 100 * (r["latency_ms"]["p99"].get<double>() - *m.latency_p99_ms) / *m.latency_p99_ms;
    }
    rows.push_back(row);
  }
  nlohmann::ordered_json doc;
  doc["rows"] = rows;
  doc["summary"] = {{"median_abs_error_pct", {{"tps", median(tps_errors)}, {"p95_ms", median(p95_errors)}}},
                    {"max_abs_error_pct", {{"tps", tps_errors.empty() ? 0 : *std::max_element(tps_errors.begin(), tps_errors.end())},
                                           {"p95_ms", p95_errors.empty() ? 0 : *std::max_element(p95_errors.begin(), p95_errors.end())}}}};
  std::string text;
  if (format == "json") {
    text = doc.dump(2) + "\n";
  } else {
    std::ostringstream t;
    t << std::left << std::setw(28) << "trace" << std::right << std::setw(10) << "tps" << std::setw(10) << "pred" << std::setw(9)
      << "err%" << std::setw(10) << "p95_ms" << std::setw(10) << "pred" << std::setw(9) << "err%" << "\n";
    for (const auto& row : rows) {
      t << std::left << std::setw(28) << std::filesystem::path(row["trace"].get<std::string>()).filename().string() << std::right
        << std::fixed << std::setprecision(1) << std::setw(10) << row["measured"]["tps"].get<double>() << std::setw(10)
        << row["predicted"]["tps"].get<double>() << std::setw(9) << row["error_pct"]["tps"].get<double>() << std::setw(10)
        << row["measured"]["p95_ms"].get<double>() << std::setw(10) << row["predicted"]["p95_ms"].get<double>() << std::setw(9)
        << row["error_pct"]["p95_ms"].get<double>() << "\n";
    }
    t << "median |error|: tps " << median(tps_errors) << " %, p95 " << median(p95_errors) << " %; max |error|: tps "
      << doc["summary"]["max_abs_error_pct"]["tps"].get<double>() << " %, p95 " << doc["summary"]["max_abs_error_pct"]["p95_ms"].get<double>() << " %\n";
    text = t.str();
  }
  poolsim::write_output(out_path, text);
  bool exceeded = (max_error > 0 && median(tps_errors) > max_error) ||
                  (max_point_error > 0 && doc["summary"]["max_abs_error_pct"]["tps"].get<double>() > max_point_error) ||
                  (max_p95_error > 0 && median(p95_errors) > max_p95_error);
  if (exceeded) std::cerr << "poolsim validate: error above the threshold\n";
  return exceeded ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"poolsim: simulate MySQL-family databases on disaggregated NVMe storage"};
  app.require_subcommand(0, 1);
  int default_jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

  std::string file, format = "table", out_path;
  std::vector<std::string> sets;
  int jobs = default_jobs;
  auto* run = app.add_subcommand("run", "Run a scenario (and its sweep) and print one row per point");
  run->add_option("file", file, "Scenario YAML")->required()->check(CLI::ExistingFile);
  run->add_option("--set", sets, "Override a key: path.to.key=value (repeatable)")->take_all();
  run->add_option("--format", format, "Output format")->check(CLI::IsMember({"table", "json", "csv"}));
  run->add_option("--out", out_path, "Write the output to this file (atomically) instead of stdout");
  run->add_option("--jobs", jobs, "Points simulated in parallel (child processes)")->check(CLI::Range(1, 1024));

  auto* schema = app.add_subcommand("schema", "Print the JSON Schema of scenario files");
  std::string schema_kind = "scenario";
  schema->add_option("kind", schema_kind, "scenario | catalogue")->check(CLI::IsMember({"scenario", "catalogue"}));

  std::vector<std::string> trace_dirs;
  std::string profile_out, profile_name;
  auto* calibrate = app.add_subcommand("calibrate", "Fit a server profile (and device models) to measured traces");
  calibrate->add_option("traces", trace_dirs, "Trace directories")->required()->check(CLI::ExistingDirectory);
  calibrate->add_option("-o,--output", profile_out, "Profile YAML to write (devices go to <stem>-devices.yaml)")->required();
  calibrate->add_option("--name", profile_name, "Profile name (default: the output file's stem)");

  std::string profile_in, devices_in, validate_format = "table", validate_out;
  double max_error = 0, max_point_error = 0, max_p95_error = 0, validate_duration = 20;
  std::vector<std::string> validate_dirs;
  auto* validate = app.add_subcommand("validate", "Simulate each trace's configuration and compare with what was measured");
  validate->add_option("--profile", profile_in, "Profile YAML")->required()->check(CLI::ExistingFile);
  validate->add_option("--devices", devices_in, "Device catalogue (default: <profile stem>-devices.yaml)");
  validate->add_option("traces", validate_dirs, "Trace directories")->required()->check(CLI::ExistingDirectory);
  validate->add_option("--max-error", max_error, "Exit 1 when the median |TPS error| exceeds this percentage");
  validate->add_option("--max-point-error", max_point_error, "Exit 1 when any |TPS error| exceeds this percentage");
  validate->add_option("--max-p95-error", max_p95_error, "Exit 1 when the median |p95 error| exceeds this percentage");
  validate->add_option("--format", validate_format, "Output format")->check(CLI::IsMember({"table", "json"}));
  validate->add_option("--out", validate_out, "Write the output to this file");
  validate->add_option("--jobs", jobs, "Points simulated in parallel")->check(CLI::Range(1, 1024));
  validate->add_option("--duration", validate_duration, "Cap on simulated seconds per trace");

  bool bench_matrix = false;
  auto* bench = app.add_subcommand("bench", "Print simulation speed and memory figures");
  bench->add_flag("--matrix", bench_matrix, "Also time the 80-point seed-000 matrix");
  bench->add_option("--jobs", jobs, "Points in parallel for the matrix")->check(CLI::Range(1, 1024));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : kExitBadInput;
  }

  try {
    if (*run) return run_scenario(file, sets, format, out_path, jobs);
    if (*bench) return poolsim::run_bench(bench_matrix, jobs);
    if (*calibrate) return calibrate_command(trace_dirs, profile_out, profile_name);
    if (*validate)
      return validate_command(profile_in, devices_in, validate_dirs, max_error, max_point_error, max_p95_error, validate_format,
                              validate_out, jobs, validate_duration);
    if (*schema) {
      const auto& spec = schema_kind == "catalogue" ? poolsim::device_catalogue_schema() : poolsim::scenario_schema();
      auto doc = poolsim::schema::to_json_schema(spec);
      doc["$schema"] = "https://json-schema.org/draft/2020-12/schema";
      doc["title"] = schema_kind == "catalogue" ? "poolsim device catalogue" : "poolsim scenario";
      std::cout << doc.dump(2) << "\n";
      return 0;
    }
    // No verb: the main job, the default scenario.
    return run_scenario(kDefaultScenario, {}, "table", "", default_jobs);
  } catch (const poolsim::InputError& e) {
    std::cerr << "poolsim: error: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "poolsim: error: " << e.what() << "\n";
    return kExitBadInput;
  }
}
