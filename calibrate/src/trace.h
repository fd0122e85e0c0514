// Trace directories (traces/README.md): meta.yaml, sysbench.log (1.0.x or 0.5), optional
// status_before/after.tsv, variables.tsv, fio/*.json, iostat.txt. Malformed files are InputErrors naming the file
// and line.
#pragma once
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "workload/sysbench.h"  // SysbenchOptions

namespace poolsim {

// A meta.yaml or profile figure read as a finite decimal number, or nothing: a collection, text, a
// non-finite value or a hexadecimal one (yaml-cpp's as<double>() reads "0x10", and fails on text
// with no file or key).
std::optional<double> yaml_decimal(const YAML::Node& node);
// The node as an error message quotes it: its text, or "a collection".
std::string yaml_text(const YAML::Node& node);

struct SysbenchResult {
  std::string version;  // "1.0" or "0.5" ("1.0" when the log has no banner: then version_seen is false)
  bool version_seen = false;
  double tps = 0, qps = 0;
  std::uint64_t transactions = 0;
  std::uint64_t ignored_errors = 0;  // "ignored errors:" (deadlocks sysbench retried; 0 when the log does not say)
  double read_queries = 0, write_queries = 0, other_queries = 0;
  double latency_avg_ms = 0, latency_p95_ms = 0, latency_max_ms = 0;
  std::optional<double> latency_p99_ms;
  double total_time_s = 0;
  int threads = 0;              // "Number of threads: N" (0 when the log does not say)
  int threads_line = 0;         // its line in the log
  int transactions_line = 0;
  int read_line = 0, write_line = 0, other_line = 0;  // the per-kind query counts' lines (0: not in the log)
  struct Interval {
    double t_s, tps, p95_ms;
    int line = 0;     // its line in the log
    int threads = 0;  // its thds: / threads: figure
  };
  std::vector<Interval> intervals;
};

struct FioResult {
  std::string file;
  std::string rw;  // randread | randwrite | randrw | read | write
  int iodepth = 1;
  double block_bytes = 0;
  double iops = 0;             // of the job's side: writes for write jobs, reads otherwise
  double latency_mean_s = 0;   // of the same side
  double read_iops = 0, write_iops = 0;  // each side (mixed jobs have both)
  double read_latency_mean_s = 0, write_latency_mean_s = 0;
  double sync_latency_mean_s = 0;  // fsync / fdatasync, when the job had one
  bool syncs = false;              // the job had fsync= or fdatasync=
  bool direct = false;             // direct=1: O_DIRECT, the device's own figures (else the OS page cache's)
};

// `iostat -x` output (sysstat; `-m` or `-k` units): a header naming the CPU count, then reports of
// an avg-cpu block and a device block each. The first report is the average since boot, not part of
// the run: `reports` keeps it, `run_mean` skips it.
struct IostatReport {
  int line = 0;  // where the report starts, for messages
  // avg-cpu, % of all CPUs: user + nice + system is the host's busy CPU.
  double user_pct = 0, nice_pct = 0, system_pct = 0, iowait_pct = 0, steal_pct = 0, idle_pct = 0;
  std::map<std::string, std::map<std::string, double>> devices;  // device -> column (r/s, r_await, ...) -> value
  double busy_pct() const { return user_pct + nice_pct + system_pct; }
};

struct IostatLog {
  int cpus = 0;  // from the header's "(N CPU)"
  std::vector<IostatReport> reports;
  // The mean of every report but the first (the since-boot one); devices averaged column by column.
  IostatReport run_mean() const;
};

// /proc/diskstats (Documentation/admin-guide/iostats.rst): per device the cumulative counters after
// major, minor and name; kernels before 4.18 have 11 fields, 5.5+ 17 (discards, then flushes).
struct DiskStats {
  std::uint64_t reads = 0, read_ms = 0, writes = 0, write_ms = 0, io_ms = 0, weighted_ms = 0;
  std::uint64_t read_sectors = 0, write_sectors = 0;
  std::optional<std::uint64_t> flushes, flush_ms;  // 5.5+ kernels only
};

// Mean time per request the block layer saw for one device over a run (after - before), in seconds;
// nullopt where the run made no such request or the kernel does not count it.
struct DeviceAwait {
  std::optional<double> read_s, write_s, flush_s;
  double reads_per_s = 0, writes_per_s = 0, flushes_per_s = 0;
};

// The CPU bursts perf sched saw (perf_sched_bursts.tsv of capture.py --perf-sched): every command's
// runs from switch-in to switch-out, pooled (they share the cores): count, mean and SCV.
struct CpuBursts {
  std::uint64_t count = 0;
  double mean_us = 0;
  double scv = 0;
  // The bursts' p50/p90/p99 (NaN unless exactly one command's row was read and has them: quantiles
  // of different commands do not pool).
  double p50_us = std::nan(""), p90_us = std::nan(""), p99_us = std::nan("");
  // The bursts over 1 ms (capture.py's LONG_BURST_US; columns long_count, long_mean_us since session
  // 15): how many and their mean (NaN as the quantiles).
  double long_count = std::nan(""), long_mean_us = std::nan("");
};

// The database server's CPU by thread over the perf sched window (perf_sched_timehist.tsv of
// capture.py --perf-sched): its connection threads, the `connections` server tasks that ran longest
// with their io_uring workers (iou-wrk-<tid>), against the rest of the process (InnoDB's background
// threads: page cleaner, purge, the task pool completing asynchronous writes).
struct ServerThreadsCpu {
  double connection_ms = 0, background_ms = 0;
  int tasks = 0;  // server tasks seen
  // The background threads' share of the server's run time (0 when nothing ran).
  double background_share() const {
    return connection_ms + background_ms > 0 ? background_ms / (connection_ms + background_ms) : 0.0;
  }
};

struct Trace {
  std::string dir;
  YAML::Node meta;  // validated, with defaults
  SysbenchResult sysbench;
  std::map<std::string, double> status_before, status_after;
  std::map<std::string, double> variables;  // variables.tsv (SHOW GLOBAL VARIABLES), numeric ones, when recorded
  std::map<std::string, int> variable_lines;  // every variable's line in variables.tsv, text ones too
  std::map<std::string, std::string> variable_texts;  // every variable's value in variables.tsv as written
  std::vector<FioResult> fio;
  std::optional<IostatLog> iostat;  // iostat.txt, when recorded
  std::map<std::string, DiskStats> diskstats_before, diskstats_after;  // device name -> counters
  std::optional<CpuBursts> cpu_bursts;  // perf_sched_bursts.tsv, when recorded
  std::optional<CpuBursts> server_bursts;  // the same, the server's own threads only (mariadbd, mysqld)
  // The server's connection threads only (rows `mariadbd:connections`, capture.py since session 15):
  // one per client thread, those that ran longest; without the background threads' bursts.
  std::optional<CpuBursts> connection_bursts;
  std::optional<ServerThreadsCpu> server_threads;  // perf_sched_timehist.tsv, when recorded
  // CPU bursts per transaction: the bursts over the perf sched window (capture.perf_sched_s) times
  // the measured TPS; nullopt without both.
  std::optional<double> bursts_per_txn() const;
  // Status counter delta per transaction (nullopt when not recorded).
  std::optional<double> per_txn(const std::string& counter) const;
  // An InputError at `counter`'s line of status_after.tsv: a delta the calibration cannot use.
  [[noreturn]] void refuse_status_counter(const std::string& counter, const std::string& message) const;
  // The block layer's mean await of `device` over the run (diskstats after - before, divided by
  // the measured window capture.window_s, else the sysbench run time); nullopt without diskstats.
  std::optional<DeviceAwait> device_await(const std::string& device) const;
  // A server variable the trace recorded (variables.tsv), nullopt when it did not record it. Text where
  // a number belongs, a value outside [min, max], or a fraction where `whole` is asked, is the trace's
  // InputError at the variable's line in variables.tsv, "expected <what>".
  std::optional<double> checked_variable(const std::string& variable, double min, double max, bool whole,
                                         const std::string& what) const;
  // A figure of meta.yaml's `capture` section (capture.py's record: load_trace checks the ones the
  // tools read), NaN when absent or null; one that is not a number is an InputError at its line.
  double capture_figure(const char* key) const;
};

std::map<std::string, DiskStats> parse_diskstats(const std::string& text, const std::string& file);

SysbenchResult parse_sysbench_log(const std::string& text, const std::string& file);
// SHOW GLOBAL STATUS / VARIABLES as name TAB value; text values are skipped. With `counters` (the
// status files), a value that starts as a number must be a whole one a 64-bit counter can hold (the
// few SHOW STATUS prints with decimals, times and costs, excepted). `lines`, when given, gets every
// name's line, text values' too; `texts`, every value as written.
std::map<std::string, double> parse_status_tsv(const std::string& text, const std::string& file, bool counters = true,
                                               std::map<std::string, int>* lines = nullptr,
                                               std::map<std::string, std::string>* texts = nullptr);
IostatLog parse_iostat(const std::string& text, const std::string& file);
FioResult parse_fio_json(const std::string& text, const std::string& file);
// `only_commands`: pool only these commands' rows (empty: every command).
CpuBursts parse_perf_sched_bursts(const std::string& text, const std::string& file, const std::vector<std::string>& only_commands = {});
ServerThreadsCpu parse_perf_sched_threads(const std::string& text, const std::string& file, int connections);
Trace load_trace(const std::string& dir);
// The name of the directory holding the trace (its set), the same however the path was typed
// ("bp4G-t8", "./bp4G-t8", "../set/bp4G-t8/").
std::string trace_set_directory(const Trace& t);
// A trace directory's path as load_trace names it (Trace::dir): "traces/x/" and "traces/x" are one
// trace, "." its directory's own name; the path's last step is the trace's name.
std::string trace_path_as_named(const std::string& dir);
// The server a trace or profile is of, as "product MAJOR.MINOR" ("mariadb 10.3"): what a version's
// features (flushing policies) and a profile's costs belong to.
std::string server_name(const std::string& product, const std::string& version);
std::string server_of(const Trace& t);
// The sysbench mix a trace ran: its test, version and per-statement counts (meta.yaml
// `workload.mix`, as traces/mdev-13845 records oltp.lua's options; sysbench's defaults otherwise).
SysbenchOptions sysbench_options_for(const Trace& t);

}  // namespace poolsim
