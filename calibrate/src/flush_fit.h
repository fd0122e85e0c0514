// Device figures the traces did not measure (a flush latency, a write buffer's size), fitted by
// simulating the calibration traces themselves.
#pragma once
#include <string>
#include <vector>

#include "calibration.h"
#include "trace.h"

namespace poolsim {

struct FlushFitOptions {
  double duration_s = 20;  // simulated seconds per trace and evaluation (a trace's own window when 0)
  int jobs = 1;            // traces simulated in parallel
  double low_s = 50e-6, high_s = 10e-3;  // the search's bracket
  double ratio = 1.05;         // stop when high / low is under this,
  double tolerance_pct = 0.5;  // or when the median error is within this many points of zero
  // The write buffer's search: its bracket and the ratio of its ends where it stops.
  double buffer_low_bytes = 16384, buffer_high_bytes = 1024.0 * 1024 * 1024;
  double buffer_ratio = 1.19;  // a quarter of an octave
};

struct FlushFit {
  std::string device;
  double latency_s = 0;
  int traces = 0;                                          // the fsyncing traces it rests on
  std::vector<std::pair<double, double>> evaluations;      // (latency, median signed TPS error %)
  std::string report;
};

// Devices whose flush latency the traces did not measure (no fio jobs: a catalogue class entry)
// and whose calibration traces fsync (Innodb_data_fsyncs per transaction above 0.05): for each, the
// flush latency at which the median signed TPS error of those traces, simulated with the fitted
// profile (`profile_path`, its devices in `devices_yaml`), is zero, found by regula falsi in log
// space (the error falls as the flush slows). `devices_yaml` is rewritten with the fitted values and
// their source. The traces' TPS is what calibration may use: the hold-out is not simulated here.
std::vector<FlushFit> fit_flush_latencies(const std::vector<Trace>& traces, const std::string& profile_path,
                                          std::string& devices_yaml, const FlushFitOptions& options);

struct WriteBufferFit {
  std::string device;
  double bytes = 0;
  int traces = 0;                                      // the page-writing traces it rests on
  std::vector<std::pair<double, double>> evaluations;  // (buffer bytes, median log of simulated / measured write await)
  std::string report;
};

// Devices fitted from fio jobs, whose write buffer size fio cannot show (its steady state is the
// buffer full), and whose calibration traces write pages in place (Innodb_pages_written per
// transaction above 0.5) and recorded diskstats: for each, the buffer size at which the median log
// ratio of simulated to measured mean write await of those traces is zero, found by bisection in log
// space (a larger buffer absorbs more of a flush batch's burst: the await falls). `devices_yaml` is
// rewritten with the fitted sizes and their source.
std::vector<WriteBufferFit> fit_write_buffers(const std::vector<Trace>& traces, const std::string& profile_path,
                                              std::string& devices_yaml, const FlushFitOptions& options);

// calibrate(), then fit_flush_latencies() and fit_write_buffers() with the fitted profile (in a scratch file, removed after),
// the fits' lines appended to the report: what `poolsim calibrate` and the Python bindings run.
CalibrationOutput calibrate_with_flush_fit(const std::vector<Trace>& traces, const std::string& name,
                                           const std::vector<Trace>& background_traces, const FlushFitOptions& options);

}  // namespace poolsim
