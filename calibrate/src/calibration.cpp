#include "calibration.h"

#include <cstdio>
#include <Eigen/Dense>
#include <unsupported/Eigen/SpecialFunctions>
#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <limits>
#include <map>
#include <numeric>
#include <sstream>
#include <tuple>

#include "core/errors.h"
#include "core/queueing.h"
#include "core/units.h"
#include "platform/device.h"
#include "scenario/builtin_catalogue.h"
#include "scenario/scenario.h"

namespace poolsim {

namespace {

// A string (a name, a directory, a path) as a YAML scalar: plain where YAML reads it back as the same
// text, else quoted with escapes. Written raw, a trace directory or profile named "a: b", "#x" or with
// a '"' made YAML that did not parse, or parsed as something else ("#x" as no name).
std::string yaml_scalar(const std::string& text, bool double_quoted = false) {
  YAML::Emitter out;
  if (double_quoted) out << YAML::DoubleQuoted;
  out << text;
  return out.c_str();
}
// A version string as a tuple that compares as versions do: "10.3.10" -> {10, 3, 10} (missing parts 0).
using VersionTriple = std::array<int, 3>;
VersionTriple version_triple(const std::string& version) {
  VersionTriple v{0, 0, 0};
  std::sscanf(version.c_str(), "%d.%d.%d", &v[0], &v[1], &v[2]);
  return v;
}

// What a version's user thread does with no free and no clean page (buf_LRU_get_free_block), a
// feature of the source line, not a fitted figure: MariaDB 10.5 removed the thread's own single-page
// LRU flush (10.5.7, MDEV-23399, U: from its release notes; the thread waits for the page cleaner);
// MySQL 5.6-8.4 and the servers built on it,
// and MariaDB up to 10.4, keep it.
std::string free_page_policy_of(const std::string& product, const std::string& version) {
  if (product == "mariadb" && version_triple(version) >= VersionTriple{10, 5, 0}) return "wait_for_page_cleaner";
  return "single_page_flush";
}

// How many doublewrite batches a version writes at once, a feature of the source line: one shared
// buffer in the system tablespace, one batch at a time (buf_dblwr batch_running) with 8 single-page
// slots beside it, in MySQL before 8.0.20 (which moved to innodb_doublewrite_files) and MariaDB up to
// 10.4 (10.5 rewrote the buffer and dropped the single-page flush, MDEV-23399); 0 (not limited) for
// the others, whose doublewrite the model does not limit.
int doublewrite_files_of(const std::string& product, const std::string& version) {
  const VersionTriple first_without = product == "mariadb" ? VersionTriple{10, 5, 0} : VersionTriple{8, 0, 20};
  return version_triple(version) < first_without ? 1 : 0;
}

// Whether innodb_buffer_pool_instances divides the pool, a feature of the source line: MariaDB 10.5+
// has one instance whatever the setting (deprecated, no effect: MariaDB KB); MySQL and MariaDB <= 10.4
// divide it as set.
bool buffer_pool_instances_apply(const std::string& product, const std::string& version) {
  return !(product == "mariadb" && version_triple(version) >= VersionTriple{10, 5, 0});
}

// What innodb_max_dirty_pages_pct_lwm = 0 means (ServerProfile::ZeroLwmFlushing): MariaDB 10.5.9
// (MDEV-24537) made it "refer to innodb_max_dirty_pages_pct", so no flush-list flushing below that;
// 10.5.7 and 10.5.8 flushed whenever pages were dirty, and MySQL's adaptive flushing ignores it.
std::string zero_lwm_flushing_of(const std::string& product, const std::string& version) {
  if (product == "mariadb" && version_triple(version) >= VersionTriple{10, 5, 9}) return "at_max_dirty";
  return "adaptive";
}

// A version's compiled defaults for the flushing settings a trace without variables.tsv does not
// record (traces/mdev-13845): the scenario's own defaults are MySQL 8.0's, which older servers do
// not share (V: MySQL WL#9707 and WL#9630, the 8.0 changes; MariaDB KB "InnoDB Page Flushing" and
// its variables' pages).
//  - innodb_max_dirty_pages_pct / _lwm: 75 % / 0 in MySQL 5.x; 90 % / 10 % from MySQL 8.0. MariaDB:
//    75 % up to 10.4 and 90 % from 10.5; lwm 0.001 % up to 10.2.1, then 0.
//  - innodb_page_cleaners: 4, lowered to innodb_buffer_pool_instances, in MySQL 5.7 and 8.0 and
//    MariaDB 10.2.2-10.5.0; one page cleaner before (MySQL 5.6, MariaDB 10.1) and in MariaDB 10.5.1+,
//    which ignores the variable.
//  - innodb_buffer_pool_instances, where a version divides the pool (buffer_pool_instances_apply): 8
//    for a pool of 1 GiB or more, else 1, from MySQL 5.6 and MariaDB 10.0 (the MySQL 5.6/5.7 manuals
//    and the MariaDB KB: "8, or 1 if innodb_buffer_pool_size < 1GB"); 1 in MySQL/MariaDB 5.5.
struct FlushingDefaults {
  double max_dirty_pages_pct, max_dirty_pages_pct_lwm;
  int page_cleaners;  // before the cap at the buffer pool instances
  bool multi_instance_pool;  // buffer_pool_instances defaults to 8 for a pool of kMultiInstancePoolBytes+

