// Validation: simulate what was measured and compare. Two sources of measurements: trace directories
// (each trace's meta.yaml describes its configuration) and published tables (a CSV whose columns a
// scenario's `validation:` section maps to its own keys and figures).
#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace poolsim {

struct ValidationOptions {
  std::string profile;        // profile YAML (traces: required; tables: replaces database.profile if set)
  std::string devices;        // extra device catalogue ("" : <profile stem>-devices.yaml when it exists)
  double duration_s = 0;      // cap on simulated seconds per point (0: a trace's own window, a scenario's max_duration)
  int jobs = 1;               // points simulated in parallel (each in its own child process)
  // Devices re-measured: a trace's own fio jobs replace the measured figures of the profile's entry
  // for its device (latency, IOPS, flush), the profile's fitted host CPU kept (a host moved).
  bool remeasured_devices = false;
};

struct Trace;
// --remeasured-devices: for each device of `traces` with fio jobs that `skip` does not name (validate
// passes the devices it already added as unseen), the first such trace's fio jobs give the measured
// figures and the entry of the profile's catalogue (`devices_file`), when it has one, its fitted host
// CPU (host_cpu_* keys). A device catalogue, YAML.
std::string remeasured_devices_yaml(const std::vector<Trace>& traces, const std::string& devices_file,
                                    const std::set<std::string>& skip = {});

// {"rows": [{"trace", "measured", "predicted", "error_pct", ...}], "summary": {...}}
nlohmann::ordered_json validate_traces(const std::vector<std::string>& trace_dirs, const ValidationOptions& options);

// The same for a published table: each CSV row becomes one point of `scenario_file` (its sweep
// ignored, the row's mapped columns applied as overrides). Rows the mapping does not cover are
// reported with "skipped": reason. Each row carries the CSV row's columns under "columns".
nlohmann::ordered_json validate_table(const std::string& scenario_file, const std::string& table_csv,
                                      const ValidationOptions& options);

// A fixed-width table of the rows and the summary, for the terminal.
std::string render_validation_table(const nlohmann::ordered_json& doc);

// A gate that is not given is not checked; 0 is a gate like any other (only a perfect match passes).
struct ValidationThresholds {
  std::optional<double> max_median_tps_error_pct;
  std::optional<double> max_point_tps_error_pct;
  std::optional<double> max_median_p95_error_pct;
};
// Each threshold that is set and exceeded, or that has no figure to compare (no row compared), as a line.
std::vector<std::string> threshold_failures(const nlohmann::ordered_json& doc, const ValidationThresholds& thresholds);

}  // namespace poolsim
