// poolsim: the command line. Verbs: run, schema. With no arguments it runs the default scenario.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <thread>

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

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : kExitBadInput;
  }

  try {
    if (*run) return run_scenario(file, sets, format, out_path, jobs);
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