  int buffer_pool_instances(double pool_bytes) const {
    constexpr double kMultiInstancePoolBytes = 1024.0 * 1024 * 1024;  // 1 GiB, as the manuals give it
    constexpr int kMultiInstanceDefault = 8;
    return multi_instance_pool && pool_bytes >= kMultiInstancePoolBytes ? kMultiInstanceDefault : 1;
  }
};

FlushingDefaults flushing_defaults_of(const std::string& product, const std::string& version) {
  const VersionTriple v = version_triple(version);
  if (product == "mariadb") {
    const double max_dirty = v >= VersionTriple{10, 5, 0} ? 90 : 75;
    const double lwm = v >= VersionTriple{10, 2, 2} ? 0 : 0.001;
    const int cleaners = v >= VersionTriple{10, 2, 2} && v < VersionTriple{10, 5, 1} ? 4 : 1;
    return {max_dirty, lwm, cleaners, v >= VersionTriple{10, 0, 0}};
  }
  if (v >= VersionTriple{8, 0, 0}) return {90, 10, 4, true};
  return {75, 0, v >= VersionTriple{5, 7, 0} ? 4 : 1, v >= VersionTriple{5, 6, 0}};
}

// validate's batches for a trace (batch means for the CI), and the window when the trace gives none.
constexpr double kValidateBatchSeconds = 0.5;
constexpr int kMinValidateBatches = 8;
constexpr double kDefaultWindowSeconds = 20;
// A run whose statements read fewer pages per transaction than this counts as cached.
constexpr double kCachedReadsPerTxn = 0.5;

// Which files innodb_flush_neighbors applies to (ServerProfile::FlushNeighborsDevices): MariaDB flushes
// neighbours only in a tablespace it finds rotational (fil_space_t::is_rotational in buf0flu.cc, V in
// the 10.6 and 10.11 sources; 10.3-10.4 code has the same test; older versions taken the same, U),
// MySQL on every device.
std::string flush_neighbors_devices_of(const std::string& product) {
  return product == "mariadb" ? "rotational" : "all";
}

// Relative CPU weights of the statement kinds. One sysbench mix cannot separate them, so the fit
// scales this shape (assumed, U: point select as the unit; ranges read 100 rows, ORDER BY sorts,
// DISTINCT builds a temporary table; writes modify a record and its undo).
const std::map<std::string, double> kStatementShape = {
    {"begin", 0.4}, {"commit", 0.8}, {"point_select", 1.0}, {"simple_range", 1.5}, {"sum_range", 1.5},
    {"order_range", 2.0}, {"distinct_range", 2.25}, {"index_update", 1.5}, {"non_index_update", 1.5},
    {"delete", 1.25}, {"insert", 1.5}};

// The host's core speed when the trace ran: `sysbench cpu` events per second on one thread, the
// mean of the probes before and after the point (capture.py --cpu-probe); NaN when not recorded.
double cpu_probe_eps(const Trace& t) {
  double before = t.capture_figure("cpu_probe_eps_before"), after = t.capture_figure("cpu_probe_eps_after");
  if (std::isnan(before)) return after;
  if (std::isnan(after)) return before;
  return (before + after) / 2;
}

int row_changes_per_txn(const Trace& t) {
  SysbenchOptions o = sysbench_options_for(t);
  if (o.test == "oltp_read_only" || o.test == "oltp_point_select") return 0;
  return o.index_updates + o.non_index_updates + 2 * o.delete_inserts;
}

// Redo per transaction (less the commit record the model logs itself) = a x row changes + s x B-tree
// page splits, by least squares over the traces that count both (Innodb_os_log_written,
// Innodb_buffer_pool_pages_split). A split logs about a page, and how often pages split is the data
// set's age, not the server's (traces/local-vm: a fresh copy of the prepared data set splits 0.46
// times per transaction, an aged one 0.04-0.05), so a mean per row change would carry the calibration
// data set's age into every prediction. Without split counts in every trace, or when the splits do
// not vary enough to tell the two terms apart (s not positive and 2 standard errors clear of zero),
// the mean redo per row change, as before (commit record included, as the profiles before had it).
struct RedoFit {
  double per_row_change_bytes = 0, per_row_change_sigma = 0;
  double per_split_bytes = 0, per_split_sigma = 0;
  double splits_per_row_change = 0;  // the traces' median: the data set the profile assumes
  double min_splits = 0, max_splits = 0;  // per row change, over the traces
  double rms_bytes = 0;              // per transaction
  int traces = 0;
  bool with_splits = false;
};

RedoFit fit_redo(const std::vector<const Trace*>& traces) {
  RedoFit fit;
  std::vector<std::array<double, 3>> rows;  // row changes, splits, redo per transaction
  double mean_sum = 0;
  for (const Trace* t : traces) {
    const auto redo = t->per_txn("Innodb_os_log_written");
    const int changes = row_changes_per_txn(*t);
    if (!redo || changes <= 0) continue;
    // A row change logs its record, its undo's and its index entries', well under a page each: past
    // kMaxRedoPerRowChange (the profile's bound) the counters are not this run's.
    if (*redo / changes > kMaxRedoPerRowChange_bytes)
      t->refuse_status_counter("Innodb_os_log_written", format_significant(*redo / changes) + " bytes of redo per row change: no row change logs "
                                                        "that much (at most 1 MiB; a counter that wrapped, or a value from another run)");
    mean_sum += *redo / changes;
    ++fit.traces;
    // The model logs the commit record itself (kCommitRedoBytes): the fit covers the rest.
    if (auto splits = t->per_txn("Innodb_buffer_pool_pages_split"))
      rows.push_back({static_cast<double>(changes), *splits, *redo - kCommitRedoBytes});
  }
  if (fit.traces > 0) fit.per_row_change_bytes = mean_sum / fit.traces;
  const int n = static_cast<int>(rows.size());
  if (n < 3 || n != fit.traces) return fit;
  Eigen::MatrixXd A(n, 2);
  Eigen::VectorXd b(n);
  for (int i = 0; i < n; ++i) {
    A(i, 0) = rows[i][0];
    A(i, 1) = rows[i][1];
    b(i) = rows[i][2];
  }
  const Eigen::VectorXd x = A.colPivHouseholderQr().solve(b);
  const Eigen::VectorXd r = b - A * x;
  const Eigen::MatrixXd cov = (A.transpose() * A).inverse() * (r.squaredNorm() / std::max(1, n - 2));
  const double sigma_split = std::sqrt(std::max(0.0, cov(1, 1)));
  if (!(x(0) > 0 && x(1) > 2 * sigma_split)) return fit;
  fit.with_splits = true;
  fit.per_row_change_bytes = x(0);
  fit.per_row_change_sigma = std::sqrt(std::max(0.0, cov(0, 0)));
  fit.per_split_bytes = x(1);
  fit.per_split_sigma = sigma_split;
  fit.rms_bytes = std::sqrt(r.squaredNorm() / n);
  std::vector<double> per_change;
  for (const auto& row : rows) per_change.push_back(row[1] / row[0]);
  std::sort(per_change.begin(), per_change.end());
  fit.min_splits = per_change.front();
  fit.max_splits = per_change.back();
  fit.splits_per_row_change = n % 2 ? per_change[n / 2] : (per_change[n / 2 - 1] + per_change[n / 2]) / 2;
  return fit;
}

// CPU per transaction the fit explains, and what it covers. A capture with per-process figures
// gives the server's own CPU; a trace with only iostat (traces/mdev-13845) gives the host's busy
// CPU (user + nice + system of all CPUs), which also holds the client (sysbench on the same host)
// and the monitoring tools: the fit then carries the client inside the statement costs.
struct MeasuredCpu {
  double per_txn_s = std::nan("");
  double busy_pct = std::nan(""), steal_pct = std::nan("");  // of the host, for the idle share
  bool host_wide = false;
};

MeasuredCpu measured_cpu(const Trace& t) {
  MeasuredCpu m;
  if (t.sysbench.tps <= 0) return m;
  double cores = t.meta["host"]["cores"].as<double>();
  double server = t.capture_figure("mariadbd_cpu_pct");
  if (!std::isnan(server)) {
    m.per_txn_s = server / 100.0 * cores / t.sysbench.tps;
    m.busy_pct = t.capture_figure("busy_pct");
    m.steal_pct = t.capture_figure("steal_pct");
  } else if (t.iostat) {
    auto mean = t.iostat->run_mean();
    m.per_txn_s = mean.busy_pct() / 100.0 * t.iostat->cpus / t.sysbench.tps;
    m.busy_pct = mean.busy_pct();
    m.steal_pct = mean.steal_pct;
    m.host_wide = true;
  }
  return m;
}

double statements_per_txn(const Trace& t) {
  const auto& s = t.sysbench;
  return (s.read_queries + s.write_queries + s.other_queries) / std::max<double>(1, s.transactions);
}

bool is_select(StatementKind k) {
  return k == StatementKind::PointSelect || k == StatementKind::SimpleRange || k == StatementKind::SumRange ||
         k == StatementKind::OrderRange || k == StatementKind::DistinctRange;
}

// The mix of the trace's test and counts in shape units, its SELECTs and the rest (writes, BEGIN,
// COMMIT) apart: traces of several mixes (a read-only one among them) let the fit scale the two.
// The statements of one transaction of the trace's test (their kinds; the keys do not matter here).
std::vector<Statement> one_transaction(const Trace& t) {
  SysbenchOptions o = sysbench_options_for(t);
  o.tables = 1;
  o.table_size = 1000;
  std::mt19937_64 rng(1);
  std::vector<Statement> statements;
  SysbenchMix(o).next(rng, statements);
  return statements;
}

std::pair<double, double> shape_units_split(const Trace& t) {
  std::pair<double, double> units{0, 0};
  for (const auto& s : one_transaction(t)) (is_select(s.kind) ? units.first : units.second) += kStatementShape.at(statement_name(s.kind));
  return units;
}

// The p-quantile of a gamma distribution of the given shape and mean 1: bisection on its CDF, the
// regularised lower incomplete gamma function P(k, k x).
double gamma_quantile_of_unit_mean(double shape, double p) {
  double lo = 0, hi = 1;
  while (Eigen::numext::igamma(shape, shape * hi) < p) hi *= 2;
  for (int i = 0; i < 100 && hi - lo > 1e-12 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (Eigen::numext::igamma(shape, shape * mid) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

}  // namespace

double gamma_scv_from_quantiles(double mean_us, double p50_us, double p90_us, double p99_us) {
  const double measured[] = {p50_us, p90_us, p99_us};
  const double levels[] = {0.50, 0.90, 0.99};
  if (!(mean_us > 0) || !std::all_of(std::begin(measured), std::end(measured), [](double q) { return q > 0 && std::isfinite(q); }))
    return std::nan("");
  auto misfit = [&](double log_shape) {
    double sum = 0;
    for (int i = 0; i < 3; ++i) sum += std::pow(std::log(gamma_quantile_of_unit_mean(std::exp(log_shape), levels[i]) * mean_us / measured[i]), 2);
    return sum;
  };
  // Golden-section search over log(shape): SCV from 1/50 to 50 covers anything a CPU burst does.
  const double golden = (std::sqrt(5.0) - 1) / 2;
  double a = std::log(1.0 / 50), b = std::log(50.0);
  double c = b - golden * (b - a), d = a + golden * (b - a);
  double fc = misfit(c), fd = misfit(d);
  for (int i = 0; i < 80; ++i) {
    if (fc < fd) {
      b = d, d = c, fd = fc;
      c = b - golden * (b - a), fc = misfit(c);
    } else {
      a = c, c = d, fc = fd;
      d = a + golden * (b - a), fd = misfit(d);
    }
  }
  return std::exp(-0.5 * (a + b));
}

namespace {

// The statements' server CPU variability (ServerProfile::statement_cpu_scv) from the server's CPU
// bursts (perf sched) in the runs whose pool holds the data: there a server thread runs one burst per
// statement, from the query's arrival to its reply, with no page read in between. The bursts' SCV
// mixes the statement kinds' different means (the shape above) with each kind's own spread; with the
// same SCV c within every kind, SCV_bursts = c (1 + SCV_kinds) + SCV_kinds, so
// c = (SCV_bursts - SCV_kinds) / (1 + SCV_kinds). NaN without such a run. SCV_bursts is that of the
// gamma through the bursts' quantiles when perf_sched_bursts.tsv has them: the moments also carry the
// server's rare long bursts (up to 35 ms against a 153 us p99 in local-vm/second-host/sched), a few of
// which make the SCV 8-9 where the body's is 0.5-0.6, and a gamma with that SCV puts the mass of a
// statement's CPU in a rare huge draw, which is not what the server does.
struct StatementScv {
  double scv = std::nan("");
  double bursts_scv = std::nan(""), kinds_scv = std::nan("");
  double moments_scv = std::nan("");  // the bursts' SCV from their moments, for the record
  int runs = 0, from_quantiles = 0, from_connections = 0;  // runs; of them, with quantiles; with the connection threads' own rows
  // The long bursts (over 1 ms) of the connection threads, when their rows count them: the share of
  // the connection threads' CPU in them (mean over the runs) and their mean length.
  double tail_share = std::nan(""), tail_mean_us = std::nan("");
  int tail_runs = 0;
};
StatementScv statement_scv_from_bursts(const std::vector<Trace>& traces) {
  StatementScv out;
  double bursts = 0, kinds = 0, moments = 0, tail_share = 0, tail_bursts = 0, tail_us = 0;
  for (const auto& t : traces) {
    const auto reads = t.per_txn("Innodb_buffer_pool_reads");
    if (!t.server_bursts || !reads || *reads > kCachedReadsPerTxn) continue;
    const std::vector<Statement> statements = one_transaction(t);
    double sum = 0, sumsq = 0;
    for (const auto& st : statements) {
      const double w = kStatementShape.at(statement_name(st.kind));
      sum += w;
      sumsq += w * w;
    }
    const double m = sum / statements.size();
    kinds += sumsq / statements.size() / (m * m) - 1;
    const CpuBursts& b = t.connection_bursts ? *t.connection_bursts : *t.server_bursts;
    out.from_connections += t.connection_bursts.has_value();
    const double body_scv = gamma_scv_from_quantiles(b.mean_us, b.p50_us, b.p90_us, b.p99_us);
    bursts += std::isnan(body_scv) ? b.scv : body_scv;
    out.from_quantiles += !std::isnan(body_scv);
    moments += b.scv;
    if (t.connection_bursts && std::isfinite(b.long_count) && b.count > 0 && b.mean_us > 0) {
      tail_share += b.long_count * b.long_mean_us / (static_cast<double>(b.count) * b.mean_us);
      tail_bursts += b.long_count;
      tail_us += b.long_count * b.long_mean_us;
      ++out.tail_runs;
    }
    ++out.runs;
  }
  if (out.tail_runs > 0 && tail_bursts > 0) {
    out.tail_share = tail_share / out.tail_runs;
    out.tail_mean_us = tail_us / tail_bursts;
  }
  if (out.runs == 0) return out;
  out.moments_scv = moments / out.runs;
  out.bursts_scv = bursts / out.runs;
  out.kinds_scv = kinds / out.runs;
  out.scv = std::max(0.0, (out.bursts_scv - out.kinds_scv) / (1 + out.kinds_scv));
  return out;
}

}  // namespace

std::string fmt_us(double seconds) {
  std::ostringstream out;
  out << std::setprecision(4) << seconds * 1e6 << "us";
  return out.str();
}

std::string devices_file_for(const std::string& profile_path) {
  std::filesystem::path p(profile_path);
  return (p.parent_path() / (p.stem().string() + "-devices.yaml")).string();
}

std::string device_name_for(const Trace& t) {
  std::string kind = t.meta["storage"]["kind"].Scalar();
  // The set whose devices the trace ran on: capture.trace_set when given (a diagnostic subset such
  // as local-vm/pfs shares local-vm's devices), else the directory holding the trace.
  std::string set = trace_set_directory(t);
  if (const auto capture = t.meta["capture"]; capture && capture.IsMap() && capture["trace_set"] && capture["trace_set"].IsScalar())
    set = capture["trace_set"].Scalar();
  const std::string name = set + "-" + kind;
  // A fitted device under a built-in device's name would stand in for it in the profile's catalogue,
  // and validate would simulate the built-in one instead of the trace's: say so at once.
  static const auto builtin = load_device_catalogue({});
  if (builtin.count(name))
    throw InputError({(std::filesystem::path(t.dir) / "meta.yaml").string(), 0, 0}, "capture.trace_set",
                     "the trace set '" + set + "' with storage kind '" + kind + "' names its device '" + name +
                         "', a built-in catalogue device: rename the set (the directory holding the trace, or meta.yaml's capture.trace_set)");
  return name;
}

namespace {

struct ReadQueueFit {
  int units = 1;
  double service_s = 0;
  double rms_log_error = 0;
  std::vector<std::pair<int, std::pair<double, double>>> points;  // depth -> (measured, fitted IOPS)
};

// The read curve (IOPS over queue depths) as `units` servers behind a delay: at the ceiling every
// unit is busy (service = units / ceiling), the QD1 latency is delay + service, and the number of
// units is the one whose MVA curve fits the measured depths best (log error).
ReadQueueFit fit_read_queue(const std::vector<const FioResult*>& reads, double qd1_s, double ceiling_iops) {
  ReadQueueFit best;
  best.rms_log_error = std::numeric_limits<double>::infinity();
  for (int units = 1; units <= 64; units *= 2) {
    // A device that reaches its ceiling at QD1 (tmpfs: the copy is the whole cost) is one unit with
    // no delay.
    double service = std::min(units / ceiling_iops, qd1_s);
    if (units > 1 && service >= qd1_s) break;
    double sum = 0;
    ReadQueueFit fit{units, service, 0, {}};
    for (const auto* f : reads) {
      double x = mva_throughput(f->iodepth, qd1_s - service, units, service);
      sum += std::pow(std::log(x / f->iops), 2);
      fit.points.push_back({f->iodepth, {f->iops, x}});
    }
    fit.rms_log_error = std::sqrt(sum / std::max<size_t>(1, reads.size()));
    if (fit.rms_log_error < best.rms_log_error) best = fit;
  }
  return best;
}

}  // namespace

std::string device_yaml_from_fio(const Trace& t, double host_cpu_s) {
  const std::string dev = device_name_for(t);
  // Reads: QD1 latency, the ceiling over queue depths, and the number of units that fits the curve.
  // Writes: QD1 latency of a plain write (acknowledged, no flush), the ceiling of plain writes over
  // queue depths, and the flush latency of the redo-like job (small sequential writes, each
  // fdatasync'ed) when captured, else of the random write + fsync job. Figures are per fio block
  // (the reference block).
  double qd1 = 0, best_iops = 0, block = 16384, write_lat = 0, write_iops = 0, sync_lat = 0;
  bool redo_like_sync = false;
  std::vector<const FioResult*> reads;
  for (const auto& f : t.fio) {
    if (f.rw == "randread") {
      // The read curve is one block size's: a job of another size would mix two devices' figures.
      if (!reads.empty() && f.block_bytes != block)
        throw InputError({f.file, 0, 0}, "job options.bs",
                         "randread jobs of two block sizes (" + std::to_string(std::lround(block)) + " B in " + reads.front()->file + ", " +
                             std::to_string(std::lround(f.block_bytes)) + " B here): capture one size for the read curve");
      // One job per queue depth: two (an iodepth missing from one job's options reads as fio's
      // default, 1) made two points of the curve at one depth, fitted as if both were.
      for (const FioResult* other : reads)
        if (other->iodepth == f.iodepth)
          throw InputError({f.file, 0, 0}, "job options.iodepth",
                           "a second randread job at iodepth " + std::to_string(f.iodepth) + " (the first: " + other->file +
                               "): the read curve takes one job per queue depth");
      if (f.iodepth == 1) qd1 = f.latency_mean_s;
      best_iops = std::max(best_iops, f.iops);
      block = f.block_bytes;
      reads.push_back(&f);
    } else if (f.rw == "randwrite" && !f.syncs) {
      if (f.iodepth == 1) write_lat = f.latency_mean_s;
      write_iops = std::max(write_iops, f.iops);
    } else if (f.syncs && f.sync_latency_mean_s > 0 && (f.rw == "write" || !redo_like_sync)) {
      sync_lat = f.sync_latency_mean_s;
      redo_like_sync = f.rw == "write";
      if (write_lat <= 0 && (f.direct || t.meta["storage"]["kind"].Scalar() == "tmpfs")) write_lat = f.latency_mean_s;  // a buffered write's is the page cache's
    }
  }
  if (t.fio.empty()) return "";  // no fio jobs: the catalogue's device
  // fio jobs without these measure only part of the device: the rest was left out of the catalogue
  // (no QD1 read) or taken as free (no sync job: a flush of 0 us, power-loss protection) without a
  // word. capture.py records both.
  const std::string fio_dir = (std::filesystem::path(t.dir) / "fio").string();
  if (qd1 <= 0 || best_iops <= 0)
    throw InputError({fio_dir, 0, 0}, "", "no randread job at iodepth 1 among the fio jobs: the device's read latency is not measured "
                                          "(capture.py records randread-16k-qd1.json)");
  if (sync_lat <= 0)
    throw InputError({fio_dir, 0, 0}, "", "no fsync or fdatasync job among the fio jobs: the device's flush is not measured "
                                          "(capture.py records randwrite-16k-fsync-qd1.json)");
  std::sort(reads.begin(), reads.end(), [](const FioResult* a, const FioResult* b) { return a->iodepth < b->iodepth; });
  ReadQueueFit fit = fit_read_queue(reads, qd1, best_iops);
  // The interface is not what limits a fitted device: make it an order of magnitude wider than the
  // ceiling so that the units and the delay carry the measured figures.
  double interface_Bps = 10 * std::max(best_iops, write_iops) * block;
  std::ostringstream d;
  d << yaml_scalar(dev) << ":\n";
  d << "  kind: " << (t.meta["storage"]["kind"].Scalar() == "tmpfs" ? "ram" : t.meta["storage"]["kind"].Scalar()) << "\n";
  d << "  description: " << yaml_scalar("fitted from " + std::filesystem::path(t.dir).filename().string() + "/fio") << "\n";
  d << "  source: "
    << yaml_scalar("fio JSON in " + t.dir +
                       "/fio: QD1 randread latency, the randread curve over queue depths (units and service fitted by MVA), QD1 write latency, the"
                       " best randwrite IOPS, fdatasync/fsync latency (V, measured); write buffer size assumed (U)",
                   true)
    << "\n";
  d << "  # read curve, IOPS measured -> fitted (" << fit.units << " units of " << fmt_us(fit.service_s)
    << ", rms log error " << std::setprecision(3) << fit.rms_log_error << "):";
  for (const auto& [depth, xs] : fit.points) d << " QD" << depth << " " << std::lround(xs.first) << "->" << std::lround(xs.second);
  d << "\n";
  d << "  capacity: 100GiB\n";
  d << "  reference_block: " << std::lround(block) << "B\n";
  d << "  read_latency: " << fmt_us(qd1) << "\n";
  d << "  read_service: " << fmt_us(fit.service_s) << "\n";
  d << "  read_transfer_rate: 0B/s\n";
  d << "  read_iops: " << std::lround(best_iops) << "/s\n";
  d << "  parallel_units: " << fit.units << "\n";
  d << "  queue: shared\n";
  d << "  read_priority: false  # one backend for reads and writes: fio's mixed job shares its ceiling\n";
  d << "  read_bandwidth: " << std::lround(interface_Bps) << "B/s\n";
  d << "  write_bandwidth: " << std::lround(interface_Bps) << "B/s\n";
  d << "  write_latency: " << fmt_us(write_lat > 0 ? write_lat : qd1) << "\n";
  d << "  write_iops: " << std::lround(write_iops > 0 ? write_iops : best_iops) << "/s\n";
  d << "  write_cache: 64MiB\n";
  d << "  flush_latency: " << fmt_us(sync_lat) << "\n";
  d << "  power_loss_protection: " << (sync_lat < 100e-6 ? "true" : "false") << "\n";
  // Whether a flush holds the queue is the interface's, not something fio's jobs here measure: SATA's
  // FLUSH CACHE is not an NCQ command; a virtio disk's flush is the host's fdatasync of the image,
  // and reads slow down behind it (traces/local-vm/fio-interference, run E). NVMe queues its Flush.
  const std::string kind = t.meta["storage"]["kind"].Scalar();
  d << "  flush_blocks_io: " << (kind == "sata" || kind == "virtual-disk" ? "true" : "false") << "\n";
  d << "  host_cpu_per_io: " << fmt_us(host_cpu_s) << "  # fitted from the server's CPU per transaction (0: not fitted)\n";
  // Where the device's completions interrupt: the CPUs capture.py saw take its interrupts
  // (meta.yaml storage.completion_cpus, from /proc/interrupts); one CPU means one request queue.
  const auto& cpus = t.meta["storage"]["completion_cpus"];
  if (cpus && cpus.IsScalar() && cpus.as<int>() == 1)
    d << "  completion_interrupts: one-core  # " << std::filesystem::path(t.dir).filename().string()
      << "/meta.yaml storage.completion_cpus: 1 (/proc/interrupts)\n";
  return d.str();
}

// The write rate one member of the trace's storage sustained over the run (iostat: the mean of the
// members meta.yaml `storage.members` names, `wMB/s` or `wkB/s`), in bytes per second; 0 when not
// recorded.
double member_write_Bps(const Trace& t) {
  const auto& members = t.meta["storage"]["members"];
  if (!t.iostat || !members || !members.IsSequence() || members.size() == 0) return 0;
  auto mean = t.iostat->run_mean();
  double sum = 0;
  for (const auto& m : members) {
    auto dev = mean.devices.find(m.Scalar());
    if (dev == mean.devices.end()) return 0;
    if (dev->second.count("wMB/s")) sum += dev->second.at("wMB/s") * kMiB;  // sysstat's -m is MiB
    else if (dev->second.count("wkB/s")) sum += dev->second.at("wkB/s") * kKiB;
    else return 0;
  }
  return sum / members.size();
}

std::string device_yaml_for(const Trace& t, double host_cpu_s, double sustained_write_Bps) {
  if (!t.fio.empty()) return device_yaml_from_fio(t, host_cpu_s);
  const auto& storage = t.meta["storage"];
  if (!storage["model"]) return "";
  // No fio jobs: the catalogue entry the trace names as its device's model (a choice when the data
  // does not name it; meta.yaml says why), with the fitted host CPU per IO.
  const std::string model = storage["model"].Scalar();
  YAML::Node catalogue = YAML::Load(kBuiltinCatalogueYaml);
  if (!catalogue[model]) {
    std::vector<std::string> names;
    for (auto it = catalogue.begin(); it != catalogue.end(); ++it) names.push_back(it->first.Scalar());
    std::string near = did_you_mean(model, names);
    throw InputError({t.dir + "/meta.yaml", storage["model"].Mark().line + 1, storage["model"].Mark().column + 1}, "storage.model",
                     "no catalogue entry '" + model + "'" + (near.empty() ? "" : " (did you mean '" + near + "'?)"));
  }
  YAML::Node entry = YAML::Clone(catalogue[model]);
  entry["description"] = entry["description"].Scalar() + " (the catalogue's " + model + ", standing for " +
                         trace_set_directory(t) + "'s device)";
  entry["source"] = "catalogue entry " + model + " (scenarios/catalogue/devices.yaml), named by " +
                    std::filesystem::path(t.dir).filename().string() + "/meta.yaml storage.model" +
                    (storage["model_note"] ? ": " + storage["model_note"].Scalar() : std::string()) +
                    ". Its figures: " + entry["source"].Scalar() + " host_cpu_per_io fitted by poolsim calibrate.";
  entry["host_cpu_per_io"] = fmt_us(host_cpu_s);
  // A device that sustained more writes in the calibration traces than the entry lets its buffer
  // drain drains at least that fast: the measured rate is a lower bound. With raw_capacity the
  // entry's drain depends on the data held and is at most its flash program rate (a device holding
  // almost nothing), so only a measured rate above that contradicts it; the raised entry then drains
  // at the measured rate whatever it holds.
  const DeviceSpec spec = device_from_yaml(model, entry, schema::Origin{t.dir + "/meta.yaml", {}}, "storage.model");
  const double block = spec.reference_block_bytes, write_iops = spec.write_iops;
  const double drain_bound_Bps = spec.max_drain_Bps();
  if (sustained_write_Bps > drain_bound_Bps) {
    entry["write_iops"] = std::to_string(std::lround(sustained_write_Bps / block)) + "/s";
    entry.remove("raw_capacity");
    entry["source"] = entry["source"].Scalar() + " write_iops raised from " + std::to_string(std::lround(write_iops)) +
                      "/s to the rate one member sustained in the calibration traces (iostat wMB/s, mean over a run, the"
                      " highest run: " + std::to_string(std::lround(sustained_write_Bps / 1e6)) + " MB/s; V, measured, a lower bound).";
  }
  YAML::Node out;
  out[device_name_for(t)] = entry;
  YAML::Emitter e;
  e << out;
  return std::string(e.c_str()) + "\n";
}

// Background server CPU per transaction = a + b_dev x pages written per transaction (data and
// doublewrite pages, each an IO in the kernel's path to device dev), least squares over the traces
// that split the server's CPU by thread. Each trace's background CPU is its measured share (perf
// sched's background run time over the server's) times its server CPU per transaction over the whole
// capture (capture.mariadbd_cpu_pct, in reference-core seconds like the fitted traces): the share
// does not carry perf's own cost the way perf's absolute run times do. a is shared (purge and the
// task pool do not depend on the device); b is the device's CPU per page written. Coefficients
// >= 0: a negative one is dropped and the rest refitted. A device whose background traces wrote no
// page gets no b (its writes stay in the per-IO column of the fit).
struct BackgroundFit {
  double per_txn_s = 0;
  std::map<std::string, double> per_write_s;  // device -> CPU per page written
  std::vector<std::string> rows;              // "trace: measured -> fitted" for the report
  bool empty() const { return rows.empty(); }
  // The background CPU the fit takes out of a trace: a, plus b x its pages written when its device
  // was measured.
  double of(const Trace& t) const {
    auto it = per_write_s.find(device_name_for(t));
    return per_txn_s + (it == per_write_s.end() ? 0.0 : it->second * pages_written_per_txn(t));
  }
  bool measured(const Trace& t) const { return per_write_s.count(device_name_for(t)) > 0; }
  static double pages_written_per_txn(const Trace& t) {
    return t.per_txn("Innodb_pages_written").value_or(0) + t.per_txn("Innodb_dblwr_pages_written").value_or(0);
  }
};

BackgroundFit fit_background(const std::vector<Trace>& traces, double probe_ref) {
  BackgroundFit f;
  if (traces.empty()) return f;
  std::vector<std::string> devices;
  std::vector<double> y;
  for (const auto& t : traces) {
    const char* why = nullptr;
    MeasuredCpu m = measured_cpu(t);
    if (!t.server_threads || t.server_threads->connection_ms + t.server_threads->background_ms <= 0)
      why = "a background trace needs the server's CPU by thread (perf_sched_timehist.tsv of capture.py --perf-sched)";
    else if (std::isnan(m.per_txn_s) || m.host_wide)
      why = "a background trace needs the server's own CPU (capture.mariadbd_cpu_pct)";
    if (why) throw InputError({t.dir + "/perf_sched_timehist.tsv", 0, 0}, "perf_sched_timehist.tsv", why);
    const double share = t.server_threads->background_share();
    const double probe = cpu_probe_eps(t);
    y.push_back(share * m.per_txn_s * (std::isnan(probe) || std::isnan(probe_ref) ? 1.0 : probe / probe_ref));
    std::string dev = device_name_for(t);
    if (std::find(devices.begin(), devices.end(), dev) == devices.end()) devices.push_back(dev);
  }
  const int n = static_cast<int>(traces.size()), columns = 1 + static_cast<int>(devices.size());
  Eigen::MatrixXd X = Eigen::MatrixXd::Zero(n, columns);
  for (int i = 0; i < n; ++i) {
    X(i, 0) = 1;
    int k = static_cast<int>(std::find(devices.begin(), devices.end(), device_name_for(traces[i])) - devices.begin());
    X(i, 1 + k) = BackgroundFit::pages_written_per_txn(traces[i]);
  }
  std::vector<int> active;
  for (int c = 0; c < columns; ++c)
    if (X.col(c).cwiseAbs().maxCoeff() > 0) active.push_back(c);
  if (n < static_cast<int>(active.size())) {
    std::string names;
    for (const auto& t : traces) names += " " + std::filesystem::path(t.dir).filename().string();
    throw InputError({traces.front().dir + "/perf_sched_timehist.tsv", 0, 0}, "--background",
                     "the background fit has " + std::to_string(active.size()) + " terms (one per transaction, one per device that wrote pages) and only " +
                         std::to_string(n) + " traces:" + names + "; add traces, e.g. one with and one without page writes per device");
  }
  const Eigen::VectorXd yv = Eigen::Map<const Eigen::VectorXd>(y.data(), n);
  Eigen::VectorXd beta = Eigen::VectorXd::Zero(columns);
  while (!active.empty()) {
    Eigen::MatrixXd A(n, active.size());
    for (size_t j = 0; j < active.size(); ++j) A.col(j) = X.col(active[j]);
    Eigen::VectorXd b = A.colPivHouseholderQr().solve(yv);
    beta.setZero();
    size_t worst = active.size();
    for (size_t j = 0; j < active.size(); ++j) {
      beta(active[j]) = b(j);
      if (b(j) < 0 && (worst == active.size() || b(j) < b(worst))) worst = j;
    }
    if (worst == active.size()) break;
    active.erase(active.begin() + static_cast<long>(worst));
  }
  f.per_txn_s = beta(0);
  for (size_t k = 0; k < devices.size(); ++k)
    if (X.col(1 + static_cast<long>(k)).cwiseAbs().maxCoeff() > 0) f.per_write_s[devices[k]] = beta(1 + static_cast<long>(k));
  for (int i = 0; i < n; ++i) {
    std::ostringstream r;
    r << std::filesystem::path(traces[i].dir).filename().string() << ": " << fmt_us(y[i]) << " (share "
      << std::setprecision(3) << 100 * traces[i].server_threads->background_share() << " %) at " << X.row(i).tail(columns - 1).sum()
      << " pages written per txn -> " << fmt_us(f.of(traces[i]));
    f.rows.push_back(r.str());
  }
  return f;
}

CalibrationOutput calibrate(const std::vector<Trace>& traces, const std::string& name, const std::vector<Trace>& background_traces) {
  if (traces.empty()) throw InputError({}, "", "no traces to calibrate on");
  if (name.empty()) throw InputError({}, "name", "the profile needs a name (calibrate --name, or the output file's name)");

  // 1. Server CPU per transaction = S + r * page reads + w * page writes (per transaction), from the
  //    server process's measured CPU time. Ordinary least squares with Eigen.
  std::vector<const Trace*> usable;
  std::vector<MeasuredCpu> cpu;
  const Trace* without_cpu = nullptr;  // the first trace without a CPU figure
  for (const auto& t : traces) {
    MeasuredCpu m = measured_cpu(t);
    if (std::isnan(m.per_txn_s)) {
      if (!without_cpu) without_cpu = &t;
      continue;
    }
    usable.push_back(&t);
    cpu.push_back(m);
  }
  if (usable.empty())
    throw InputError({traces.front().dir + "/meta.yaml", 0, 0}, "capture.mariadbd_cpu_pct",
                     "no trace records the server's CPU use (capture.mariadbd_cpu_pct) or the host's (iostat.txt); the fit needs one");
  // A trace named for the fit is in it or refused: one without a CPU figure among others with one
  // was left out without a word (a helper deleted an iostat.txt: "2 traces" of the 3 named).
  if (without_cpu)
    throw InputError({without_cpu->dir + "/meta.yaml", 0, 0}, "capture.mariadbd_cpu_pct",
                     "this trace records neither the server's CPU use (capture.mariadbd_cpu_pct) nor the host's (iostat.txt), which the "
                     "other traces record: the CPU fit cannot use it (leave it out, or give it its CPU figure)");
  const int n = static_cast<int>(usable.size());
  // One profile is one server: its product and its version's features (flushing policies) come from
  // the first trace, so traces of another product or MAJOR.MINOR would be fitted as that one's.
  for (const auto* t : usable)
    if (server_of(*t) != server_of(*usable.front()))
      throw InputError({t->dir + "/meta.yaml", 0, 0}, "engine",
                       "this trace's server is " + server_of(*t) + ", the first trace's " + server_of(*usable.front()) +
                           ": one profile is one server; calibrate each on its own traces");
  const bool host_wide = cpu.front().host_wide;
  // The host's speed varies between captures (traces/local-vm/idle): when every trace probed it,
  // CPU seconds are converted to seconds of the reference core, the traces' mean probe.
  std::vector<double> speed(n);
  for (int i = 0; i < n; ++i) speed[i] = cpu_probe_eps(*usable[i]);
  const double probe_ref = std::accumulate(speed.begin(), speed.end(), 0.0) / n;  // NaN unless all probed
  // The server CPU that runs off the transactions' path, where traces measured it by thread: it is
  // taken out of each trace's CPU before the fit and charged by the model in the background (the
  // profile's background_per_txn, the devices' host_cpu_per_write).
  const BackgroundFit background = fit_background(background_traces, probe_ref);
  for (int i = 0; i < n; ++i) {
    speed[i] = std::isnan(probe_ref) ? 1.0 : speed[i] / probe_ref;
    cpu[i].per_txn_s *= speed[i];
    if (!background.empty()) cpu[i].per_txn_s -= background.of(*usable[i]);
  }
  for (int i = 0; i < n; ++i)
    if (cpu[i].host_wide != host_wide)
      throw InputError({usable[i]->dir + "/meta.yaml", 0, 0}, "capture.mariadbd_cpu_pct",
                       "some traces record the server's own CPU and others only the host's (iostat): fit them separately");
  // Columns: S, one per-IO host CPU per storage kind (reads + page writes through that device's
  // kernel path), and the server's own CPU per page written.
  std::vector<std::string> kinds;
  for (const auto* t : usable) {
    std::string k = device_name_for(*t);
    if (std::find(kinds.begin(), kinds.end(), k) == kinds.end()) kinds.push_back(k);
  }
  // S, per-IO host CPU per device, idle wake-ups, per client thread beyond the cores.
  const int devices = static_cast<int>(kinds.size());
  // Read and write statements get their own unit when the traces' mixes differ enough in their
  // read share to tell them apart (one mix: one unit scales the whole shape).
  double min_share = 1, max_share = 0;
  for (const auto* t : usable) {
    auto [r, w] = shape_units_split(*t);
    min_share = std::min(min_share, r / (r + w));
    max_share = std::max(max_share, r / (r + w));
  }
  const bool split = max_share - min_share > 0.05;
  const int wake_column = 1 + devices;
  const int k_column = 2 + devices;
  const int write_column = split ? 3 + devices : -1;
  const int columns = 3 + devices + (split ? 1 : 0);
  Eigen::MatrixXd X = Eigen::MatrixXd::Zero(n, columns);
  Eigen::VectorXd y(n);
  for (int i = 0; i < n; ++i) {
    const Trace& t = *usable[i];
    double cores = t.meta["host"]["cores"].as<double>();
    y(i) = cpu[i].per_txn_s;
    // CPU per shape unit: traces of different mixes (statement counts) share one unit.
    auto [read_units, write_units] = shape_units_split(t);
    X(i, 0) = split ? read_units : read_units + write_units;
    if (split) X(i, write_column) = write_units;
    int k = static_cast<int>(std::find(kinds.begin(), kinds.end(), device_name_for(t)) - kinds.begin());
    // With the device's background measured the page writes' CPU is already out of y: the column
    // counts reads only.
    X(i, 1 + k) = t.per_txn("Innodb_buffer_pool_reads").value_or(0) +
                  (background.measured(t) ? 0.0 : BackgroundFit::pages_written_per_txn(t));
    // Statement round trips that woke a thread on an idle core: the statements, times the chance a
    // core was idle, estimated as the idle share of the CPUs (neither busy nor stolen) times the
    // cores, at most 1 (one thread on two half-idle cores always finds one idle).
    // A trace without busy_pct beside traces with it would count as a host with no idle core (its
    // wake-up column 0), pulling the fit's other terms: refused, naming it.
    if (std::isnan(cpu[i].busy_pct) && std::any_of(cpu.begin(), cpu.end(), [](const auto& c) { return !std::isnan(c.busy_pct); }))
      throw InputError({t.dir + "/meta.yaml", 0, 0}, "capture.busy_pct",
                       "this trace does not say how busy its host was and others do: the idle wake-ups cannot be fitted on a mix; "
                       "give capture.busy_pct (capture.py records it) or leave the trace out");
    double idle = std::max(0.0, 1 - (cpu[i].busy_pct + (std::isnan(cpu[i].steal_pct) ? 0 : cpu[i].steal_pct)) / 100);
    X(i, wake_column) = std::isnan(cpu[i].busy_pct) ? 0 : statements_per_txn(t) * std::min(1.0, idle * cores);
    X(i, k_column) = std::max(0.0, t.meta["workload"]["threads"].as<double>() - cores);
  }
  // Drop columns without variation (all cached: no IO to fit) and keep coefficients >= 0.
  std::vector<int> active = {0};
  for (int c = 1; c < columns; ++c)
    if (X.col(c).cwiseAbs().maxCoeff() > 1e-9) active.push_back(c);
  Eigen::VectorXd beta = Eigen::VectorXd::Zero(columns), sigma = Eigen::VectorXd::Zero(columns);
  // Why a term has no uncertainty: fitted (""), held at 0 because the fit made it negative, or not
  // determined because the traces do not tell the terms apart (fewer traces than terms, or terms
  // that vary together): then every uncertainty is unknown, not 0.
  std::vector<std::string> sigma_note(columns);
  bool determined = true;
  double rms = 0;
  for (int attempt = 0; attempt < columns; ++attempt) {
    Eigen::MatrixXd A(n, active.size());
    for (size_t j = 0; j < active.size(); ++j) A.col(j) = X.col(active[j]);
    const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(A);
    Eigen::VectorXd b = qr.solve(y);
    Eigen::VectorXd residual = y - A * b;
    const int p = static_cast<int>(active.size());
    determined = qr.rank() == p && n > p;
    rms = std::sqrt(residual.squaredNorm() / n);
    beta.setZero();
    sigma.setZero();
    for (size_t j = 0; j < active.size(); ++j) beta(active[j]) = b(j);
    if (determined) {
      const Eigen::MatrixXd cov = residual.squaredNorm() / (n - p) * (A.transpose() * A).inverse();
      for (size_t j = 0; j < active.size(); ++j) sigma(active[j]) = std::sqrt(std::max(0.0, cov(j, j)));
    }
    bool negative = false;
    for (size_t j = 1; j < active.size(); ++j)
      if (b(j) < 0) {
        sigma_note[static_cast<size_t>(active[j])] = "held at 0: the fit made it negative";
        active.erase(active.begin() + static_cast<long>(j));
        negative = true;
        break;
      }
    if (!negative) break;
  }
  for (int c : active)
    if (!determined) sigma_note[static_cast<size_t>(c)] = "not determined by the traces";
  for (int c = 1; c < columns; ++c)
    if (X.col(c).cwiseAbs().maxCoeff() <= 1e-9) sigma_note[static_cast<size_t>(c)] = "the traces do not vary it: held at 0";
  // "+- 1.2us", or why there is no uncertainty; `scale` 1e6 gives the profile's bare microseconds.
  auto plus_minus = [&](int column, double scale = 0) {
    const std::string& note = sigma_note[static_cast<size_t>(column)];
    if (!note.empty()) return "(" + note + ")";
    if (scale == 0) return "+- " + fmt_us(sigma(column));
    std::ostringstream out;
    out << "+- " << sigma(column) * scale;
    return out.str();
  };
  std::map<std::string, std::pair<double, double>> io_cpu;  // device -> (value, sigma)
  for (int k = 0; k < devices; ++k) io_cpu[kinds[k]] = {beta(1 + k), sigma(1 + k)};
  // 2. Client CPU per transaction = a x statements + b x max(0, threads - cores), from sysbench's
  //    measured CPU (the client's scheduling cost grows with its threads too); redo per row change
  //    and per page split from the counters (fit_redo).
  std::vector<std::array<double, 3>> client_rows;  // statements, excess threads, CPU per txn
  const RedoFit redo = fit_redo(usable);
  // The pool's frames per nominal page (innodb_buffer_pool_size / 16 KiB): the rest of the pool holds
  // the pages' descriptors. Measured from Innodb_buffer_pool_pages_total at the end of each run.
  double frames_sum = 0;
  int frames_n = 0;
  // What the LRU flush does with the pages it writes (ServerProfile::LruWrittenPages), from the
  // counters of the runs that flushed from the LRU: the pages it freed clean
  // (Innodb_buffer_pool_pages_LRU_freed) are all the pages evicted (read + created) when written
  // pages stay for a later walk, and the evicted less the written when each is freed as it is written.
  double kept_miss = 0, freed_miss = 0;
  int lru_runs = 0;
  for (int i = 0; i < n; ++i) {
    const Trace* t = usable[i];
    auto freed = t->per_txn("Innodb_buffer_pool_pages_lru_freed"), written = t->per_txn("Innodb_buffer_pool_pages_lru_flushed"),
         reads = t->per_txn("Innodb_buffer_pool_reads");
    if (freed && written && reads && *written > 0) {
      const double evicted = *reads + t->per_txn("Innodb_pages_created").value_or(0);
      kept_miss += std::abs(*freed - evicted);
      freed_miss += std::abs(*freed - (evicted - *written));
      ++lru_runs;
    }
    auto total = t->status_after.find("Innodb_buffer_pool_pages_total");
    std::string unit_error;
    auto pool = parse_quantity(t->meta["server"]["buffer_pool"].Scalar(), Dimension::Bytes, &unit_error);
    if (total != t->status_after.end() && pool && *pool > 0) {
      // Within kMinPoolFramesRatio-kMaxPoolFramesRatio: load_trace checks it (check_pool_pages).
      const double ratio = total->second / (*pool / kInnodbPageBytes);
      frames_sum += ratio;
      ++frames_n;
    }
    double sb = host_wide ? std::nan("") : t->capture_figure("sysbench_cpu_pct");
    double cores = t->meta["host"]["cores"].as<double>();
    if (!std::isnan(sb))
      client_rows.push_back({statements_per_txn(*t), std::max(0.0, t->meta["workload"]["threads"].as<double>() - cores),
                             sb / 100.0 * cores / t->sysbench.tps * speed[i]});
  }
  const int client_n = static_cast<int>(client_rows.size());
  double client_statement_s = 0, client_excess_s = 0;
  if (client_n > 0) {
    Eigen::MatrixXd A(client_n, 2);
    Eigen::VectorXd b(client_n);
    for (int i = 0; i < client_n; ++i) {
      A(i, 0) = client_rows[i][0];
      A(i, 1) = client_rows[i][1];
      b(i) = client_rows[i][2];
    }
    Eigen::VectorXd ab = A.colPivHouseholderQr().solve(b);
    if (A.col(1).cwiseAbs().maxCoeff() < 1e-9 || ab(1) < 0) {  // no variation or no growth: statements only
      ab(0) = A.col(0).dot(b) / A.col(0).squaredNorm();
      ab(1) = 0;
    }
    // sysbench's CPU falling with more statements: the traces' client shares disagree (a cost below 0
    // would be written to the profile, which no simulation takes).
    if (!(ab(0) >= 0))
      throw InputError({usable.front()->dir + "/meta.yaml", 0, 0}, "capture.sysbench_cpu_pct",
                       "the client's CPU per statement fits below 0 (" + fmt_us(ab(0)) + ") over " + std::to_string(client_n) +
                           " traces: their sysbench CPU shares disagree with their statement counts; check capture.sysbench_cpu_pct");
    client_statement_s = ab(0);
    client_excess_s = ab(1);
  }
  double unit_s = beta(0);
  const double write_unit_s = split ? beta(write_column) : beta(0);
  const auto first_units = shape_units_split(*usable.front());
  const double first_s = unit_s * first_units.first + write_unit_s * first_units.second;
  // A profile whose statements cost nothing cannot be simulated (transactions would take no time):
  // a fit that puts all the CPU on the IO and thread terms says the traces' counters are wrong.
  if (!(first_s > 0)) {
    // Fewer traces than terms with variation: the least squares is underdetermined, and the counters
    // may well be right.
    if (n < static_cast<int>(active.size()))
      throw InputError({usable.front()->dir, 0, 0}, "cpu.statement",
                       "the fit leaves no CPU to the statements (S = " + fmt_us(first_s) + "): " + std::to_string(n) + " trace" +
                           (n == 1 ? "" : "s") + " for " + std::to_string(active.size()) +
                           " CPU terms (statements, per IO of each device, threads past the cores, idle wake-ups): give more traces");
    throw InputError({usable.front()->dir + "/status_after.tsv", 0, 0}, "cpu.statement",
                     "the fit leaves no CPU to the statements (S = " + fmt_us(first_s) +
                         "): the traces' page reads, writes or threads explain all their CPU; check their counters");
  }
  // Each class of statements must cost something too (another trace's mix may weigh the other one).
  if (!(unit_s >= 0) || !(write_unit_s >= 0))
    throw InputError({usable.front()->dir + "/meta.yaml", 0, 0}, "cpu.statement",
                     "the fit gives a class of statements CPU below 0 (SELECTs " + fmt_us(unit_s) + ", other statements " +
                         fmt_us(write_unit_s) + " per unit): the traces' CPU shares (capture.mariadbd_cpu_pct) disagree with their mixes");

  std::ostringstream report;
  report << "poolsim calibrate: " << n << " traces\n";
  if (!background.empty()) {
    report << "  background server CPU per txn = a + b_dev x pages written (data + doublewrite), from the CPU by thread of "
           << background_traces.size() << " traces: a = " << fmt_us(background.per_txn_s);
    for (const auto& [dev, b] : background.per_write_s) report << ", b[" << dev << "] = " << fmt_us(b);
    report << " per page; taken out of each trace's CPU below, and the IO column counts page reads only for those devices\n";
    for (const auto& r : background.rows) report << "    " << r << "\n";
  }
  if (host_wide)
    report << "  (host-wide CPU from iostat: the client and the monitoring tools run on the same host and are"
              " inside the statement costs; client CPU is not fitted separately)\n";
  report << "  server CPU per txn = S + sum over devices of c_dev x (page reads" << (background.empty() ? " + page writes + doublewrite pages" : "")
         << ") + w x statements x idle share + k x max(0, threads - cores)\n";
  if (split)
    report << "    S = u_r x shape units of the mix's SELECTs + u_w x those of its other statements: u_r = " << fmt_us(beta(0))
           << " " << plus_minus(0) << ", u_w = " << fmt_us(write_unit_s) << " " << plus_minus(write_column) << " per unit";
  else
    report << "    S = u x shape units of the trace's mix: u = " << fmt_us(beta(0)) << " " << plus_minus(0) << " per unit";
  {
    std::map<std::pair<double, double>, std::string> by_units;  // one line per distinct mix
    for (const auto* t : usable) by_units.emplace(shape_units_split(*t), std::filesystem::path(t->dir).filename().string());
    for (const auto& [units, example] : by_units)
      report << "; S = " << fmt_us(unit_s * units.first + write_unit_s * units.second) << " (" << example << ")";
  }
  report << "\n";
  for (int k = 0; k < devices; ++k) report << "    c[" << kinds[k] << "] = " << fmt_us(beta(1 + k)) << " " << plus_minus(1 + k) << " per IO\n";
  report << "    w = " << fmt_us(beta(wake_column)) << " " << plus_minus(wake_column) << " per statement woken on an idle core\n";
  report << "    k = " << fmt_us(beta(k_column)) << " " << plus_minus(k_column) << " per client thread beyond the cores\n";
  if (!determined)
    report << "    the traces do not determine these terms (" << n << " trace" << (n == 1 ? "" : "s") << " for " << active.size()
           << " terms, or terms that vary together): the split between them is one of many that fit as well, and their"
              " uncertainties are unknown; give traces that differ in threads, pool size and device\n";
  report << "    rms residual = " << fmt_us(rms) << " per txn\n";
  report << "  client CPU per txn = a x statements + b x max(0, threads - cores): a = " << fmt_us(client_statement_s)
         << " per statement, b = " << fmt_us(client_excess_s) << " per client thread beyond the cores (" << client_n << " traces)\n";
  if (redo.with_splits)
    report << "  redo per txn less the commit record (" << kCommitRedoBytes << " B) = a x row changes + s x page splits: a = "
           << redo.per_row_change_bytes << " +- " << redo.per_row_change_sigma << " B per row change, s = " << redo.per_split_bytes << " +- " << redo.per_split_sigma << " B per split, rms residual "
           << redo.rms_bytes << " B per txn (" << redo.traces << " traces; splits per row change " << redo.min_splits << " to "
           << redo.max_splits << ", median " << redo.splits_per_row_change << ")\n";
  else
    report << "  redo per row change = " << redo.per_row_change_bytes << " B (" << redo.traces << " traces)\n";
  report << "  residuals (measured - fitted server CPU per txn):\n";
  for (int i = 0; i < n; ++i) {
    double fitted = (X.row(i) * beta)(0);
    report << "    " << std::filesystem::path(usable[i]->dir).filename().string() << ": " << fmt_us(y(i) - fitted) << " ("
           << std::setprecision(3) << 100 * (y(i) - fitted) / y(i) << " %)\n";
  }

  const Trace& first = *usable.front();
  std::ostringstream p;
  p << "# Fitted by `poolsim calibrate` (calibrate/src/calibration.cpp). Do not edit by hand: re-run it.\n";
  p << "name: " << yaml_scalar(name) << "\n";
  p << "product: " << first.meta["engine"]["product"].Scalar() << "\n";
  p << "version: \"" << first.meta["engine"]["version"].Scalar() << "\"\n";
  if (host_wide)
    p << "source: >-\n  least squares on the host's busy CPU per transaction (iostat avg-cpu user + nice + system x CPUs / TPS;"
         " the client and the monitoring tools ran on the same host, so their CPU is inside the statement costs and"
         " client_statement is 0) of " << n;
  else
    p << "source: >-\n  least squares on the server CPU per transaction (capture.mariadbd_cpu_pct x cores / TPS) of " << n;
  p << " traces; statement kinds split by an assumed shape (U, calibrate/src/calibration.cpp); "
    << (host_wide ? ""
        : client_n > 0 ? std::string("client CPU from sysbench's CPU; ")
                       : std::string("client CPU not measured (no trace records capture.sysbench_cpu_pct): client_statement 0; "))
    << "redo from Innodb_os_log_written. Traces:";
  for (const auto* t : usable) p << " " << std::filesystem::path(t->dir).filename().string();
  p << "\ncpu:\n  statement:\n";
  for (int k = 0; k < kStatementKinds; ++k) {
    std::string kind = statement_name(static_cast<StatementKind>(k));
    p << "    " << kind << ": " << fmt_us((is_select(static_cast<StatementKind>(k)) ? unit_s : write_unit_s) * kStatementShape.at(kind)) << "\n";
  }
  p << "  range_row: 0us        # inside the range statements' shape\n";
  p << "  page_hit: 0us         # inside S: every transaction of a mix touches about the same pages\n";
  p << "  page_read: 0us        # per device: host_cpu_per_io in the fitted device catalogue\n";
  p << "  page_write: 0us       # per device: host_cpu_per_write (else host_cpu_per_io)\n";
  p << "  checksum_crc32: 0us   # inside page_read / page_write\n";
  p << "  checksum_innodb: 0us  # not measured\n";
  p << "  client_statement: " << fmt_us(client_statement_s)
    << (!host_wide && client_n == 0 ? "  # not measured: no trace records capture.sysbench_cpu_pct" : "") << "\n";
  p << "  page_cleaner_batch: 0us\n";
  if (!background.empty())
    p << "  background_per_txn: " << fmt_us(background.per_txn_s)
      << "  # background threads' CPU per transaction beyond the page writes (purge, task pool), by thread\n";
  const StatementScv statement_scv = statement_scv_from_bursts(background_traces);
  if (!std::isnan(statement_scv.scv))
    p << "statement_cpu_scv: " << statement_scv.scv << "  # measured: the server"
      << (statement_scv.from_connections == statement_scv.runs ? "'s connection threads'" : "'s")
      << " CPU bursts in " << statement_scv.runs
      << " cached runs (perf sched), SCV " << statement_scv.bursts_scv
      << (statement_scv.from_quantiles == statement_scv.runs ? " (a gamma through their p50/p90/p99; their moments' "
                                                              : " (their moments'; the moments' ")
      << statement_scv.moments_scv << ")"
      << ", less the statement kinds' spread " << statement_scv.kinds_scv << "\n";
  if (!std::isnan(statement_scv.tail_share))
    p << "statement_cpu_tail: {share: " << statement_scv.tail_share << ", mean: " << fmt_us(statement_scv.tail_mean_us * 1e-6)
      << "}  # measured: the connection threads' bursts over 1 ms in " << statement_scv.tail_runs
      << " cached runs (perf sched): their share of the threads' CPU and their mean length\n";
  p << "serial_section: 0us\n";
  p << "oversubscription_cpu: " << fmt_us(beta(k_column) + client_excess_s) << "  # server k + client b\n";
  p << "idle_wakeup_cpu: " << fmt_us(beta(wake_column)) << "\n";
  if (!std::isnan(probe_ref))
    p << "cpu_probe_eps: " << probe_ref << "  # the reference core: mean sysbench cpu events/s of the traces (capture.cpu_probe_eps_*)\n";
  p << "redo_bytes_per_row_change: " << std::lround(redo.per_row_change_bytes) << "B\n";
  if (redo.with_splits) {
    p << "redo_bytes_per_page_split: " << std::lround(redo.per_split_bytes) << "B  # fitted with the line above: redo per txn less the commit record ("
      << kCommitRedoBytes << " B) = a x row changes + s x Innodb_buffer_pool_pages_split per txn, rms "
      << std::lround(redo.rms_bytes) << " B per txn\n";
    p << "page_splits_per_row_change: " << redo.splits_per_row_change << "  # the calibration traces' median (" << redo.min_splits << " to "
      << redo.max_splits << "): their data set's age, which validate replaces with each trace's own\n";
  }
  if (frames_n > 0)
    p << "pool_frames_ratio: " << frames_sum / frames_n << "  # measured: Innodb_buffer_pool_pages_total / (buffer pool / 16 KiB), mean of "
      << frames_n << " traces\n";
  p << "free_page_policy: " << free_page_policy_of(first.meta["engine"]["product"].Scalar(), first.meta["engine"]["version"].Scalar())
    << "  # from the engine's version, not fitted (calibrate/src/calibration.cpp free_page_policy_of)\n";
  p << "zero_lwm_flushing: " << zero_lwm_flushing_of(first.meta["engine"]["product"].Scalar(), first.meta["engine"]["version"].Scalar())
    << "  # from the engine's version (MDEV-24537, MariaDB 10.5.9), not fitted\n";
  if (lru_runs > 0)
    p << "lru_written_pages: " << (kept_miss < freed_miss ? "kept" : "freed")
      << "  # measured: Innodb_buffer_pool_pages_LRU_freed per transaction is the pages read and created less "
      << (kept_miss < freed_miss ? "nothing" : "the LRU-written ones") << " (mean miss " << std::min(kept_miss, freed_miss) / lru_runs
      << " against " << std::max(kept_miss, freed_miss) / lru_runs << " pages per transaction, " << lru_runs << " traces)\n";
  p << "flush_neighbors_devices: " << flush_neighbors_devices_of(first.meta["engine"]["product"].Scalar())
    << "  # from the engine (MariaDB: only on files it finds rotational), not fitted\n";
  p << "fit:\n";
  p << "  traces: \"" << n << "\"\n";
  p << "  S_us: \"" << first_s * 1e6 << " " << plus_minus(0, 1e6 * (first_units.first + (split ? 0 : first_units.second)))
    << "\"  # for the first trace's mix" << (split ? " (uncertainty of its SELECT part)" : "") << "\n";
  p << "  unit_us: \"" << beta(0) * 1e6 << " " << plus_minus(0, 1e6) << "\"" << (split ? "  # SELECTs" : "") << "\n";
  if (split) p << "  write_unit_us: \"" << write_unit_s * 1e6 << " " << plus_minus(write_column, 1e6) << "\"  # writes, BEGIN, COMMIT\n";
  p << "  oversubscription_us: \"" << beta(k_column) * 1e6 << " " << plus_minus(k_column, 1e6) << "\"\n";
  for (int k = 0; k < devices; ++k) p << "  io_cpu_us_" << kinds[k] << ": \"" << beta(1 + k) * 1e6 << " " << plus_minus(1 + k, 1e6) << "\"\n";

  p << "  idle_wakeup_us: \"" << beta(wake_column) * 1e6 << " " << plus_minus(wake_column, 1e6) << "\"\n";
  p << "  rms_residual_us: \"" << rms * 1e6 << "\"\n";
  if (!background.empty()) {
    p << "  background_traces: \"";
    for (size_t i = 0; i < background_traces.size(); ++i)
      p << (i ? " " : "") << std::filesystem::path(background_traces[i].dir).filename().string();
    p << "\"\n";
  }

  // 3. Devices from the fio jobs: QD1 read latency, the read ceiling over queue depths (parallel
  //    units = ceiling x QD1 latency), write and fsync latency at QD1.
  std::ostringstream d;
  d << "# Device models fitted by `poolsim calibrate` from the traces' fio jobs (or the catalogue entry a trace names as storage.model).\n";
  std::map<std::string, const Trace*> by_device;
  for (const auto& t : traces)
    if (!t.fio.empty() || t.meta["storage"]["model"]) by_device.emplace(device_name_for(t), &t);
  for (const auto& [dev, t] : by_device) {
    auto found = io_cpu.find(dev);
    double sustained_write_Bps = 0;  // the highest write rate a member sustained over a run of this device
    for (const auto& other : traces)
      if (device_name_for(other) == dev) sustained_write_Bps = std::max(sustained_write_Bps, member_write_Bps(other));
    d << device_yaml_for(*t, found == io_cpu.end() ? 0.0 : found->second.first, sustained_write_Bps);
    auto b = background.per_write_s.find(dev);
    if (b != background.per_write_s.end())
      d << "  host_cpu_per_write: " << fmt_us(b->second)
        << "  # per page written (data or doublewrite), the background threads' CPU by thread (calibrate --background)\n";
  }
  return {p.str(), d.str(), report.str()};
}

std::string scenario_for_trace(const Trace& t, const std::string& profile_path,
                               const std::vector<std::string>& catalogue_paths, double max_duration_s) {
  const auto& w = t.meta["workload"];
  const auto& s = t.meta["server"];
  std::ostringstream y;
  y << "name: " << yaml_scalar(std::filesystem::path(t.dir).filename().string()) << "\n";
  y << "catalogue: [";
  for (size_t i = 0; i < catalogue_paths.size(); ++i) y << (i ? ", " : "") << yaml_scalar(catalogue_paths[i], true);
  y << "]\n";
  // CPU the run did not have: other processes, and the hypervisor's steal (measured per trace).
  const double other_cores = t.capture_figure("other_cpu_cores");
  double background = std::isnan(other_cores) ? 0 : other_cores;
  double steal_pct = t.capture_figure("steal_pct");
  if (!std::isnan(steal_pct)) background += steal_pct / 100.0 * t.meta["host"]["cores"].as<double>();
  y << "compute: {cores: " << t.meta["host"]["cores"].Scalar() << ", background_load: " << background;
  // The host's memory sizes the OS page cache beside the pool (flush_method fsync); without it the
  // scenario's default host is simulated.
  if (t.meta["host"]["memory"] && t.meta["host"]["memory"].IsScalar()) y << ", memory: " << t.meta["host"]["memory"].Scalar();
  // The host's speed during the trace against the profile's reference core, when both were probed.
  double probe = cpu_probe_eps(t);
  if (!std::isnan(probe)) {
    YAML::Node profile;
    try {
      profile = YAML::LoadFile(profile_path);
    } catch (const YAML::Exception& e) {
      throw InputError({profile_path, 0, 0}, "cpu_probe_eps", std::string("cannot read the profile for the trace's core speed: ") + e.what());
    }
    if (const YAML::Node reference = profile["cpu_probe_eps"]; reference && !reference.IsNull()) {
      // Checked here, where it becomes the trace's core speed: the profile's own schema check comes
      // later and would blame the scenario generated for the trace.
      const auto eps = yaml_decimal(reference);
      if (!eps || !(*eps > 0) || !std::isfinite(probe / *eps) || !(probe / *eps > 0))
        throw InputError({profile_path, reference.Mark().line + 1, reference.Mark().column + 1}, "cpu_probe_eps",
                         "expected the reference core's sysbench cpu events per second, a number above 0, got '" + yaml_text(reference) + "'");
      y << ", core_speed: " << probe / *eps;
    }
  }
  y << "}\n";
  y << "storage: {kind: local, device: " << yaml_scalar(device_name_for(t), true);
  // Several devices striped into one volume (meta.yaml storage.devices: an md RAID0).
  if (t.meta["storage"]["devices"]) y << ", devices: " << t.meta["storage"]["devices"].Scalar();
  if (t.meta["storage"]["stripe"]) y << ", stripe: " << t.meta["storage"]["stripe"].Scalar();
  y << "}\n";
  y << "database:\n  profile: " << yaml_scalar(profile_path, true) << "\n  buffer_pool: " << s["buffer_pool"].Scalar() << "\n";
  y << "  io_capacity: " << s["io_capacity"].Scalar() << "\n";
  if (s["io_capacity_max"]) y << "  io_capacity_max: " << s["io_capacity_max"].Scalar() << "\n";
  // MariaDB 10.5+ has one redo file; older servers record log_files_in_group (default 2 there).
  if (s["log_file_size"])
    y << "  log_file_size: " << s["log_file_size"].Scalar() << "\n  log_files_in_group: "
      << (s["log_files_in_group"] ? s["log_files_in_group"].Scalar() : std::string("1")) << "\n";
  // The flushing thresholds the server ran with, when its variables were recorded (variables.tsv):
  // MariaDB's defaults differ from the scenario's (MySQL's) in the low-water mark, 0 against 10 %.
  // Where they were not recorded, the version's defaults (flushing_defaults_of).
  const std::string& product = t.meta["engine"]["product"].Scalar();
  const std::string& version = t.meta["engine"]["version"].Scalar();
  const FlushingDefaults defaults = flushing_defaults_of(product, version);
  // (Ranges: what the scenario takes, 0-99.9 % and 0-70 %; the servers' own go to 99.999 and 70.)
  for (const auto& [variable, key, default_pct, max_pct] :
       {std::tuple<const char*, const char*, double, double>{"innodb_max_dirty_pages_pct", "max_dirty_pages_pct", defaults.max_dirty_pages_pct, 99.9},
        {"innodb_max_dirty_pages_pct_lwm", "max_dirty_pages_pct_lwm", defaults.max_dirty_pages_pct_lwm, 99.9},
        {"innodb_adaptive_flushing_lwm", "adaptive_flushing_lwm", std::nan(""), 70.0}}) {
    const auto v = t.checked_variable(variable, 0.0, max_pct, false, std::string("a percentage from 0 to ") + (max_pct < 99 ? "70" : "99.9"));
    if (v) y << "  " << key << ": " << *v << "%\n";
    else if (!std::isnan(default_pct)) y << "  " << key << ": " << default_pct << "%\n";
  }
  // innodb_flush_neighbors as the server ran (variables.tsv), else as meta.yaml's server section says.
  if (const auto neighbors = t.checked_variable("innodb_flush_neighbors", 0.0, 2.0, true, "0, 1 or 2 (as the server takes)"))
    y << "  flush_neighbors: " << *neighbors << "\n";
  else if (s["flush_neighbors"]) y << "  flush_neighbors: " << s["flush_neighbors"].Scalar() << "\n";
  // The free pages the LRU flush keeps (MariaDB 10.11's innodb_lru_scan_depth is 1536, the scenario's default MySQL's 1024).
  if (const auto scan_depth = t.checked_variable("innodb_lru_scan_depth", 100.0, 1e9, true, "a whole number of pages, at least 100 (as the server takes)"))
    y << "  lru_scan_depth: " << *scan_depth << "\n";
  // The data set's age, when the server counts B-tree page splits: a fresh copy of a prepared data
  // set splits its packed index at most inserts, an aged one rarely, and each split logs about a page
  // (the profile's redo_bytes_per_page_split). A state of the data, not an outcome of the hardware.
  const int row_changes = row_changes_per_txn(t);
  if (auto splits = t.per_txn("Innodb_buffer_pool_pages_split"); splits && row_changes > 0)
    y << "  page_splits_per_row_change: " << *splits / row_changes << "\n";
  // innodb_buffer_pool_instances: the LRU flush keeps lru_scan_depth free pages per instance, where
  // the version divides the pool (variables.tsv, else meta.yaml's server section).
  long instances = 1;
  if (buffer_pool_instances_apply(product, version)) {
    // A value no server has (it takes 1 to 64) is the trace's error, named at its line.
    if (const auto v = t.checked_variable("innodb_buffer_pool_instances", 1.0, 64.0, true,
                                        "a whole number of instances from 1 to 64 (as the server takes)")) {
      instances = std::lround(*v);
      y << "  buffer_pool_instances: " << instances << "\n";
    } else if (s["buffer_pool_instances"]) {
      // Passed as written, for the scenario's checks to judge; a value that is not a number caps nothing.
      instances = std::max(1L, std::atol(s["buffer_pool_instances"].Scalar().c_str()));
      y << "  buffer_pool_instances: " << s["buffer_pool_instances"].Scalar() << "\n";
    } else if (auto pool = parse_quantity(s["buffer_pool"].Scalar(), Dimension::Bytes, nullptr)) {
      // Not recorded: the version's default for the pool's size (a size that does not parse is the
      // scenario's to report, below).
      instances = defaults.buffer_pool_instances(*pool);
      y << "  buffer_pool_instances: " << instances << "\n";
    }
  }
  // innodb_page_cleaners as the server ran, else the version's default; the server lowers it to the
  // buffer pool instances (innodb_page_cleaners in the MySQL 5.7 manual and MariaDB's documentation).
  const auto cleaners = t.checked_variable("innodb_page_cleaners", 1.0, 64.0, true, "a whole number of threads from 1 to 64 (as the server takes)");
  const long page_cleaners = cleaners ? std::lround(*cleaners) : defaults.page_cleaners;
  y << "  page_cleaners: " << std::max(1L, std::min(page_cleaners, instances)) << "\n";
  // innodb_flush_method fsync (and O_DSYNC, which syncs only the log) reads the data files through the
  // OS page cache. On tmpfs the files are that cache already, and the trace's device (the fitted tmpfs)
  // stands for it: not passed there.
  if (s["flush_method"] && (s["flush_method"].Scalar() == "fsync" || s["flush_method"].Scalar() == "O_DSYNC") &&
      t.meta["storage"]["kind"].Scalar() != "tmpfs")
    y << "  flush_method: fsync\n";
  y << "  flush_log_at_trx_commit: " << s["flush_log_at_trx_commit"].Scalar() << "\n";
  y << "  doublewrite: " << s["doublewrite"].Scalar() << "\n";
  int doublewrite_files = doublewrite_files_of(t.meta["engine"]["product"].Scalar(), t.meta["engine"]["version"].Scalar());
  if (doublewrite_files > 0) y << "  doublewrite_files: " << doublewrite_files << "\n";
  y << "  binlog: " << s["binlog"].Scalar() << "\n  sync_binlog: " << s["sync_binlog"].Scalar() << "\n";
  const SysbenchOptions o = sysbench_options_for(t);
  y << "workload:\n  kind: sysbench\n  test: " << o.test << "\n";
  y << "  version: \"" << o.version << "\"\n";
  y << "  tables: " << w["tables"].Scalar() << "\n  table_size: " << w["table_size"].Scalar() << "\n";
  y << "  rand_type: " << w["rand_type"].Scalar() << "\n  range_size: " << w["range_size"].Scalar() << "\n";
  y << "  point_selects: " << o.point_selects << "\n  simple_ranges: " << o.simple_ranges << "\n  sum_ranges: " << o.sum_ranges
    << "\n  order_ranges: " << o.order_ranges << "\n  distinct_ranges: " << o.distinct_ranges
    << "\n  index_updates: " << o.index_updates << "\n  non_index_updates: " << o.non_index_updates
    << "\n  delete_inserts: " << o.delete_inserts << "\n";
  y << "  threads: " << w["threads"].Scalar() << "\n";
  if (o.skip_trx) y << "  skip_trx: true\n";
  // sysbench --rate (capture.py --rate): an open loop of that many transactions per second
  const bool open_loop = w["rate"] && w["rate"].as<double>() > 0;
  if (open_loop) y << "  rate: " << w["rate"].as<double>() << "/s\n";
  // capture.py warms the pool with its own thread count (capture.warmup_threads) for capture.warmup_s.
  // The model's warm-up threads are a closed loop it stops at the warm-up's end, which an open loop
  // does not have: a --rate trace warms up at its own rate instead.
  double warmup_threads = t.capture_figure("warmup_threads");
  if (warmup_threads >= 1 && !open_loop) y << "  warmup_threads: " << std::lround(warmup_threads) << "\n";
  // The capture's own warm-up before its measured run (capture.warmup_s: the pool starts full of clean
  // pages, as after InnoDB's buffer pool load at startup, and dirty pages build up from there), else 2 s.
  double warmup_s = t.capture_figure("warmup_s");
  if (!(warmup_s > 0)) warmup_s = 2;
  // Measured over the trace's own window (sysbench's --time; its total time when meta.yaml lacks it):
  // right after a restart the dirty pages and the page writes per transaction still grow through it,
  // so a shorter window would not see what the trace averaged. max_duration_s > 0 caps it.
  double window_s = w["duration_s"] ? w["duration_s"].as<double>() : t.sysbench.total_time_s;
  if (!(window_s > 0)) window_s = kDefaultWindowSeconds;
  if (max_duration_s > 0) window_s = std::min(window_s, max_duration_s);
  // A window shorter than the minimum batches of the usual length gets shorter batches (its min_batches
  // must fit in its max_duration).
  const double batch_s = std::min(kValidateBatchSeconds, window_s / kMinValidateBatches);
  const int batches = std::max(kMinValidateBatches, static_cast<int>(std::lround(window_s / batch_s)));
  y << "simulation: {seed: 1, warmup: " << warmup_s << "s, batch: " << batch_s << "s, min_batches: " << batches
    << ", target_ci: 2%, max_duration: " << window_s << "s}\n";
  return y.str();
}

}  // namespace poolsim
