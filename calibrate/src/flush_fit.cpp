#include "flush_fit.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <functional>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <map>
#include <optional>
#include <sstream>

#include "calibration.h"
#include "core/temp_directory.h"
#include "core/units.h"
#include "sim/output.h"
#include "validation.h"

namespace poolsim {
namespace {

// A trace whose server fsyncs: its commits wait for the device's flush (a read-only run does not).
constexpr double kFsyncingPerTxn = 0.05;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// A trace that writes pages in place: its flush batches reach the device as bursts.
constexpr double kPageWritingPerTxn = 0.5;

// `yaml` with the value of `key` in the top-level entry `entry` replaced by `value` (YAML text: a
// plain scalar, or double_quoted()), edited line by line so that the other lines and the comments
// (the file's header, the fits' residuals) stay (the entry is a block mapping indented by two
// spaces, as calibrate writes it; a value continued on deeper-indented lines is replaced whole; a
// key the entry lacks is added at its end).
std::string with_line_in_entry(const std::string& yaml, const std::string& entry, const std::string& key, const std::string& value) {
  std::istringstream in(yaml);
  std::string line, out;
  bool inside = false, done = false, replacing = false;
  auto add = [&] {
    out += "  " + key + ": " + value + "\n";
    done = true;
  };
  while (std::getline(in, line)) {
    if (replacing && line.rfind("   ", 0) == 0) continue;  // the replaced value's continuation
    replacing = false;
    const bool top = !line.empty() && line[0] != ' ' && line[0] != '#';
    if (top && inside && !done) add();
    if (top) inside = line == entry + ":";
    if (inside && !done && line.rfind("  " + key + ":", 0) == 0) {
      add();
      replacing = true;
      continue;
    }
    out += line + "\n";
  }
  if (inside && !done) add();
  return out;
}

std::string double_quoted(const std::string& text) {
  YAML::Emitter e;
  e << YAML::DoubleQuoted << text;
  return e.c_str();
}

std::string fmt_kib(double bytes) { return std::to_string(std::llround(bytes / 1024)) + "KiB"; }

// The traces of each device whose `counter` per transaction is above `threshold`, and whether fio
// measured the device (any of its traces has fio jobs).
struct TracesByDevice {
  std::map<std::string, std::vector<std::string>> selected;
  std::map<std::string, bool> measured;
};
TracesByDevice traces_by_device(const std::vector<Trace>& traces, const std::string& counter, double threshold) {
  TracesByDevice by;
  for (const auto& t : traces) {
    const std::string dev = device_name_for(t);
    by.measured[dev] = by.measured[dev] || !t.fio.empty();
    if (t.per_txn(counter).value_or(0) > threshold) by.selected[dev].push_back(t.dir);
  }
  return by;
}

// validate's options for a fit's trial runs: the profile, the trial catalogue, the fit's window.
ValidationOptions trial_validation(const std::string& profile_path, const std::filesystem::path& devices, const FlushFitOptions& options) {
  ValidationOptions validation;
  validation.profile = profile_path;
  validation.devices = devices.string();
  validation.duration_s = options.duration_s;
  validation.jobs = options.jobs;
  return validation;
}

// A fit's report line: each value tried (by `x`, ascending) with what it gave, then the one fitted.
std::string evaluations_report(const std::string& heading, std::vector<std::pair<double, double>> evaluations,
                               const std::function<std::string(double)>& x, const char* unit, double fitted, bool bracketed) {
  std::sort(evaluations.begin(), evaluations.end());
  std::ostringstream report;
  report << "  " << heading << ":";
  for (const auto& [value, outcome] : evaluations)
    report << " " << x(value) << " " << std::showpos << std::setprecision(3) << outcome << std::noshowpos << unit << ";";
  report << " fitted " << x(fitted) << (bracketed ? "" : " (no zero in the bracket: the nearer end)") << "\n";
  return report.str();
}
}  // namespace

std::vector<FlushFit> fit_flush_latencies(const std::vector<Trace>& traces, const std::string& profile_path,
                                          std::string& devices_yaml, const FlushFitOptions& options) {
  // The devices the traces name without measuring them, and the fsyncing traces of each.
  const TracesByDevice fsyncing = traces_by_device(traces, "Innodb_data_fsyncs", kFsyncingPerTxn);
  std::vector<FlushFit> fits;
  const YAML::Node catalogue = YAML::Load(devices_yaml);
  // The catalogue with each trial latency, where validate reads it (removed however the fit ends).
  const TempDirectory scratch_dir("poolsim-flush-fit-");
  const auto scratch = std::filesystem::path(scratch_dir.path()) / "devices.yaml";
  for (const auto& [device, dirs] : fsyncing.selected) {
    if (fsyncing.measured.at(device) || !catalogue[device] || !catalogue[device]["flush_latency"]) continue;
    FlushFit fit;
    fit.device = device;
    fit.traces = static_cast<int>(dirs.size());
    const ValidationOptions validation = trial_validation(profile_path, scratch, options);
    auto median_error = [&](double latency_s) {
      write_output(scratch.string(), with_line_in_entry(devices_yaml, device, "flush_latency", fmt_us(latency_s)));
      auto doc = validate_traces(dirs, validation);
      std::vector<double> errors;
      for (const auto& row : doc["rows"]) errors.push_back(row["error_pct"]["tps"].get<double>());
      double m = median(errors);
      fit.evaluations.push_back({latency_s, m});
      return m;
    };
    // A slower flush lowers every fsyncing trace's TPS, about linearly in the flush's log: regula
    // falsi in logs (the Illinois variant, which halves a stuck end's weight) for a median error of
    // zero, until the bracket's ratio or the error is small.
    // The bracket: from the catalogue's figure, halve or double towards zero error until the sign
    // changes (within options.low_s..high_s).
    std::string unit_error;
    const double catalogue_s =
        parse_quantity(catalogue[device]["flush_latency"].Scalar(), Dimension::Seconds, &unit_error).value_or(options.high_s);
    double low = std::clamp(catalogue_s, options.low_s, options.high_s), high = low;
    double at_low = median_error(low), at_high = at_low;
    bool bracketed = std::abs(at_low) < options.tolerance_pct;  // the catalogue's figure fits already
    while (!bracketed) {
      if (at_low > 0) {  // too fast a device even at `high`: slow the flush down
        if (high >= options.high_s) break;
        low = high, at_low = at_high;
        high = std::min(options.high_s, high * 2);
        at_high = median_error(high);
      } else {
        if (low <= options.low_s) break;
        high = low, at_high = at_low;
        low = std::max(options.low_s, low / 2);
        at_low = median_error(low);
      }
      bracketed = at_low >= 0 && at_high <= 0;
    }
    if (!bracketed) {
      // No zero between the search's limits: keep the limit whose error is nearer zero, and say so.
      fit.latency_s = std::abs(at_low) < std::abs(at_high) ? low : high;
    } else if (low == high) {
      fit.latency_s = low;
    } else {
      int stuck = 0;  // which end stayed put last time: +1 low, -1 high
      fit.latency_s = std::sqrt(low * high);
      while (high / low > options.ratio) {
        const double x0 = std::log(low), x1 = std::log(high);
        const double x = at_low == at_high ? (x0 + x1) / 2 : x0 + (x1 - x0) * at_low / (at_low - at_high);
        fit.latency_s = std::exp(x);
        const double e = median_error(fit.latency_s);
        if (std::abs(e) < options.tolerance_pct) break;
        if (e > 0) {
          low = fit.latency_s, at_low = e;
          if (stuck == -1) at_high /= 2;
          stuck = -1;
        } else {
          high = fit.latency_s, at_high = e;
          if (stuck == 1) at_low /= 2;
          stuck = 1;
        }
      }
    }
    const std::string catalogue_latency = catalogue[device]["flush_latency"].Scalar();
    std::ostringstream why;
    why << " flush_latency fitted by poolsim calibrate: " << catalogue_latency << " (the catalogue's class figure) -> "
        << fmt_us(fit.latency_s) << ", where the median signed TPS error of the " << fit.traces
        << " calibration traces that fsync, simulated with this profile";
    if (options.duration_s > 0) why << " (" << options.duration_s << " s each)";
    why << ", is zero (V: fitted on the calibration traces; regula falsi in log space to within " << options.tolerance_pct
        << " point or a bracket ratio of " << options.ratio << ").";
    devices_yaml = with_line_in_entry(devices_yaml, device, "flush_latency", fmt_us(fit.latency_s));
    devices_yaml = with_line_in_entry(devices_yaml, device, "source", double_quoted(catalogue[device]["source"].Scalar() + why.str()));
    fit.report = evaluations_report("flush latency of " + device + " (no fio flush measured; " + std::to_string(fit.traces) +
                                        " fsyncing traces): median signed TPS error by latency",
                                    fit.evaluations, [](double s) { return fmt_us(s); }, " %", fit.latency_s, bracketed);
    fits.push_back(fit);
  }
  return fits;
}

std::vector<WriteBufferFit> fit_write_buffers(const std::vector<Trace>& traces, const std::string& profile_path,
                                              std::string& devices_yaml, const FlushFitOptions& options) {
  // The devices fio measured, and the traces of each that write pages in place.
  const TracesByDevice writing = traces_by_device(traces, "Innodb_pages_written", kPageWritingPerTxn);
  std::vector<WriteBufferFit> fits;
  const YAML::Node catalogue = YAML::Load(devices_yaml);
  const TempDirectory scratch_dir("poolsim-write-buffer-fit-");
  const auto scratch = std::filesystem::path(scratch_dir.path()) / "devices.yaml";
  for (const auto& [device, dirs] : writing.selected) {
    if (!writing.measured.at(device) || !catalogue[device] || !catalogue[device]["write_cache"]) continue;
    WriteBufferFit fit;
    fit.device = device;
    const ValidationOptions validation = trial_validation(profile_path, scratch, options);
    // The median over the traces whose diskstats give a write await (nullopt: none does).
    auto median_log_ratio = [&](double bytes) -> std::optional<double> {
      write_output(scratch.string(), with_line_in_entry(devices_yaml, device, "write_cache", fmt_kib(bytes)));
      auto doc = validate_traces(dirs, validation);
      std::vector<double> logs;
      for (const auto& row : doc["rows"]) {
        if (!row.contains("device_await_us") || !row["device_await_us"].contains("write")) continue;
        const auto& w = row["device_await_us"]["write"];
        if (!w["measured"].is_number() || !w["predicted"].is_number()) continue;
        const double m = w["measured"].get<double>(), p = w["predicted"].get<double>();
        if (m > 0 && p > 0) logs.push_back(std::log(p / m));
      }
      if (logs.empty()) return std::nullopt;
      fit.traces = static_cast<int>(logs.size());
      const double r = median(logs);
      fit.evaluations.push_back({bytes, r});
      return r;
    };
    double low = options.buffer_low_bytes, high = options.buffer_high_bytes;
    const auto at_low = median_log_ratio(low);
    if (!at_low) continue;  // no write await measured: nothing to fit on
    const double at_high = *median_log_ratio(high);
    bool bracketed = *at_low >= 0 && at_high <= 0;
    if (!bracketed) {
      // Even the smallest buffer is too fast, or the largest too slow: keep the end nearer zero.
      fit.bytes = std::abs(*at_low) < std::abs(at_high) ? low : high;
    } else {
      while (high / low > options.buffer_ratio) {
        const double mid = std::sqrt(low * high);
        (*median_log_ratio(mid) > 0 ? low : high) = mid;
      }
      fit.bytes = std::sqrt(low * high);
    }
    const std::string assumed = catalogue[device]["write_cache"].Scalar();
    std::ostringstream why;
    why << " fitted by poolsim calibrate: " << assumed << " (assumed) -> " << fmt_kib(fit.bytes)
        << ", where the median log ratio of simulated to measured mean write await (diskstats) of the " << fit.traces
        << " calibration traces that write pages, simulated with this profile";
    if (options.duration_s > 0) why << " (" << options.duration_s << " s each)";
    why << ", is zero (V: fitted on the calibration traces; bisection in log space to a ratio of " << options.buffer_ratio << ").";
    devices_yaml = with_line_in_entry(devices_yaml, device, "write_cache", fmt_kib(fit.bytes));
    const std::string assumed_text = "write buffer size assumed (U)";
    std::string source = catalogue[device]["source"].Scalar();
    if (auto at = source.find(assumed_text); at != std::string::npos) source.replace(at, assumed_text.size(), "write buffer size");
    else source += "; write buffer size";
    devices_yaml = with_line_in_entry(devices_yaml, device, "source", double_quoted(source + why.str()));
    fit.report = evaluations_report("write buffer of " + device + " (" + std::to_string(fit.traces) +
                                        " page-writing traces): median log(simulated / measured write await) by buffer size",
                                    fit.evaluations, fmt_kib, "", fit.bytes, bracketed);
    fits.push_back(fit);
  }
  return fits;
}

CalibrationOutput calibrate_with_flush_fit(const std::vector<Trace>& traces, const std::string& name,
                                           const std::vector<Trace>& background_traces, const FlushFitOptions& options) {
  CalibrationOutput out = calibrate(traces, name, background_traces);
  // The profile so far, for the fit's validate runs (removed however the fit ends).
  const TempDirectory scratch_dir("poolsim-calibrate-");
  const std::string scratch = scratch_dir.path() + "/profile.yaml";
  write_output(scratch, out.profile_yaml);
  const std::vector<FlushFit> fits = fit_flush_latencies(traces, scratch, out.devices_yaml, options);
  for (const auto& f : fits) out.report += f.report;
  for (const auto& f : fit_write_buffers(traces, scratch, out.devices_yaml, options)) out.report += f.report;
  return out;
}

}  // namespace poolsim
