// Calibration: fit a server profile and device models to measured traces; validation: simulate the
// configuration each trace describes and compare.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "trace.h"

namespace poolsim {

struct CalibrationOutput {
  std::string profile_yaml;   // scenarios/profiles format, with the fit diagnostics
  std::string devices_yaml;   // a device catalogue fitted from the traces' fio jobs
  std::string report;         // residuals and uncertainties, for the terminal
};

// `name` is the profile's name. `background_traces` (optional) split the server's CPU by thread
// (perf_sched_timehist.tsv): the background threads' share per transaction is fitted on them,
// taken out of every trace's CPU and written as the profile's cpu.background_per_txn and the fitted
// devices' host_cpu_per_write.
CalibrationOutput calibrate(const std::vector<Trace>& traces, const std::string& name,
                            const std::vector<Trace>& background_traces = {});

// The SCV (1 / shape) of the gamma distribution whose p50, p90 and p99, as multiples of its mean,
// are closest (least squares in logs) to the measured ones over `mean_us`: a spread that a few rare,
// very long bursts (another thread's, 100x the p99) do not swamp as they do the moments. NaN when a
// figure is missing or not positive.
double gamma_scv_from_quantiles(double mean_us, double p50_us, double p90_us, double p99_us);

// Seconds as a profile writes them: microseconds, 4 significant digits ("53.69us").
std::string fmt_us(double seconds);

// Where the device catalogue fitted with a profile lives: <profile stem>-devices.yaml beside it.
std::string devices_file_for(const std::string& profile_path);

// The scenario (YAML text) that reproduces a trace's configuration with `profile_path`.
std::string scenario_for_trace(const Trace& trace, const std::string& profile_path,
                               const std::vector<std::string>& catalogue_paths, double max_duration_s);

// Device name fitted for a trace's storage (from its fio jobs).
std::string device_name_for(const Trace& trace);

// A catalogue entry for the trace's device: from its fio jobs, else from the built-in catalogue entry
// its meta.yaml names as `storage.model` ("" when neither); `host_cpu_s` as below. A catalogue entry's
// steady-state write rate is raised to `sustained_write_Bps` (per device, measured) when lower.
std::string device_yaml_for(const Trace& trace, double host_cpu_s, double sustained_write_Bps = 0);

// A catalogue entry for the trace's device from its fio jobs ("" without fio); `host_cpu_s` is the
// fitted host CPU per IO, 0 for a device the fit never saw.
std::string device_yaml_from_fio(const Trace& trace, double host_cpu_s);

}  // namespace poolsim
