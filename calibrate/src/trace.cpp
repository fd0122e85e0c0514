#include "trace.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cctype>
#include <cmath>
#include <cstring>
#include <tuple>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

#include "core/errors.h"
#include "core/input_file.h"
#include "core/utf8.h"
#include "core/units.h"  // format_quantity
#include "scenario/scenario.h"  // parse_yaml, is_server_version
#include "scenario/schema.h"

namespace poolsim {

namespace fs = std::filesystem;
using namespace schema;

namespace {

// The tab-separated fields of one line (perf_sched_*.tsv).
std::vector<std::string> tab_fields(const std::string& line) {
  std::vector<std::string> f;
  std::istringstream fields(line);
  for (std::string cell; std::getline(fields, cell, '\t');) f.push_back(cell);
  return f;
}

// A trace's text file, read as every other input is: within the input bound (a trace file that is a
// link to /dev/zero, or a capture gone wrong, would be read until memory ran out) and UTF-8 (a name or
// line from it reaches the JSON outputs and the messages).
std::string slurp(const std::string& path) {
  std::string text = read_input_text(path, {path, 0, 0}, "");
  require_utf8(text, path);
  return text;
}

const Spec& meta_schema() {
  static const SpecPtr spec = map({
      {"engine", required(map({{"product", required(one_of({"mariadb", "mysql", "greatsql", "percona"}))},
                               {"version", required(string())}}, "", true))},
      {"workload", required(map({{"tool", with_default(one_of({"sysbench"}), "sysbench")},
                                 {"version", with_default(string(), "1.0.20")},
                                 {"test", with_default(string(), "oltp_read_write")},
                                 {"tables", required(integer(1.0, kMaxSysbenchTables))},
                                 {"table_size", required(integer(1.0, 4e9))},
                                 {"rand_type", with_default(one_of({"uniform", "special", "gaussian", "pareto", "zipfian"}), "special")},
                                 {"range_size", with_default(integer(1.0, 1e6), "100")},
                                 {"threads", required(integer(1.0, kMaxClientThreads))},
                                 {"duration_s", integer(1.0, 1e7)},
                                 {"rate", with_default(real(0.0, 1e9), "0")},
                                 {"skip_trx", with_default(boolean(), "false")},
                                 // sysbench 0.5 oltp.lua's options (traces/mdev-13845): read as the mix the log ran.
                                 {"read_only", boolean()},
                                 {"mix", map({{"point_selects", integer(0.0, 1e6)}, {"simple_ranges", integer(0.0, 1e6)},
                                              {"sum_ranges", integer(0.0, 1e6)}, {"order_ranges", integer(0.0, 1e6)},
                                              {"distinct_ranges", integer(0.0, 1e6)}, {"index_updates", integer(0.0, 1e6)},
                                              {"non_index_updates", integer(0.0, 1e6)}, {"delete_inserts", integer(0.0, 1e6)}})}},
                             "", true))},
      {"server", required(map({{"buffer_pool", required(whole_bytes(quantity(Dimension::Bytes, 0.0, std::nullopt, "", true)))},
                               {"flush_log_at_trx_commit", with_default(integer(0.0, 2.0), "1")},
                               {"doublewrite", with_default(boolean(), "true")},
                               {"binlog", with_default(boolean(), "false")},
                               {"sync_binlog", with_default(integer(0.0, 1e9), "0")},
                               // InnoDB's minimum is 100 for both (as the scenario takes them): a lower figure
                               // was blamed on the scenario generated for the trace.
                               {"io_capacity", with_default(integer(100.0, 1e9), "200")},
                               {"io_capacity_max", integer(100.0, 1e9)},
                               {"log_file_size", whole_bytes(quantity(Dimension::Bytes, 0.0, std::nullopt))},
                               // innodb_flush_method's Unix values: O_DIRECT and O_DIRECT_NO_FSYNC bypass the OS page cache
                               // for the data files, fsync and O_DSYNC read and write them through it (a typo would be
                               // read as O_DIRECT, the default, and change the prediction silently)
                               {"flush_method", with_default(one_of({"O_DIRECT", "O_DIRECT_NO_FSYNC", "fsync", "O_DSYNC"}), "O_DIRECT")}}, "", true))},
      {"host", required(map({{"cores", required(integer(1.0, kMaxCoresPerNode))}, {"memory", whole_bytes(quantity(Dimension::Bytes, 0.0, std::nullopt))}}, "", true))},
      {"storage", required(map({{"kind", required(one_of({"nvme", "sata", "pcie-flash", "tmpfs", "virtual-disk", "nvmeof"}))},
                                {"device", string()}, {"fs", string()},
                                {"queues", integer(1.0, 1e5)},            // the device's request queues (/sys/block/DEV/mq)
                                // an md RAID0 of local devices, passed to the scenario (storage.devices, storage.stripe)
                                {"devices", integer(1.0, 64.0)},
                                {"stripe", whole_bytes(quantity(Dimension::Bytes, 4096.0, std::nullopt))},
                                {"completion_cpus", integer(1.0, 1e5)}},  // CPUs that took its interrupts (/proc/interrupts)
                               "", true))},
  }, "trace meta.yaml", true);
  return *spec;
}

double number(const std::string& text, const std::string& file, int line) {
  try {
    size_t used = 0;
    double v = std::stod(text, &used);
    return v;
  } catch (const std::exception&) {
    throw InputError({file, line, 0}, "", "expected a number, got '" + text + "'");
  }
}

// The interval lines are the same run as the summary: their times rise, stay within the run, and the
// transactions they count (each line's rate x the report interval, the spacing of the lines) are at
// most the summary's (the summary also counts the tail after the last line). A log whose lines fail
// this was edited or mangled, and its lines would give the trace a wrong TPS interval (an interval
// rate of 1e8 made it +-6e6 %). The first line's span is the spacing too: a log may start anywhere.
void check_intervals_against_summary(const SysbenchResult& r, const std::string& file, double tolerance) {
  const auto& lines = r.intervals;
  if (lines.size() < 2) return;  // one line: the report interval is not known
  const double report_s = lines[1].t_s - lines[0].t_s;
  double counted = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    const double span_s = i == 0 ? std::max(report_s, 0.0) : lines[i].t_s - lines[i - 1].t_s;
    if (i > 0 && !(span_s > 0))
      throw InputError({file, lines[i].line, 0}, "interval", "an interval line at " + format_quantity(lines[i].t_s, Dimension::Seconds) + " after one at " +
                                                                 format_quantity(lines[i - 1].t_s, Dimension::Seconds) + ": the times must rise");
    if (r.total_time_s > 0 && lines[i].t_s > r.total_time_s * (1 + tolerance))
      throw InputError({file, lines[i].line, 0}, "interval", "an interval line at " + format_quantity(lines[i].t_s, Dimension::Seconds) +
                                                                 ", after the run's total time of " + format_quantity(r.total_time_s, Dimension::Seconds));
    counted += lines[i].tps * span_s;
    if (counted > static_cast<double>(r.transactions) * (1 + tolerance))
      throw InputError({file, lines[i].line, 0}, "interval", "the interval lines up to here count " + std::to_string(std::llround(counted)) +
                                                                 " transactions, more than the run's " + std::to_string(r.transactions));
  }
  // Nor far fewer: over the time they span the lines count what the summary's rate gives there (0.99
  // to 1.04 of it in every committed log); under half of it, their rates are not this run's (every
  // line's tps divided by 1,000 made the trace's TPS interval +-0.0 %).
  constexpr double kFewestCountedShare = 0.5;
  const double spanned_s = lines.back().t_s;
  if (r.tps > 0 && counted < kFewestCountedShare * r.tps * spanned_s)
    throw InputError({file, lines.back().line, 0}, "interval",
                     "the interval lines count " + std::to_string(std::llround(counted)) + " transactions over their " +
                         format_quantity(spanned_s, Dimension::Seconds) + ", under half of the " + std::to_string(std::llround(r.tps * spanned_s)) +
                         " the run's rate (" + format_significant(r.tps) + " per second) gives: they are not this run's");
}

// The line and column (from 1) of byte `at` of a text.
std::pair<int, int> line_column(const std::string& text, std::size_t at) {
  at = std::min(at, text.size());
  const std::size_t line_start = at == 0 ? std::string::npos : text.rfind('\n', at - 1);
  const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
  return {line, static_cast<int>(at - (line_start == std::string::npos ? 0 : line_start + 1)) + 1};
}

// Walks a JSON text's tokens outside strings: `on_string(start, end)` for each string (end past its
// closing quote), `on_other(start, end)` for each run of other non-space characters but , : [ ] { }.
// Stops when one returns true and gives that token's start (the text's size when none did).
template <typename OnString, typename OnOther>
std::size_t scan_json(const std::string& text, OnString on_string, OnOther on_other) {
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '"') {
      std::size_t j = i + 1;
      while (j < text.size() && text[j] != '"') j += text[j] == '\\' ? 2 : 1;
      j = std::min(j + 1, text.size());
      if (on_string(i, j)) return i;
      i = j;
    } else if (std::isspace(static_cast<unsigned char>(c)) || std::strchr(",:[]{}", c)) {
      ++i;
    } else {
      std::size_t j = i;
      while (j < text.size() && text[j] != '"' && !std::isspace(static_cast<unsigned char>(text[j])) && !std::strchr(",:[]{}", text[j])) ++j;
      if (on_other(i, j)) return i;
      i = j;
    }
  }
  return text.size();
}

// The byte where the n-th (from 0) object key of a JSON text starts, in document order (the order a
// parser callback sees them): a key is a string followed by a colon.
std::size_t json_key_offset(const std::string& text, std::size_t n) {
  return scan_json(
      text,
      [&](std::size_t, std::size_t end) {
        const std::size_t next = text.find_first_not_of(" \t\r\n", end);
        return next != std::string::npos && text[next] == ':' && n-- == 0;
      },
      [](std::size_t, std::size_t) { return false; });
}

// The byte where the first number too large for a double starts (the text's size when none is).
std::size_t json_overflowing_number_offset(const std::string& text) {
  return scan_json(
      text, [](std::size_t, std::size_t) { return false; },
      [&](std::size_t start, std::size_t end) { return std::isinf(std::strtod(text.substr(start, end - start).c_str(), nullptr)); });
}

// A format_quantity-like figure for a count per transaction ("14", "4.02").
std::string per_txn_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// The two SHOW STATUS snapshots are one server's, before and after the run: a counter in one must be
// a number in the other (every committed pair names the same counters), and the run must show in
// them (two copies of one snapshot made every measured figure 0 per transaction).
void check_status_snapshots(const Trace& t, const std::map<std::string, int>& before_lines,
                            const std::map<std::string, int>& after_lines, const std::string& log) {
  if (t.status_before.empty() || t.status_after.empty()) return;
  const std::string before_file = (fs::path(t.dir) / "status_before.tsv").string(), after_file = (fs::path(t.dir) / "status_after.tsv").string();
  for (const auto& [values, other, other_lines, file, other_file] :
       {std::tuple<const std::map<std::string, double>&, const std::map<std::string, double>&, const std::map<std::string, int>&,
                   const std::string&, const std::string&>{t.status_before, t.status_after, after_lines, before_file, after_file},
        {t.status_after, t.status_before, before_lines, after_file, before_file}}) {
    for (const auto& [name, value] : values) {
      if (other.count(name)) continue;
      const auto at = other_lines.find(name);
      const int line = (file == before_file ? before_lines : after_lines).at(name);
      if (at != other_lines.end())
        throw InputError({other_file, at->second, 0}, name, "not a number here, but a counter in " + fs::path(file).filename().string() + ":" +
                                                                std::to_string(line));
      throw InputError({file, line, 0}, name, "the counter is missing from " + fs::path(other_file).filename().string() +
                                                  ": the snapshots are not one server's");
    }
  }
  // Every sysbench statement reads its rows through the buffer pool (the committed traces: 98 to 1,089
  // page requests per transaction), so the run makes at least one request per transaction.
  const std::string requests = "Innodb_buffer_pool_read_requests";
  if (auto per_txn = t.per_txn(requests); per_txn && *per_txn < 1)
    throw InputError({after_file, after_lines.at(requests), 0}, requests,
                     per_txn_text(*per_txn) + " buffer pool page requests per transaction over the " + std::to_string(t.sysbench.transactions) +
                         " transactions of " + log + ": the snapshots do not span the run (a copy of one snapshot?)");
}

// meta.yaml describes the run sysbench.log recorded: the log's own figures must be that run's, or
// validate would simulate another workload and compare it with this one's (a read-only meta with
// a read-write log moved the prediction by 46 %).
void check_log_against_meta(const Trace& t, const YAML::Node& meta, const std::string& meta_file, const std::string& log) {
  const SysbenchResult& r = t.sysbench;
  const YAML::Node w = meta["workload"];
  const Origin origin{meta_file, {}};
  // Interval lines count the run's threads; the last ones may count fewer (threads that finished
  // their --time first report no more: traces/local-vm/tmpfs-bp3G-t16 ends on 15, a run whose last
  // transactions wait seconds shows several such lines), falling, and none counts more.
  const int threads = t.meta["workload"]["threads"].as<int>();
  size_t tail = r.intervals.size();  // where the lines with fewer threads begin
  while (tail > 0 && r.intervals[tail - 1].threads < threads &&
         (tail == r.intervals.size() || r.intervals[tail - 1].threads >= r.intervals[tail].threads))
    --tail;
  tail = std::max<size_t>(tail, 1);  // the run starts with all its threads: a log all of fewer is another run's
  for (size_t i = 0; i < r.intervals.size(); ++i) {
    const int seen = r.intervals[i].threads;
    if (seen > threads || (seen != threads && i < tail))
      throw InputError({log, r.intervals[i].line, 0}, "thds",
                       "an interval line with " + std::to_string(seen) + " threads, but the run had " + std::to_string(threads) +
                           " (meta.yaml workload.threads" + (r.threads_line ? ", line " + std::to_string(r.threads_line) : std::string()) + ")");
  }
  // With --rate sysbench starts transactions as a Poisson process of that rate: more than it
  // could start (5 standard deviations above the expected count) is another run's log.
  const double rate = t.meta["workload"]["rate"].as<double>();
  if (rate > 0 && r.total_time_s > 0) {
    const double expected = rate * r.total_time_s, most = expected + 5 * std::sqrt(expected) + 1;
    if (static_cast<double>(r.transactions) > most)
      throw InputError(origin.locate("workload.rate", w ? w["rate"] : YAML::Node()), "workload.rate",
                       "a rate of " + per_txn_text(rate) + "/s starts about " + std::to_string(std::llround(expected)) + " transactions in " +
                           format_quantity(r.total_time_s, Dimension::Seconds) + ", but " + log + ":" + std::to_string(r.transactions_line) +
                           " counts " + std::to_string(r.transactions));
  }
  // The statements per transaction the log counts are the mix meta.yaml names (test, read_only,
  // mix). Errors retried count their statements again; every committed log is within 0.004 % of its
  // mix, 1 % leaves room for a run with more errors and still tells one mix from another.
  if (r.read_line == 0 && r.write_line == 0 && r.other_line == 0) return;
  const SysbenchMix mix(sysbench_options_for(t));
  const double transactions = static_cast<double>(r.transactions);
  for (const auto& [kind, counted, expected, line] :
       {std::tuple<const char*, double, int, int>{"reads", r.read_queries, mix.reads(), r.read_line},
        {"writes", r.write_queries, mix.writes(), r.write_line},
        {"other statements", r.other_queries, mix.others(), r.other_line}}) {
    if (line == 0) continue;
    const double per_txn = counted / transactions;
    // A transaction that met an ignorable error (a deadlock) is run again whole, and the statements it
    // had run are counted again (sysbench 1.0's event loop): up to its whole mix once more per error.
    const double retried = static_cast<double>(r.ignored_errors) / transactions;
    const double slack = 0.01 * std::max(expected, 1);
    if (per_txn >= expected - slack && per_txn <= expected + slack + retried * std::max(expected, 1)) continue;
    // The key that decides this count: read_only the writes of 0.5's oltp.lua, the mix the statements.
    const bool writes = std::string(kind) == "writes";
    const bool others = std::string(kind) == "other statements";
    const char* key = writes && w && w["read_only"] ? "workload.read_only"
                      : others                      ? "workload.skip_trx"
                      : w && w["mix"] && expected > 0 ? "workload.mix"
                                                      : "workload.test";
    const std::string leaf = std::string(key).substr(9);
    throw InputError(origin.locate(key, w ? w[leaf] : YAML::Node()), key,
                     "test " + t.meta["workload"]["test"].Scalar() + (w && w["read_only"] ? std::string(" (read_only ") + w["read_only"].Scalar() + ")" : "") +
                         (w && w["mix"] ? " with workload.mix" : " with sysbench's default mix") + " runs " + std::to_string(expected) + " " + kind +
                         " per transaction, but " + log + ":" + std::to_string(line) + " counts " + per_txn_text(per_txn) +
                         ": the log is another workload's, or meta.yaml misdescribes it");
  }
}

// No line sysbench, iostat or perf writes is this long; std::regex recurses once per character and a
// line of some ten thousand characters overflowed the stack (a segfault instead of an error).
constexpr size_t kMaxTraceLineChars = 4096;
void refuse_long_line(const std::string& line, const std::string& file, int line_no) {
  if (line.size() > kMaxTraceLineChars)
    throw InputError({file, line_no, 0}, "", "a line of " + std::to_string(line.size()) + " characters, more than the " +
                                                 std::to_string(kMaxTraceLineChars) + " any line of this file has: the file is damaged");
}

}  // namespace

SysbenchResult parse_sysbench_log(const std::string& text, const std::string& file) {
  SysbenchResult r;
  std::istringstream in(text);
  std::string line;
  int n = 0;
  bool saw_transactions = false, saw_avg = false, saw_p95 = false;
  const std::regex interval10(R"(^\[\s*(\d+)s\s*\]\s+thds:\s*(\d+)\s+tps:\s*([\d.]+).*lat \(ms,(\d+)%\):\s*([\d.]+))");
  const std::regex interval05(R"(^\[\s*(\d+)s\]\s+threads:\s*(\d+),\s*tps:\s*([\d.]+).*response time:\s*([\d.]+)ms \((\d+)%\))");
  const std::regex events(R"(^\s*total number of events:\s+(\d+)\s*$)");
  // Older sysbench 0.5 builds (and 0.4) name the same count "deadlocks:".
  const std::regex ignored_errors(R"(^\s*(?:ignored errors|deadlocks):\s+(\d+)\s)");
  const std::regex transactions(R"(^\s*transactions:\s+(\d+)\s+\(([\d.]+) per sec)");
  const std::regex queries(R"(^\s*(queries|read/write requests):\s+(\d+)\s+\(([\d.]+) per sec)");
  const std::regex count(R"(^\s*(read|write|other):\s+(\d+)\s*$)");
  // A latency is milliseconds: sysbench 1.0 under its "Latency (ms):" heading, 0.5 with an "ms" unit;
  // a figure with another unit ("0.065s") is a malformed line, not milliseconds.
  const std::regex latency(R"(^\s*(min|avg|max|approx\.\s+\d+ percentile|\d+th percentile):\s+([\d.]+)(ms)?\s*$)");
  const std::regex total_time(R"(^\s*total time:\s+([\d.]+)s)");
  const std::regex threads(R"(^\s*Number of threads:\s*(\d+))");
  // The lines the parser reads, by their label (an interval line by its tps; with --rate sysbench
  // also writes "[ 5s ] queue length: ..." lines, which carry no figure read here): one of them that
  // the patterns above do not match is malformed.
  const std::regex known_label(R"(^\s*(transactions|queries|read/write requests|read|write|other|min|avg|max|95th percentile|approx\.\s+95 percentile|99th percentile|total time|total number of events):|^(\[\s*\d+s\s*\]).*\btps:)");
  int transactions_line = 0, events_line = 0, avg_line = 0, max_line = 0, p95_line = 0, min_line = 0;
  double latency_min_ms = 0;
  std::uint64_t event_count = 0;
  std::smatch m;
  while (std::getline(in, line)) {
    ++n;
    refuse_long_line(line, file, n);
    if (line.find("sysbench 0.5") != std::string::npos) r.version = "0.5", r.version_seen = true;
    if (line.rfind("sysbench 1.", 0) == 0) r.version = "1.0", r.version_seen = true;
    // An interval line's thread count past an int wrapped negative (its message said -2147483648 threads).
    const auto interval_threads = [&](const std::ssub_match& text) {
      const double threads_seen = number(text, file, n);
      if (!(threads_seen >= 1 && threads_seen <= std::numeric_limits<int>::max()))
        throw InputError({file, n, 0}, "thds", "expected a thread count from 1 to " + std::to_string(std::numeric_limits<int>::max()) + ", got " + text.str());
      return static_cast<int>(threads_seen);
    };
    if (std::regex_search(line, m, interval10)) {
      r.intervals.push_back({number(m[1], file, n), number(m[3], file, n), number(m[5], file, n), n, interval_threads(m[2])});
    } else if (std::regex_search(line, m, interval05)) {
      r.intervals.push_back({number(m[1], file, n), number(m[3], file, n), number(m[4], file, n), n, interval_threads(m[2])});
    } else if (std::regex_search(line, m, transactions)) {
      // One run, one summary: a second is two logs joined, whose figures would mix.
      if (saw_transactions)
        throw InputError({file, n, 0}, "transactions", "a second run summary (the first at line " + std::to_string(transactions_line) +
                                                           "): one log per trace");
      r.transactions = static_cast<std::uint64_t>(number(m[1], file, n));
      r.tps = number(m[2], file, n);
      saw_transactions = true;
      transactions_line = n;
    } else if (std::regex_search(line, m, events)) {
      event_count = static_cast<std::uint64_t>(number(m[1], file, n));
      events_line = n;
    } else if (std::regex_search(line, m, queries)) {
      if (m[1] == "queries") r.qps = number(m[3], file, n);
    } else if (std::regex_search(line, m, count)) {
      double v = number(m[2], file, n);
      (m[1] == "read" ? r.read_queries : m[1] == "write" ? r.write_queries : r.other_queries) = v;
      (m[1] == "read" ? r.read_line : m[1] == "write" ? r.write_line : r.other_line) = n;
    } else if (std::regex_search(line, m, latency)) {
      double v = number(m[2], file, n);
      std::string what = m[1];
      if (what == "min") { latency_min_ms = v; min_line = n; }
      else if (what == "avg") { r.latency_avg_ms = v; saw_avg = true; avg_line = n; }
      else if (what == "max") { r.latency_max_ms = v; max_line = n; }
      else if (what.find("99") != std::string::npos) r.latency_p99_ms = v;
      else if (what.find("percentile") != std::string::npos && what.find("95") == std::string::npos)
        // sysbench --percentile=N prints the Nth alone (it was taken for a truncated log).
        throw InputError({file, n, 0}, what, "the log's latency summary has the " + what + " (sysbench --percentile): poolsim compares "
                                             "the 95th; capture with sysbench's default --percentile=95");
      else if (what.find("95") != std::string::npos) {
        // A run whose transactions took no time has no latency to compare (its error would be infinite).
        if (!(v > 0)) throw InputError({file, n, 0}, what, "a 95th percentile of " + m[2].str() + " ms: a transaction takes some time");
        r.latency_p95_ms = v;
        saw_p95 = true;
        p95_line = n;
      }
    } else if (std::regex_search(line, m, ignored_errors)) {
      r.ignored_errors = static_cast<std::uint64_t>(number(m[1], file, n));
    } else if (std::regex_search(line, m, total_time)) {
      r.total_time_s = number(m[1], file, n);
    } else if (std::regex_search(line, m, threads)) {
      const double threads_given = number(m[1], file, n);
      // Past an int it wrapped to a negative count, which skipped the check against meta.yaml.
      if (!(threads_given >= 1 && threads_given <= std::numeric_limits<int>::max()))
        throw InputError({file, n, 0}, "Number of threads", "expected a thread count from 1 to " +
                                                                std::to_string(std::numeric_limits<int>::max()) + ", got " + m[1].str());
      r.threads = static_cast<int>(threads_given);
      r.threads_line = n;
    } else if (std::regex_search(line, m, known_label)) {
      // A line sysbench writes that did not read as its figures: named here, not as a missing line at the end.
      const std::string label = m[1].matched ? m[1].str() : "interval";
      throw InputError({file, n, 0}, label, "malformed '" + label + "' line: '" + line + "'");
    }
  }
  if (!saw_transactions)
    throw InputError({file, n, 0}, "", "no final 'transactions:' line: the log is truncated or not sysbench output");
  // sysbench prints one percentile, the 95th unless run with --percentile=N: poolsim compares the 95th.
  if (saw_avg && !saw_p95 && r.latency_p99_ms > 0)
    throw InputError({file, n, 0}, "99th percentile",
                     "the log's latency summary has the 99th percentile only (sysbench --percentile=99): poolsim compares the 95th; "
                     "capture with sysbench's default --percentile=95");
  if (!saw_avg || !saw_p95)
    throw InputError({file, n, 0}, "", "no latency summary (avg and 95th percentile): the log is truncated");
  // A run that completed nothing has no throughput to compare or fit (its error would be infinite).
  if (r.transactions == 0 || !(r.tps > 0))
    throw InputError({file, transactions_line, 0}, "transactions", "the run completed no transaction: nothing to compare or fit");
  r.transactions_line = transactions_line;
  // sysbench counts one event per transaction (0.5 and 1.0 alike; every committed log has them
  // equal): two counts that differ are an edited log, and which one is right cannot be told.
  if (events_line > 0 && event_count != r.transactions)
    throw InputError({file, events_line, 0}, "total number of events",
                     std::to_string(event_count) + " events, but line " + std::to_string(transactions_line) + " counts " +
                         std::to_string(r.transactions) + " transactions: sysbench counts one event per transaction");
  // The mean and the percentile lie within the latencies seen. The percentile is sysbench's
  // histogram bucket (1.0: 1024 buckets spaced 1.8 % apart over 1 us - 100 s), which may lie one
  // bucket above the exact max; 2 % of it and the printed last digit allow that.
  constexpr double kBucket = 0.02, kLastDigit = 0.01;
  if (min_line > 0) {
    // Nor below the fastest transaction (a percentile one bucket below it at most).
    if (r.latency_avg_ms + kLastDigit < latency_min_ms)
      throw InputError({file, avg_line, 0}, "avg", "an average latency of " + format_quantity(r.latency_avg_ms * 1e-3, Dimension::Seconds) +
                                                       " below the min of " + format_quantity(latency_min_ms * 1e-3, Dimension::Seconds) +
                                                       " (line " + std::to_string(min_line) + ")");
    if (r.latency_p95_ms * (1 + kBucket) + kLastDigit < latency_min_ms)
      throw InputError({file, p95_line, 0}, "95th percentile", "a 95th percentile of " + format_quantity(r.latency_p95_ms * 1e-3, Dimension::Seconds) +
                                                                    " below the min of " + format_quantity(latency_min_ms * 1e-3, Dimension::Seconds) +
                                                                    " (line " + std::to_string(min_line) + ")");
  }
  if (max_line > 0) {
    if (r.latency_avg_ms > r.latency_max_ms + kLastDigit)
      throw InputError({file, avg_line, 0}, "avg", "an average latency of " + format_quantity(r.latency_avg_ms * 1e-3, Dimension::Seconds) +
                                                       " above the max of " + format_quantity(r.latency_max_ms * 1e-3, Dimension::Seconds) +
                                                       " (line " + std::to_string(max_line) + ")");
    if (r.latency_p95_ms > r.latency_max_ms * (1 + kBucket) + kLastDigit)
      throw InputError({file, p95_line, 0}, "95th percentile", "a 95th percentile of " + format_quantity(r.latency_p95_ms * 1e-3, Dimension::Seconds) +
                                                                    " above the max of " + format_quantity(r.latency_max_ms * 1e-3, Dimension::Seconds) +
                                                                    " (line " + std::to_string(max_line) + ")");
  }
  // The rate sysbench prints is the count over the total time: a log where they disagree was edited
  // or mangled, and which of the two is right cannot be told. 1 % (or the last printed digit) covers
  // the rounding of both (every committed trace agrees within 0.01 %).
  constexpr double kRateTolerance = 0.01, kPrintedDigit = 0.01;
  if (r.total_time_s > 0) {
    const double rate = static_cast<double>(r.transactions) / r.total_time_s;
    if (std::abs(rate - r.tps) > std::max(kRateTolerance * r.tps, kPrintedDigit))
      throw InputError({file, transactions_line, 0}, "transactions",
                       std::to_string(r.transactions) + " transactions over the total time of " + std::to_string(r.total_time_s) +
                           " s make " + std::to_string(rate) + " per second, but the log says " + std::to_string(r.tps));
  } else if (r.total_time_s == 0 && text.find("total time:") != std::string::npos) {
    throw InputError({file, n, 0}, "total time", "the total time is 0 s for " + std::to_string(r.transactions) + " transactions");
  }
  check_intervals_against_summary(r, file, kRateTolerance);
  if (r.qps == 0 && r.total_time_s > 0) r.qps = (r.read_queries + r.write_queries + r.other_queries) / r.total_time_s;
  if (r.version.empty()) r.version = "1.0";
  return r;
}

std::map<std::string, double> parse_status_tsv(const std::string& text, const std::string& file, bool counters,
                                               std::map<std::string, int>* lines, std::map<std::string, std::string>* texts) {
  // The SHOW STATUS values MariaDB and MySQL print with decimals (times and costs); every other
  // number there is a count, printed whole ("587565.7" or "5.9e5" is an edited figure).
  static const std::set<std::string> kFractionalStatus{"Busy_time", "Cpu_time", "Last_query_cost", "Query_time", "Slave_heartbeat_period"};
  std::map<std::string, double> values;
  std::map<std::string, int> first_line;  // a name twice is two snapshots mixed: which one would be read?
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (!line.empty() && line.back() == '\r') line.pop_back();  // CRLF, its blank lines included
    if (line.empty()) continue;
    auto tab = line.find('\t');
    if (tab == std::string::npos) throw InputError({file, n, 0}, "", "expected 'name<TAB>value'");
    std::string name = line.substr(0, tab), value = line.substr(tab + 1);
    if (auto [seen, inserted] = first_line.emplace(name, n); !inserted)
      throw InputError({file, n, 1}, name, "appears twice (first at line " + std::to_string(seen->second) + ")");
    if (lines) (*lines)[name] = n;
    while (!value.empty() && (value.back() == '\r' || value.back() == ' ')) value.pop_back();
    if (texts) (*texts)[name] = value;
    // Text values (ON, a dump's status line; in variables.tsv also versions and paths) are skipped. In
    // SHOW STATUS (`counters`) NaN or a count beyond 64 bits would be read as a wrong figure, and an
    // InnoDB value (every status poolsim reads is one) that starts as a number must be one ("12abc").
    // Other statuses may be text that starts like a number: MySQL 8.0's Rsa_public_key
    // ("-----BEGIN PUBLIC KEY-----\n..."), Mysqlx_address ("127.0.0.1"); check_status_snapshots still
    // refuses one that is a number in the other snapshot.
    const bool numeric_start = !value.empty() && (std::isdigit(static_cast<unsigned char>(value[0])) || value[0] == '-' || value[0] == '+' || value[0] == '.');
    const bool non_finite_word = value == "nan" || value == "NaN" || value == "NAN" || value == "inf" || value == "-inf" || value == "Infinity";
    char* end = nullptr;
    double v = std::strtod(value.c_str(), &end);
    // strtod also reads hexadecimal ("0x10" as 16), which SHOW STATUS never prints: not a whole number here.
    const bool hexadecimal = value.find_first_of("xX") != std::string::npos;
    const bool whole = end != value.c_str() && *end == '\0' && !hexadecimal;
    // SHOW STATUS counters are unsigned 64-bit at most; a double cannot tell 2^64 - 1 from 2^64, so a
    // value written as an integer is checked as one.
    bool beyond_64_bits = std::abs(v) >= 18446744073709551616.0;
    if (whole && value.find_first_not_of("0123456789") == std::string::npos) {
      errno = 0;
      std::strtoull(value.c_str(), nullptr, 10);
      beyond_64_bits = errno == ERANGE;
    }
    const bool innodb = name.rfind("Innodb_", 0) == 0;
    if (non_finite_word || (counters && numeric_start && (whole ? !std::isfinite(v) || beyond_64_bits : innodb)))
      throw InputError({file, n, static_cast<int>(tab) + 2}, name, "value '" + value + "' is not a number a counter can hold");
    if (counters && whole && !kFractionalStatus.count(name) && value.find_first_not_of("0123456789", value[0] == '-' ? 1 : 0) != std::string::npos)
      throw InputError({file, n, static_cast<int>(tab) + 2}, name, "value '" + value + "' is not a whole number: SHOW STATUS prints counters whole");
    // InnoDB's counters are unsigned: a negative one is an edited or corrupted figure, which the
    // difference of two snapshots would turn into a wrong rate.
    if (counters && innodb && whole && v < 0)
      throw InputError({file, n, static_cast<int>(tab) + 2}, name, "value '" + value + "' is negative: InnoDB's status counters are unsigned");
    if (whole) values[name] = v;
  }
  return values;
}

std::map<std::string, DiskStats> parse_diskstats(const std::string& text, const std::string& file) {
  std::map<std::string, DiskStats> out;
  std::map<std::string, int> first_line;  // a device twice is two snapshots mixed: which one would be read?
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    std::istringstream f(line);
    std::vector<std::string> fields;
    for (std::string w; f >> w;) fields.push_back(w);
    if (fields.empty()) continue;
    // major minor name, then 11 (old kernels), 15 (4.18+: discards) or 17 (5.5+: flushes) counters.
    const size_t counters = fields.size() < 3 ? 0 : fields.size() - 3;
    if (counters != 11 && counters != 15 && counters != 17)
      throw InputError({file, n, 0}, "", "expected 'major minor name' and 11, 15 or 17 counters, found " +
                                            std::to_string(fields.size()) + " fields (a truncated /proc/diskstats?)");
    std::vector<std::uint64_t> v;
    for (size_t i = 3; i < fields.size(); ++i) {
      char* end = nullptr;
      errno = 0;
      unsigned long long x = std::strtoull(fields[i].c_str(), &end, 10);
      // strtoull takes "-5" as 2^64 - 5: the kernel prints unsigned counters, digits only.
      if (end == fields[i].c_str() || *end != '\0' || errno != 0 || !std::isdigit(static_cast<unsigned char>(fields[i][0])))
        throw InputError({file, n, 0}, "", "counter " + std::to_string(i - 2) + " of " + fields[2] + " is not a number: '" + fields[i] + "'");
      v.push_back(x);
    }
    if (auto [seen, inserted] = first_line.emplace(fields[2], n); !inserted)
      throw InputError({file, n, 0}, fields[2], "device '" + fields[2] + "' appears twice (first at line " + std::to_string(seen->second) + ")");
    DiskStats d;
    d.reads = v[0];
    d.read_sectors = v[2];
    d.read_ms = v[3];
    d.writes = v[4];
    d.write_sectors = v[6];
    d.write_ms = v[7];
    d.io_ms = v[9];
    d.weighted_ms = v[10];
    if (counters == 17) {
      d.flushes = v[15];
      d.flush_ms = v[16];
    }
    out[fields[2]] = d;
  }
  return out;
}

IostatLog parse_iostat(const std::string& text, const std::string& file) {
  IostatLog log;
  std::istringstream in(text);
  std::string line;
  int n = 0;
  const std::regex header(R"(\((\d+) CPU\))");
  const std::regex timestamp(R"(^\s*[\d/.-]+\s+[\d:]+(\s*[AP]M)?\s*$)");  // `iostat -t`
  std::vector<std::string> cpu_columns, device_columns;
  enum class Expect { Header, Anything, CpuValues, Devices } expect = Expect::Header;
  auto fields = [](const std::string& l) {
    std::istringstream f(l);
    std::vector<std::string> out;
    for (std::string w; f >> w;) out.push_back(w);
    return out;
  };
  auto value = [&](const std::string& w, const std::string& column) {
    char* end = nullptr;
    double v = std::strtod(w.c_str(), &end);
    // strtod also reads "nan" and "inf": a NaN %user dropped the trace from the fit without a word.
    if (end == w.c_str() || *end != '\0' || !std::isfinite(v) || v < 0)
      throw InputError({file, n, 0}, "", "column '" + column + "': expected a number, got '" + w + "'");
    return v;
  };
  while (std::getline(in, line)) {
    ++n;
    refuse_long_line(line, file, n);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    auto w = fields(line);
    if (expect == Expect::Header) {
      if (w.empty()) continue;
      std::smatch m;
      if (!std::regex_search(line, m, header))
        throw InputError({file, n, 0}, "", "expected iostat's header line naming the CPUs, e.g. 'Linux ... (32 CPU)'");
      // A count stoi cannot hold ("stoi", no file) or none at all: the header is damaged.
      constexpr std::ptrdiff_t kMaxCpuDigits = 7;
      log.cpus = m[1].length() > kMaxCpuDigits ? 0 : std::stoi(m[1]);
      if (log.cpus < 1) throw InputError({file, n, 0}, "", "iostat's header names " + m[1].str() + " CPUs: expected a count from 1 up");
      expect = Expect::Anything;
      continue;
    }
    if (expect == Expect::CpuValues) {
      if (w.empty()) continue;
      if (w.size() != cpu_columns.size())
        throw InputError({file, n, 0}, "", "avg-cpu values: " + std::to_string(w.size()) + " fields, the header has " +
                                               std::to_string(cpu_columns.size()));
      auto& r = log.reports.back();
      double total_pct = 0;
      for (size_t i = 0; i < w.size(); ++i) {
        double v = value(w[i], cpu_columns[i]);
        const std::string& c = cpu_columns[i];
        (c == "%user" ? r.user_pct : c == "%nice" ? r.nice_pct : c == "%system" ? r.system_pct
         : c == "%iowait" ? r.iowait_pct : c == "%steal" ? r.steal_pct : r.idle_pct) = v;
        total_pct += v;
      }
      // The shares split the CPUs' time: they add up to 100 % (99.99-100.01 in every committed
      // report, two decimals each); a %user tripled was fitted as 30 times the CPU per IO.
      constexpr double kWholePct = 100, kRoundingPct = 0.5;
      if (std::abs(total_pct - kWholePct) > kRoundingPct)
        throw InputError({file, n, 0}, "avg-cpu", "the CPU shares add up to " + format_significant(total_pct, 5) +
                                                      " %, not 100 %: edited or not iostat's");
      expect = Expect::Anything;
      continue;
    }
    if (w.empty()) {
      if (expect == Expect::Devices) expect = Expect::Anything;
      continue;
    }
    if (w[0] == "avg-cpu:") {
      cpu_columns.assign(w.begin() + 1, w.end());
      for (const char* need : {"%user", "%system", "%idle"})
        if (std::find(cpu_columns.begin(), cpu_columns.end(), need) == cpu_columns.end())
          throw InputError({file, n, 0}, "", std::string("avg-cpu header without ") + need);
      log.reports.push_back({});
      log.reports.back().line = n;
      expect = Expect::CpuValues;
      continue;
    }
    if (w[0] == "Device:" || w[0] == "Device") {
      if (log.reports.empty()) throw InputError({file, n, 0}, "", "device block before the first avg-cpu block");
      device_columns.assign(w.begin() + 1, w.end());
      expect = Expect::Devices;
      continue;
    }
    if (expect == Expect::Devices) {
      if (w.size() != device_columns.size() + 1)
        throw InputError({file, n, 0}, "", "device '" + w[0] + "': " + std::to_string(w.size() - 1) +
                                               " values, the header has " + std::to_string(device_columns.size()));
      // One line per device in a report: a second would replace the first's figures.
      if (log.reports.back().devices.count(w[0]))
        throw InputError({file, n, 0}, w[0], "device '" + w[0] + "' appears twice in this report (the report starts at line " +
                                                 std::to_string(log.reports.back().line) + ")");
      auto& d = log.reports.back().devices[w[0]];
      for (size_t i = 1; i < w.size(); ++i) d[device_columns[i - 1]] = value(w[i], device_columns[i - 1]);
      continue;
    }
    if (std::regex_match(line, timestamp)) continue;
    throw InputError({file, n, 0}, "", "unexpected line: '" + line + "'");
  }
  if (expect == Expect::Header) throw InputError({file, n, 0}, "", "empty: no iostat header");
  if (expect == Expect::CpuValues) throw InputError({file, n, 0}, "", "truncated: an avg-cpu header without its values");
  if (log.reports.size() < 2)
    throw InputError({file, n, 0}, "", "only the since-boot report: no report covers the run (iostat needs an interval and a count)");
  // run_mean averages each device over every report: one a report lacks (a file cut short in its
  // last device table) would be averaged low.
  for (size_t i = 2; i < log.reports.size(); ++i)
    for (const auto& [device, columns] : log.reports[1].devices)
      if (!log.reports[i].devices.count(device))
        throw InputError({file, log.reports[i].line, 0}, "",
                         "this report has no line for device '" + device + "', which the first report of the run has (line " +
                             std::to_string(log.reports[1].line) + "): truncated, or edited");
  return log;
}

IostatReport IostatLog::run_mean() const {
  IostatReport mean;
  if (reports.size() < 2) return mean;
  const double k = static_cast<double>(reports.size() - 1);
  mean.line = reports[1].line;
  for (size_t i = 1; i < reports.size(); ++i) {
    const auto& r = reports[i];
    mean.user_pct += r.user_pct / k;
    mean.nice_pct += r.nice_pct / k;
    mean.system_pct += r.system_pct / k;
    mean.iowait_pct += r.iowait_pct / k;
    mean.steal_pct += r.steal_pct / k;
    mean.idle_pct += r.idle_pct / k;
    for (const auto& [dev, columns] : r.devices)
      for (const auto& [c, v] : columns) mean.devices[dev][c] += v / k;
  }
  return mean;
}

FioResult parse_fio_json(const std::string& raw_text, const std::string& file) {
  // fio writes its notes ("note: both iodepth >= 1 and synchronous I/O engine are selected...") into
  // the --output file ahead of the JSON: blanked (line breaks kept, so positions stay the file's).
  std::string text = raw_text;
  if (const size_t first = text.find_first_not_of(" \t\r\n"); first != std::string::npos && text[first] != '{') {
    const size_t json_start = text.find("\n{");
    if (json_start != std::string::npos)
      for (size_t i = 0; i < json_start; ++i)
        if (text[i] != '\n' && text[i] != '\r') text[i] = ' ';
  }
  nlohmann::json doc;
  // The keys of the objects being read, innermost last: JSON allows a key twice, nlohmann keeps the
  // last value, and the other (a second "mean", "iops") would be dropped without a word.
  // The option objects are the exception: fio writes each option as given, so `--bs=4k --bs=16k`
  // gives "bs" twice, and the last is the one fio ran with (the value nlohmann keeps).
  struct OpenObject {
    std::set<std::string> keys;
    bool options = false;
  };
  std::vector<OpenObject> open_objects;
  std::size_t keys_read = 0;
  std::string last_key;
  const nlohmann::json::parser_callback_t no_key_twice = [&](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using E = nlohmann::json::parse_event_t;
    if (event == E::object_start) open_objects.push_back({{}, last_key == "job options" || last_key == "global options"});
    if (event == E::object_end && !open_objects.empty()) open_objects.pop_back();
    if (event == E::key) {
      ++keys_read;
      last_key = parsed.get<std::string>();
      if (!open_objects.empty() && !open_objects.back().options && !open_objects.back().keys.insert(last_key).second) {
        const auto [line, column] = line_column(text, json_key_offset(text, keys_read - 1));
        throw InputError({file, line, column}, parsed.get<std::string>(),
                         "key '" + parsed.get<std::string>() + "' appears twice in one object: which value is fio's cannot be told");
      }
    }
    return true;
  };
  try {
    doc = nlohmann::json::parse(text, no_key_twice);
  } catch (const nlohmann::json::parse_error& e) {
    // Where the JSON breaks (a truncated capture ends early): the byte's line and column.
    const auto [line, column] = line_column(text, e.byte > 0 ? e.byte - 1 : 0);
    throw InputError({file, line, column}, "", text.find_first_not_of(" \t\r\n") == std::string::npos
                                                   ? "not fio JSON output (empty)"
                                                   : "not fio JSON output (the JSON breaks here: truncated, or not JSON)");
  } catch (const nlohmann::json::exception& e) {
    // A number too large for a double (1e999): nlohmann names no position, the scan finds it.
    const auto [line, column] = line_column(text, json_overflowing_number_offset(text));
    throw InputError({file, line, column}, "", std::string("not fio JSON output (") + e.what() + ")");
  }
  if (!doc.is_object() || !doc.contains("jobs") || !doc["jobs"].is_array() || doc["jobs"].empty())
    throw InputError({file, 0, 0}, "", "not fio JSON output (no 'jobs')");
  const auto& job = doc["jobs"][0];
  if (!job.is_object()) throw InputError({file, 0, 0}, "jobs[0]", "not fio JSON output (a job is not an object)");
  // fio reports a job that failed (a device it could not open, an IO error) with its errno; its
  // figures are not the device's.
  if (job.contains("error") && !(job["error"].is_number_integer() && job["error"].get<long long>() == 0))
    throw InputError({file, 0, 0}, "jobs[0].error", "the job failed (fio's error " + job["error"].dump() + "): its figures are not the device's");
  FioResult r;
  r.file = file;
  const auto& options = job.contains("job options") ? job["job options"] : nlohmann::json::object();
  auto opt = [&](const char* key, const std::string& fallback) {
    const nlohmann::json* v = nullptr;
    if (options.is_object() && options.contains(key)) v = &options[key];
    else if (doc.contains("global options") && doc["global options"].is_object() && doc["global options"].contains(key))
      v = &doc["global options"][key];
    if (!v) return fallback;
    if (!v->is_string()) throw InputError({file, 0, 0}, std::string("job options.") + key, "expected a string");
    return v->get<std::string>();
  };
  // A figure the device model is built from: a finite number, and positive where it must be (a
  // zero or negative latency or rate would be fitted into a device that does not exist).
  auto figure = [&](const nlohmann::json& node, const std::string& path, bool positive) {
    if (!node.is_number() || !std::isfinite(node.get<double>()) || (positive ? node.get<double>() <= 0 : node.get<double>() < 0))
      throw InputError({file, 0, 0}, path, std::string("expected a ") + (positive ? "positive" : "non-negative") + " number, got " + node.dump());
    return node.get<double>();
  };
  r.rw = opt("rw", "randread");
  static const std::set<std::string> kFioPatterns = {"read", "write", "randread", "randwrite", "rw", "readwrite", "randrw", "trim", "randtrim", "trimwrite"};
  if (!kFioPatterns.count(r.rw)) throw InputError({file, 0, 0}, "job options.rw", "'" + r.rw + "' is not an fio IO pattern (randread, randwrite, randrw, ...)");
  const std::string iodepth = opt("iodepth", "1");
  std::string bs = opt("bs", "4k");
  try {
    std::size_t used = 0;
    r.iodepth = std::stoi(iodepth, &used);
    if (used != iodepth.size() || r.iodepth < 1) throw std::invalid_argument(iodepth);
  } catch (const std::logic_error&) {
    throw InputError({file, 0, 0}, "job options.iodepth", "expected a queue depth of at least 1, got '" + iodepth + "'");
  }
  // fio's sizes: a whole number, a power-of-1024 suffix (k, m, g, t; "KiB", "kb" alike with the
  // default kb_base), no range or read,write split (one block size is what the fit reads).
  static const std::regex kFioSize(R"(([0-9]+)\s*([kKmMgGtT]?)(?:i?[bB])?)");
  std::smatch size;
  if (std::regex_match(bs, size, kFioSize)) {
    const std::string unit = size[2].str();
    const double scale = unit.empty() ? 1 : std::pow(1024.0, std::string("kmgt").find(static_cast<char>(std::tolower(static_cast<unsigned char>(unit[0])))) + 1);
    r.block_bytes = std::stod(size[1].str()) * scale;
  }
  constexpr double kMaxFioBlockBytes = 1ull << 30;  // fio's own limit on bs is far below this
  if (!(r.block_bytes > 0 && r.block_bytes <= kMaxFioBlockBytes))
    throw InputError({file, 0, 0}, "job options.bs", "expected one block size such as 16k (at most 1g), got '" + bs + "'");
  const char* side = r.rw.find("write") != std::string::npos ? "write" : "read";
  if (!job.contains(side) || !job[side].is_object() || !job[side].contains("lat_ns"))
    throw InputError({file, 0, 0}, "", std::string("no '") + side + ".lat_ns' in the job");
  // The job's own side must have done IO at a real rate; the other side of a pure read or write job
  // reports zeros, which are kept as they are.
  auto side_figures = [&](const char* name, double& iops, double& latency_s) {
    const std::string at = std::string("jobs[0].") + name;
    const bool mixed = r.rw == "rw" || r.rw == "readwrite" || r.rw == "randrw";
    const bool own = std::string(name) == side || mixed;
    // The job's own side without its rate was skipped, and the device it was to be fitted into
    // left out of the catalogue without a word.
    if (own && !(job.contains(name) && job[name].is_object() && job[name].contains("iops")))
      throw InputError({file, 0, 0}, at + ".iops", "missing");
    if (job.contains(name) && job[name].is_object() && job[name].contains("lat_ns") && job[name].contains("iops")) {
      if (!job[name]["lat_ns"].is_object() || !job[name]["lat_ns"].contains("mean"))
        throw InputError({file, 0, 0}, at + ".lat_ns.mean", "missing");
      iops = figure(job[name]["iops"], at + ".iops", own);
      // A rate no device has (fewer than one IO a second, or past 100 million: the fastest NVMe
      // SSDs serve a few million) would be fitted into a device model, or overflow its whole-number
      // rate and be refused later, named by a temporary file: said here, at the job's figure.
      constexpr double kMinIops = 1, kMaxIops = 1e8;
      if (own && (iops < kMinIops || iops > kMaxIops))
        throw InputError({file, 0, 0}, at + ".iops", format_significant(iops) + " IOs a second: no device's (expected 1 to 1e8)");
      latency_s = figure(job[name]["lat_ns"]["mean"], at + ".lat_ns.mean", own) * 1e-9;
      // A mean IO latency past a minute is no device's (and the devices built from it would be
      // refused later, named by a temporary file): said here, at the job's figure.
      constexpr double kMaxIoLatency_s = 60;
      if (latency_s > kMaxIoLatency_s)
        throw InputError({file, 0, 0}, at + ".lat_ns.mean", "a mean IO latency of " + format_significant(latency_s) + " s: no device is that slow");
    }
  };
  side_figures("read", r.read_iops, r.read_latency_mean_s);
  side_figures("write", r.write_iops, r.write_latency_mean_s);
  bool write_side = std::string(side) == "write";
  r.iops = write_side ? r.write_iops : r.read_iops;
  r.latency_mean_s = write_side ? r.write_latency_mean_s : r.read_latency_mean_s;
  // fsync=N / fdatasync=N in the job's options or fio's global ones (as the other options are read);
  // 0 means no sync.
  auto syncs_every = [&](const char* key) {
    const std::string every = opt(key, "0");
    return !every.empty() && every != "0";
  };
  r.syncs = syncs_every("fsync") || syncs_every("fdatasync");
  // direct=1 or buffered=0 (fio's inverse option; its booleans are also written true/false, yes/no,
  // on/off); fio's default is buffered.
  const auto fio_bool = [](std::string v) -> std::optional<bool> {
    for (auto& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (v == "1" || v == "true" || v == "yes" || v == "on") return true;
    if (v == "0" || v == "false" || v == "no" || v == "off") return false;
    return std::nullopt;
  };
  if (const auto direct = fio_bool(opt("direct", ""))) r.direct = *direct;
  else if (const auto buffered = fio_bool(opt("buffered", ""))) r.direct = !*buffered;
  if (job.contains("sync") && job["sync"].is_object() && job["sync"].contains("lat_ns") && job["sync"]["lat_ns"].is_object() &&
      job["sync"]["lat_ns"].contains("mean"))
    r.sync_latency_mean_s = figure(job["sync"]["lat_ns"]["mean"], "jobs[0].sync.lat_ns.mean", r.syncs) * 1e-9;
  return r;
}

CpuBursts parse_perf_sched_bursts(const std::string& text, const std::string& file, const std::vector<std::string>& only_commands) {
  std::istringstream in(text);
  std::string line;
  int line_no = 0;
  std::vector<std::string> header;
  double n = 0, sum = 0, sumsq = 0;
  int rows = 0;
  std::array<double, 5> optional{};  // the optional columns below: p50, p90, p99, the long bursts' count and mean
  while (std::getline(in, line)) {
    ++line_no;
    const std::vector<std::string> f = tab_fields(line);
    if (line_no == 1) {
      header = f;
      continue;
    }
    auto col = [&](const char* name) -> std::string {
      auto it = std::find(header.begin(), header.end(), name);
      if (it == header.end()) throw InputError({file, 1, 1}, name, std::string("no column '") + name + "'");
      size_t i = static_cast<size_t>(it - header.begin());
      if (i >= f.size()) throw InputError({file, line_no, 1}, name, "the line has " + std::to_string(f.size()) + " fields, fewer than the header");
      return f[i];
    };
    if (line.empty() || col("what") != "run") continue;
    if (only_commands.empty() ? col("comm").find(':') != std::string::npos  // a derived row (a command's threads split)
                              : std::find(only_commands.begin(), only_commands.end(), col("comm")) == only_commands.end())
      continue;
    double count = 0, mean = 0, scv = 0;
    ++rows;
    optional = {std::nan(""), std::nan(""), std::nan(""), std::nan(""), std::nan("")};
    const char* optional_columns[] = {"p50_us", "p90_us", "p99_us", "long_count", "long_mean_us"};
    for (int c = 0; c < 5; ++c)
      if (std::find(header.begin(), header.end(), optional_columns[c]) != header.end()) try {
          optional[c] = std::stod(col(optional_columns[c]));
        } catch (const std::invalid_argument&) {
          throw InputError({file, line_no, 1}, optional_columns[c], "not a number");
        } catch (const std::out_of_range&) {
          throw InputError({file, line_no, 1}, optional_columns[c], "out of range");
        }
    try {
      count = std::stod(col("count"));
      mean = std::stod(col("mean_us"));
      scv = std::stod(col("scv"));
    } catch (const std::exception&) {
      throw InputError({file, line_no, 1}, "count/mean_us/scv", "not a number");
    }
    if (!std::isfinite(count) || !std::isfinite(mean) || !std::isfinite(scv) || count < 0 || mean < 0 || scv < 0 ||
        count != std::floor(count))
      throw InputError({file, line_no, 1}, "count/mean_us/scv", "expected a whole count and finite, non-negative mean and SCV");
    // Pool the commands: E[S^2] = mean^2 (1 + SCV) per command, weighted by its count.
    n += count;
    sum += count * mean;
    sumsq += count * mean * mean * (1 + scv);
  }
  if (n <= 0 || sum <= 0) throw InputError({file, line_no, 1}, "", "no 'run' rows with bursts");
  CpuBursts b;
  b.count = static_cast<std::uint64_t>(n);
  b.mean_us = sum / n;
  b.scv = sumsq / n / (b.mean_us * b.mean_us) - 1;
  if (rows == 1 && std::all_of(optional.begin(), optional.begin() + 3, [](double q) { return std::isfinite(q) && q > 0; }) &&
      optional[0] <= optional[1] && optional[1] <= optional[2]) {
    b.p50_us = optional[0];
    b.p90_us = optional[1];
    b.p99_us = optional[2];
  }
  if (rows == 1 && std::isfinite(optional[3]) && std::isfinite(optional[4]) && optional[3] >= 0 && optional[4] >= 0 &&
      optional[3] <= n) {
    b.long_count = optional[3];
    b.long_mean_us = optional[4];
  }
  return b;
}

ServerThreadsCpu parse_perf_sched_threads(const std::string& text, const std::string& file, int connections) {
  std::istringstream in(text);
  std::string line;
  int line_no = 0;
  int task_col = -1, run_col = -1;
  struct Task {
    std::string comm;
    long tid = 0, pid = 0;
    double run_ms = 0;
  };
  std::vector<Task> tasks;
  const std::regex name(R"(^(.*)\[(\d+)(?:/(\d+))?\]$)");
  while (std::getline(in, line)) {
    ++line_no;
    refuse_long_line(line, file, line_no);
    const std::vector<std::string> f = tab_fields(line);
    if (line_no == 1) {
      for (size_t i = 0; i < f.size(); ++i) {
        if (f[i] == "task") task_col = static_cast<int>(i);
        if (f[i] == "run_ms") run_col = static_cast<int>(i);
      }
      if (task_col < 0 || run_col < 0) throw InputError({file, 1, 1}, "task/run_ms", "no 'task' or 'run_ms' column");
      continue;
    }
    if (line.empty()) continue;
    if (static_cast<int>(f.size()) <= std::max(task_col, run_col))
      throw InputError({file, line_no, 1}, "run_ms", "the line has fewer fields than the header");
    std::smatch m;
    if (!std::regex_match(f[task_col], m, name)) continue;  // <idle> and the like
    Task t;
    t.comm = m[1];
    try {
      t.tid = std::stol(m[2]);
      t.pid = m[3].matched ? std::stol(m[3]) : t.tid;
    } catch (const std::exception&) {
      throw InputError({file, line_no, 1}, "task", "thread id out of range: " + f[task_col]);
    }
    try {
      t.run_ms = std::stod(f[run_col]);
    } catch (const std::exception&) {
      throw InputError({file, line_no, 1}, "run_ms", "not a number");
    }
    if (!std::isfinite(t.run_ms) || t.run_ms < 0) throw InputError({file, line_no, 1}, "run_ms", "expected a finite, non-negative time");
    tasks.push_back(t);
  }
  // The server: the mariadbd / mysqld process that ran longest.
  std::map<long, double> by_pid;
  for (const auto& t : tasks)
    if (t.comm == "mariadbd" || t.comm == "mysqld") by_pid[t.pid] += t.run_ms;
  if (by_pid.empty()) throw InputError({file, line_no, 1}, "task", "no mariadbd or mysqld task");
  long server = std::max_element(by_pid.begin(), by_pid.end(), [](const auto& a, const auto& b) { return a.second < b.second; })->first;
  std::vector<const Task*> own;
  for (const auto& t : tasks)
    if (t.pid == server && (t.comm == "mariadbd" || t.comm == "mysqld")) own.push_back(&t);
  std::sort(own.begin(), own.end(), [](const Task* a, const Task* b) { return a->run_ms > b->run_ms; });
  std::set<long> connection_tids;
  for (size_t i = 0; i < own.size() && static_cast<int>(i) < connections; ++i) connection_tids.insert(own[i]->tid);
  ServerThreadsCpu out;
  for (const auto& t : tasks) {
    if (t.pid != server) continue;
    ++out.tasks;
    bool connection = connection_tids.count(t.tid) > 0;
    const std::string worker = "iou-wrk-";
    if (t.comm.rfind(worker, 0) == 0) {
      try {
        connection = connection_tids.count(std::stol(t.comm.substr(worker.size()))) > 0;
      } catch (const std::exception&) {
      }
    }
    (connection ? out.connection_ms : out.background_ms) += t.run_ms;
  }
  return out;
}

std::optional<double> Trace::bursts_per_txn() const {
  if (!cpu_bursts || sysbench.tps <= 0) return std::nullopt;
  const double window_s = capture_figure("perf_sched_s");
  if (!(window_s > 0)) return std::nullopt;
  return cpu_bursts->count / (window_s * sysbench.tps);
}

// SHOW STATUS values that are levels, not counts since the server started: their delta may fall.
static bool is_status_gauge(const std::string& name) {
  static const std::set<std::string> gauges{
      "Innodb_buffer_pool_pages_dirty", "Innodb_buffer_pool_pages_data", "Innodb_buffer_pool_pages_free",
      "Innodb_buffer_pool_pages_misc",  "Innodb_buffer_pool_pages_total", "Innodb_buffer_pool_pages_old",
      "Innodb_buffer_pool_bytes_data",  "Innodb_buffer_pool_bytes_dirty", "Innodb_checkpoint_age",
      "Innodb_history_list_length"};
  return gauges.count(name) > 0;
}

std::optional<double> Trace::per_txn(const std::string& counter) const {
  auto a = status_after.find(counter), b = status_before.find(counter);
  if (a == status_after.end() || b == status_before.end() || sysbench.transactions == 0) return std::nullopt;
  // Snapshots not taken just outside the run (traces/mdev-13845: the first ~2 s into it) say how
  // many transactions they span in meta.yaml `status.transactions` (checked by load_trace; null: not
  // said, the log's count).
  double transactions = static_cast<double>(sysbench.transactions);
  const YAML::Node& m = meta;  // const lookups: no keys are created
  if (m["status"] && m["status"]["transactions"] && !m["status"]["transactions"].IsNull())
    transactions = m["status"]["transactions"].as<double>();
  // The counters asked for here only grow while a server runs: one that fell was reset between the
  // snapshots (a restart, FLUSH STATUS) or the files are not one run's, and its delta would be a
  // negative count per transaction fed to a fit.
  if (a->second < b->second && !is_status_gauge(counter)) {
    auto count_text = [](double v) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.0f", v);
      return std::string(buf);
    };
    refuse_status_counter(counter, "the counter fell from " + count_text(b->second) + " in status_before.tsv to " + count_text(a->second) +
                                       ": the server was restarted or its status flushed between the snapshots, or the two files are not from one run");
  }
  const double per_transaction = (a->second - b->second) / transactions;
  // A delta no run makes (a counter that wrapped, a value from elsewhere): a billion of anything
  // (bytes included) per sysbench transaction. Fitted, it made a device or a redo rate that does not
  // exist, or a simulation that never ended.
  constexpr double kMaxPerTransaction = 1e9;
  if (per_transaction > kMaxPerTransaction && !is_status_gauge(counter))
    refuse_status_counter(counter, format_significant(per_transaction) + " per transaction between status_before.tsv and status_after.tsv: no run's "
                                   "(at most 1e9 per transaction; a counter that wrapped, or a value from another run)");
  return per_transaction;
}

void Trace::refuse_status_counter(const std::string& counter, const std::string& message) const {
  const std::string file = (fs::path(dir) / "status_after.tsv").string();
  int line = 0, n = 0;
  std::istringstream in(slurp(file));
  for (std::string text; std::getline(in, text) && line == 0;) {
    ++n;
    if (text.rfind(counter + "\t", 0) == 0) line = n;
  }
  throw InputError({file, line, 0}, counter, message);
}

std::optional<double> Trace::checked_variable(const std::string& variable, double min, double max, bool whole,
                                              const std::string& what) const {
  const auto line = variable_lines.find(variable);
  if (line == variable_lines.end()) return std::nullopt;
  const auto v = variables.find(variable);
  if (v == variables.end() || !(v->second >= min && v->second <= max) || (whole && v->second != std::round(v->second)))
    throw InputError({(fs::path(dir) / "variables.tsv").string(), line->second, 0}, variable, "expected " + what);
  return v->second;
}

double Trace::capture_figure(const char* key) const {
  const YAML::Node& m = meta;  // const lookups: no keys are created
  const YAML::Node c = m["capture"];
  if (!c || !c.IsMap() || !c[key] || c[key].IsNull()) return std::nan("");
  const YAML::Node v = c[key];
  const auto x = yaml_decimal(v);  // yaml-cpp's own error ("bad conversion") names no file or key
  if (!x)
    throw InputError({(fs::path(dir) / "meta.yaml").string(), v.Mark().line + 1, v.Mark().column + 1}, std::string("capture.") + key,
                     "expected a number, got '" + yaml_text(v) + "'");
  return *x;
}

std::optional<DeviceAwait> Trace::device_await(const std::string& device) const {
  auto a = diskstats_after.find(device), b = diskstats_before.find(device);
  if (a == diskstats_after.end() || b == diskstats_before.end()) return std::nullopt;
  // The measured window (capture.window_s, absent or null where not recorded), else sysbench's run time.
  const double captured_s = capture_figure("window_s");
  const double window_s = std::isnan(captured_s) ? sysbench.total_time_s : captured_s;
  if (!(window_s > 0)) return std::nullopt;
  const DiskStats &x = a->second, &y = b->second;
  auto mean = [](std::uint64_t count, std::uint64_t ms) -> std::optional<double> {
    if (count == 0) return std::nullopt;
    return static_cast<double>(ms) * 1e-3 / static_cast<double>(count);
  };
  DeviceAwait d;
  d.read_s = mean(x.reads - y.reads, x.read_ms - y.read_ms);
  d.write_s = mean(x.writes - y.writes, x.write_ms - y.write_ms);
  d.reads_per_s = static_cast<double>(x.reads - y.reads) / window_s;
  d.writes_per_s = static_cast<double>(x.writes - y.writes) / window_s;
  if (x.flushes && y.flushes && x.flush_ms && y.flush_ms) {
    d.flush_s = mean(*x.flushes - *y.flushes, *x.flush_ms - *y.flush_ms);
    d.flushes_per_s = static_cast<double>(*x.flushes - *y.flushes) / window_s;
  }
  return d;
}

// The sysbench mix a trace ran: its test, version and per-statement counts (meta.yaml
// `workload.mix`, as traces/mdev-13845 records oltp.lua's options; sysbench's defaults otherwise).
// sysbench 0.5's oltp.lua with --oltp-read-only=on is the read-only mix.
SysbenchOptions sysbench_options_for(const Trace& t) {
  const auto& w = t.meta["workload"];
  SysbenchOptions o;
  // The log's banner says which sysbench ran; a log without it (cut by hand) goes by meta.yaml.
  const std::string version = t.sysbench.version_seen ? t.sysbench.version : w["version"].Scalar();
  o.version = version.rfind("0.5", 0) == 0 ? "0.5" : "1.0.20";
  o.test = w["test"].Scalar();
  if (o.test == "oltp" && w["read_only"] && w["read_only"].as<bool>()) o.test = "oltp_read_only";
  o.tables = w["tables"].as<int>();
  o.table_size = w["table_size"].as<std::uint64_t>();
  o.range_size = w["range_size"].as<int>();
  o.rand_type = w["rand_type"].Scalar();
  o.skip_trx = w["skip_trx"].as<bool>();  // --skip_trx: no BEGIN / COMMIT (autocommit statements)
  if (const auto& m = w["mix"]) {
    for (auto [key, field] : std::initializer_list<std::pair<const char*, int*>>{
             {"point_selects", &o.point_selects}, {"simple_ranges", &o.simple_ranges}, {"sum_ranges", &o.sum_ranges},
             {"order_ranges", &o.order_ranges}, {"distinct_ranges", &o.distinct_ranges},
             {"index_updates", &o.index_updates}, {"non_index_updates", &o.non_index_updates},
             {"delete_inserts", &o.delete_inserts}})
      if (m[key]) *field = m[key].as<int>();
  }
  return o;
}

namespace {
// The figures of meta.yaml's `capture` section that calibrate and validate read (the section is
// capture.py's free-form record otherwise): each absent, null or a number in its range. A negative
// probe speed or a CPU share past the host's would be fitted or simulated as it is.
void check_capture_figures(const YAML::Node& meta, const std::string& file) {
  const YAML::Node capture = meta["capture"];
  if (!capture || !capture.IsMap()) return;
  const double cores = meta["host"]["cores"].as<double>();
  struct Range {
    const char* key;
    double min, max;
    bool min_exclusive;
    const char* what;
  };
  const Range ranges[] = {
      {"cpu_probe_eps_before", kMinCpuProbeEps, kMaxCpuProbeEps, false, "sysbench cpu events per second on one thread, 1 to 1e5"},
      {"cpu_probe_eps_after", kMinCpuProbeEps, kMaxCpuProbeEps, false, "sysbench cpu events per second on one thread, 1 to 1e5"},
      {"mariadbd_cpu_pct", 0, 100, true, "the server's share of the host's CPUs in %, above 0 and at most 100"},
      {"sysbench_cpu_pct", 0, 100, false, "sysbench's share of the host's CPUs in %, 0 to 100"},
      {"busy_pct", 0, 100, false, "the host's busy share in %, 0 to 100"},
      {"steal_pct", 0, 100, false, "the hypervisor's steal share in %, 0 to 100"},
      {"other_cpu_cores", 0, cores, false, "cores other processes used, 0 to host.cores"},
      {"window_s", 0, 1e7, true, "the measured window in seconds, above 0"},
      {"perf_sched_s", 0, 1e7, true, "the perf sched window in seconds, above 0"},
      {"warmup_s", 0, 1e7, false, "the warm-up in seconds, 0 or more"},
  };
  for (const auto& r : ranges) {
    const YAML::Node v = capture[r.key];
    if (!v || v.IsNull()) continue;
    const auto x = yaml_decimal(v);
    if (!x || (r.min_exclusive ? *x <= r.min : *x < r.min) || *x > r.max) {
      const auto mark = v.Mark();
      throw InputError({file, mark.line + 1, mark.column + 1}, std::string("capture.") + r.key,
                       "expected " + std::string(r.what) + ", got '" + yaml_text(v) + "'");
    }
  }
}
}  // namespace

std::optional<double> yaml_decimal(const YAML::Node& node) {
  double x = 0;
  if (!node.IsScalar() || node.Scalar().find_first_of("xX") != std::string::npos || !YAML::convert<double>::decode(node, x) ||
      !std::isfinite(x))
    return std::nullopt;
  return x;
}

std::string yaml_text(const YAML::Node& node) { return node.IsScalar() ? node.Scalar() : std::string("a collection"); }

std::string trace_set_directory(const Trace& t) {
  fs::path p = fs::absolute(fs::path(t.dir)).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  return p.parent_path().filename().string();
}

std::string server_name(const std::string& product, const std::string& version) {
  const auto second_dot = version.find('.', version.find('.') + 1);
  return product + " " + version.substr(0, second_dot);
}

std::string server_of(const Trace& t) {
  return server_name(t.meta["engine"]["product"].Scalar(), t.meta["engine"]["version"].Scalar());
}

std::string trace_path_as_named(const std::string& dir) {
  // "traces/x/" names the same trace as "traces/x": the trace's name and set come from the path.
  // As typed, without a trailing separator (its name is the trace's name) or "." and ".." steps.
  fs::path typed = fs::path(dir).lexically_normal();
  if (typed.filename().empty() && typed.has_parent_path()) typed = typed.parent_path();
  // "." or "..": the directory's own name, through its absolute path.
  if (typed.filename() == "." || typed.filename() == "..") {
    typed = fs::absolute(typed).lexically_normal();
    if (typed.filename().empty()) typed = typed.parent_path();
  }
  return typed.string();
}

// The settings a server prints as text (ON/OFF, a method, its version) against meta.yaml's, with
// meta.yaml's defaults applied: a trace that leaves server.doublewrite out is simulated with it on,
// so a server that ran without it is as wrong a description as one meta.yaml gives. The page size is
// not a setting of meta.yaml: poolsim's B-trees are of 16 KiB pages.
void check_meta_against_text_variables(const Trace& t, const YAML::Node& meta, const std::string& meta_file, const std::string& variables_file) {
  const auto at = [&](const std::string& variable) {
    return fs::path(variables_file).filename().string() + ":" + std::to_string(t.variable_lines.at(variable));
  };
  const auto text_of = [&](const std::string& variable) -> std::optional<std::string> {
    const auto v = t.variable_texts.find(variable);
    if (v == t.variable_texts.end()) return std::nullopt;
    return v->second;
  };
  if (const auto page = text_of("innodb_page_size"); page && *page != std::to_string(kInnodbPageBytes))
    throw InputError({variables_file, t.variable_lines.at("innodb_page_size"), 0}, "innodb_page_size",
                     "is " + *page + ": poolsim models InnoDB's " + std::to_string(kInnodbPageBytes) + "-byte pages (the default) only");
  const YAML::Node server = meta["server"];
  const auto said = [&](const std::string& key, const std::string& value) {
    return server[key] ? "says " + server[key].Scalar() : "is not given and defaults to " + value;
  };
  const auto where = [&](const std::string& key) { return Origin{meta_file, {}}.locate("server." + key, server[key]); };
  // ON/OFF switches (MySQL 8.0.30+ also prints DETECT_AND_RECOVER or DETECT_ONLY for the doublewrite
  // buffer; MariaDB prints 1/0 in some builds).
  for (const auto& [key, variable] : {std::pair<const char*, const char*>{"doublewrite", "innodb_doublewrite"}, {"binlog", "log_bin"}}) {
    const auto text = text_of(variable);
    if (!text) continue;
    std::string upper = *text;
    for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    // DETECT_ONLY writes only the pages' metadata to the doublewrite buffer (MySQL 8.0.30+ manual):
    // the pages are written once, as without it.
    std::optional<bool> ran;
    if (upper == "ON" || upper == "1" || upper == "DETECT_AND_RECOVER") ran = true;
    if (upper == "OFF" || upper == "0" || upper == "DETECT_ONLY") ran = false;
    if (!ran) continue;  // a value of another server's: nothing to compare
    const bool simulated = t.meta["server"][key].as<bool>();
    if (simulated != *ran)
      throw InputError(where(key), std::string("server.") + key,
                       said(key, simulated ? "true" : "false") + " but the server ran with " + variable + " " + *text + " (" + at(variable) + ")");
  }
  if (const auto method = text_of("innodb_flush_method")) {
    const std::string simulated = t.meta["server"]["flush_method"].Scalar();
    // MariaDB 10.x and MySQL print the method by name; MariaDB 11's default prints as O_DIRECT too.
    if (!method->empty() && *method != simulated)
      throw InputError(where("flush_method"), "server.flush_method",
                       said("flush_method", simulated) + " but the server ran with innodb_flush_method " + *method + " (" +
                           at("innodb_flush_method") + ")");
  }
  // engine.version's numbers lead the server's `version` ("10.11.19-MariaDB-0+deb12u1", "8.0.32-25").
  if (const auto version = text_of("version")) {
    const std::string said_version = t.meta["engine"]["version"].Scalar();
    const bool leads = version->rfind(said_version, 0) == 0 &&
                       (version->size() == said_version.size() || !std::isdigit(static_cast<unsigned char>((*version)[said_version.size()])));
    if (!leads)
      throw InputError(Origin{meta_file, {}}.locate("engine.version", meta["engine"]["version"]), "engine.version",
                       "says " + said_version + " but the server was " + *version + " (" + at("version") + ")");
  }
}

// The buffer pool's page counts in each status snapshot: its dirty and data pages are some of its
// frames (an edited total made the measured dirty share 233 %), and its frames are most of meta.yaml's
// pool (kMinPoolFramesRatio-kMaxPoolFramesRatio of its 16 KiB pages; the rest hold the pages'
// descriptors): a pool of another size (meta.yaml 16 GiB on a 4 GiB server) was simulated as written.
void check_pool_pages(const Trace& t, const std::map<std::string, int>& before_lines, const std::map<std::string, int>& after_lines) {
  const auto value = [](const std::map<std::string, double>& status, const char* counter) -> std::optional<double> {
    const auto it = status.find(counter);
    if (it == status.end()) return std::nullopt;
    return it->second;
  };
  const YAML::Node pool_node = t.meta["server"]["buffer_pool"];
  const auto pool = parse_quantity(pool_node.Scalar(), Dimension::Bytes, nullptr);
  for (const auto& [status, lines, file] : {std::tuple{&t.status_before, &before_lines, "status_before.tsv"},
                                            std::tuple{&t.status_after, &after_lines, "status_after.tsv"}}) {
    const auto total = value(*status, "Innodb_buffer_pool_pages_total");
    if (!total) continue;
    const std::string path = (fs::path(t.dir) / file).string();
    const auto line_of = [&](const char* counter) { return lines->count(counter) ? lines->at(counter) : 0; };
    const double ratio = pool && *pool > 0 ? *total / (*pool / kInnodbPageBytes) : kMaxPoolFramesRatio;
    if (!(ratio >= kMinPoolFramesRatio && ratio <= kMaxPoolFramesRatio))
      throw InputError({path, line_of("Innodb_buffer_pool_pages_total"), 0}, "Innodb_buffer_pool_pages_total",
                       format_significant(ratio, 4) + " frames per page of the buffer pool (meta.yaml server.buffer_pool " + pool_node.Scalar() +
                           "): expected " + format_significant(kMinPoolFramesRatio) + " to " + format_significant(kMaxPoolFramesRatio) +
                           " (the server ran another pool size, or the counter is not this pool's)");
    for (const char* part : {"Innodb_buffer_pool_pages_dirty", "Innodb_buffer_pool_pages_data"})
      if (const auto pages = value(*status, part); pages && *pages > *total)
        throw InputError({path, line_of(part), 0}, part,
                         format_significant(*pages, 10) + " pages, more than the pool's " + format_significant(*total, 10) +
                             " (Innodb_buffer_pool_pages_total): the snapshot's counts are not of one pool");
  }
}

// meta.yaml's server settings and the server's own variables (variables.tsv, SHOW GLOBAL VARIABLES)
// describe one run: where both give a figure they must agree, or validate would simulate the one
// meta.yaml says while the server ran the other. A variable recorded as text where a number belongs
// is refused too (it was skipped, and the setting taken from meta.yaml or a default).
void check_meta_against_variables(const Trace& t, const YAML::Node& meta, const std::string& meta_file, const std::string& variables_file) {
  const YAML::Node server = meta["server"];
  // innodb_io_capacity_max below innodb_io_capacity is no server's setting (InnoDB raises it).
  if (server["io_capacity"] && server["io_capacity_max"] &&
      std::strtod(server["io_capacity_max"].Scalar().c_str(), nullptr) < std::strtod(server["io_capacity"].Scalar().c_str(), nullptr))
    throw InputError(Origin{meta_file, {}}.locate("server.io_capacity_max", server["io_capacity_max"]), "server.io_capacity_max",
                     "is below server.io_capacity (" + server["io_capacity"].Scalar() + ")");
  if (t.variable_lines.empty()) return;
  for (const auto& [key, variable] : {std::pair<const char*, const char*>{"buffer_pool", "innodb_buffer_pool_size"},
                                      {"io_capacity", "innodb_io_capacity"},
                                      {"io_capacity_max", "innodb_io_capacity_max"},
                                      {"flush_log_at_trx_commit", "innodb_flush_log_at_trx_commit"},
                                      {"sync_binlog", "sync_binlog"}}) {
    const auto value = t.checked_variable(variable, -HUGE_VAL, HUGE_VAL, false, "a number (the server prints one)");
    if (!value || !server[key]) continue;
    const std::string written = server[key].Scalar();
    const auto meta_value = std::string(key) == "buffer_pool" ? parse_quantity(written, Dimension::Bytes, nullptr)
                                                              : std::optional<double>(std::strtod(written.c_str(), nullptr));
    if (meta_value && *meta_value != *value) {
      std::ostringstream figure;
      figure.precision(15);
      figure << *value;
      throw InputError(Origin{meta_file, {}}.locate(std::string("server.") + key, server[key]), std::string("server.") + key,
                       "says " + written + " but the server ran with " + variable + " " + figure.str() + " (" +
                           fs::path(variables_file).filename().string() + ":" + std::to_string(t.variable_lines.at(variable)) + ")");
    }
  }
  check_meta_against_text_variables(t, meta, meta_file, variables_file);
}

Trace load_trace(const std::string& dir) {
  Trace t;
  t.dir = trace_path_as_named(dir);
  std::string meta_file = (fs::path(dir) / "meta.yaml").string();
  YAML::Node meta = parse_yaml(slurp(meta_file), meta_file);
  validate(meta, meta_schema(), Origin{meta_file, {}});
  // A host smaller than its buffer pool did not run the trace (validate would simulate the pool in
  // a host of the scenario's default memory and say nothing).
  if (meta["host"]["memory"] && meta["server"]["buffer_pool"]) {
    auto memory = parse_quantity(meta["host"]["memory"].Scalar(), Dimension::Bytes, nullptr);
    auto pool = parse_quantity(meta["server"]["buffer_pool"].Scalar(), Dimension::Bytes, nullptr);
    if (memory && pool && *memory < *pool) {
      const auto mark = meta["host"]["memory"].Mark();
      throw InputError({meta_file, mark.line + 1, mark.column + 1}, "host.memory",
                       meta["host"]["memory"].Scalar() + " is less than server.buffer_pool (" + meta["server"]["buffer_pool"].Scalar() + ")");
    }
  }
  check_capture_figures(meta, meta_file);
  t.meta = with_defaults(meta, meta_schema());
  // The version decides the server's defaults and features (calibrate's flushing_defaults_of, the
  // free-page policy): one that does not read as MAJOR.MINOR[.PATCH] would pick some silently.
  if (!is_server_version(t.meta["engine"]["version"].Scalar()))
    throw InputError(Origin{meta_file, {}}.locate("engine.version", meta["engine"]["version"]), "engine.version",
                     "'" + t.meta["engine"]["version"].Scalar() + "' is not a server version (MAJOR.MINOR[.PATCH], e.g. \"10.11.19\")");
  std::string log = (fs::path(dir) / "sysbench.log").string();
  t.sysbench = parse_sysbench_log(slurp(log), log);
  // meta.yaml describes the run the log recorded: a thread count that differs would simulate
  // another configuration and compare it with this one's figures.
  if (t.sysbench.threads > 0 && t.meta["workload"]["threads"].as<int>() != t.sysbench.threads) {
    const YAML::Node at = meta["workload"] ? meta["workload"]["threads"] : YAML::Node();
    throw InputError(Origin{meta_file, {}}.locate("workload.threads", at), "workload.threads",
                     "says " + std::to_string(t.meta["workload"]["threads"].as<int>()) + " threads but sysbench.log:" +
                         std::to_string(t.sysbench.threads_line) + " ran " + std::to_string(t.sysbench.threads));
  }
  check_log_against_meta(t, meta, meta_file, log);
  // workload.duration_s is the run's --time, and validate simulates that long: the log's total time
  // is it (sysbench stops on the second; a few seconds more for the threads to finish their last
  // transaction and for 0.5's summary). A duration of 10 h on a 3-minute log hung validate.
  if (const YAML::Node& m = meta; m["workload"] && m["workload"]["duration_s"] && t.sysbench.total_time_s > 0) {
    const YAML::Node d = m["workload"]["duration_s"];
    const double duration_s = t.meta["workload"]["duration_s"].as<double>();
    constexpr double kRunTolerance = 0.1, kRunStopSlack_s = 5;
    if (std::abs(t.sysbench.total_time_s - duration_s) > kRunTolerance * duration_s + kRunStopSlack_s)
      throw InputError({meta_file, d.Mark().line + 1, d.Mark().column + 1}, "workload.duration_s",
                       format_significant(duration_s) + " s, but " + log + " ran " + format_significant(t.sysbench.total_time_s) +
                           " s: the duration is the run's (sysbench --time)");
  }
  // capture.window_s is the measured run's, taken around it (capture.py starts it just before
  // sysbench and ends it just after: 1.003-1.05 times the log's total time in the committed traces);
  // the device rates divide by it, so a window of another length (0.001 s put them 45,000 times
  // too high) is refused. The band is wide, for a capture tool that takes its window differently.
  if (const double window_s = t.capture_figure("window_s"); !std::isnan(window_s) && t.sysbench.total_time_s > 0) {
    constexpr double kWindowToRunMin = 0.5, kWindowToRunMax = 2.0;
    const double ratio = window_s / t.sysbench.total_time_s;
    if (ratio < kWindowToRunMin || ratio > kWindowToRunMax) {
      const YAML::Node& m = meta;
      const auto mark = m["capture"]["window_s"].Mark();
      throw InputError({meta_file, mark.line + 1, mark.column + 1}, "capture.window_s",
                       format_significant(window_s) + " s is not the measured run's window: " + log + " ran " +
                           format_significant(t.sysbench.total_time_s) + " s (the window is taken around the run, within half to twice its time)");
    }
  }
  // The transactions the status snapshots span divide every counter: a whole number of at least 1,
  // and at most the log's transactions and those in flight when the run started (the snapshots lie
  // within the run; a digit too many divided every counter by ten).
  const YAML::Node& meta_view = meta;  // const lookups: no keys are created
  if (const YAML::Node spanned = meta_view["status"] ? meta_view["status"]["transactions"] : YAML::Node(); spanned && !spanned.IsNull()) {
    const auto mark = spanned.Mark();
    const auto x = yaml_decimal(spanned);
    if (!x || !(*x >= 1) || *x != std::floor(*x))
      throw InputError({meta_file, mark.line + 1, mark.column + 1}, "status.transactions",
                       "expected the transactions the status snapshots span, a whole number of at least 1, got '" + yaml_text(spanned) + "'");
    const double at_most = static_cast<double>(t.sysbench.transactions) + t.meta["workload"]["threads"].as<double>();
    if (t.sysbench.transactions > 0 && *x > at_most)
      throw InputError({meta_file, mark.line + 1, mark.column + 1}, "status.transactions",
                       yaml_text(spanned) + " transactions, more than the " + std::to_string(t.sysbench.transactions) + " that " + log +
                           " counts (plus one in flight per thread): the status snapshots lie within the run");
    // Nor far fewer: the snapshots span the run, or most of it (MDEV-13845's first is 2 s into
    // runs of 90-180 s: 98.6 % of the log's count); under half, a digit was lost and every counter
    // per transaction would be ten times too high.
    constexpr double kFewestSpannedShare = 0.5;
    if (*x < kFewestSpannedShare * static_cast<double>(t.sysbench.transactions))
      throw InputError({meta_file, mark.line + 1, mark.column + 1}, "status.transactions",
                       yaml_text(spanned) + " transactions, under half of the " + std::to_string(t.sysbench.transactions) + " that " + log +
                           " counts: the status snapshots span the run, or most of it");
  }
  // An optional file that is there holds something: an empty one is a capture cut short, and its
  // comparisons would vanish without a word.
  auto slurp_present = [](const fs::path& p) {
    std::string text = slurp(p.string());
    if (text.find_first_not_of(" \t\r\n") == std::string::npos)
      throw InputError({p.string(), 1, 1}, "", "the file is empty (a capture cut short?): remove it or capture again");
    return text;
  };
  // Snapshots come in pairs: one alone measures nothing, and was ignored without a word.
  for (const auto& [one, other] : {std::pair<const char*, const char*>{"status_before.tsv", "status_after.tsv"},
                                   {"status_after.tsv", "status_before.tsv"},
                                   {"diskstats_before.txt", "diskstats_after.txt"},
                                   {"diskstats_after.txt", "diskstats_before.txt"}})
    if (fs::exists(fs::path(dir) / one) && !fs::exists(fs::path(dir) / other))
      throw InputError({(fs::path(dir) / one).string(), 0, 0}, "",
                       std::string("a snapshot without its pair: ") + other + " is not in the trace (give both, or neither)");
  std::map<std::string, int> before_lines, after_lines;
  for (const char* which : {"status_before.tsv", "status_after.tsv"}) {
    auto p = fs::path(dir) / which;
    const bool before = std::string(which) == "status_before.tsv";
    if (fs::exists(p))
      (before ? t.status_before : t.status_after) = parse_status_tsv(slurp_present(p), p.string(), /*counters=*/true, before ? &before_lines : &after_lines);
  }
  check_status_snapshots(t, before_lines, after_lines, log);
  check_pool_pages(t, before_lines, after_lines);
  auto variables = fs::path(dir) / "variables.tsv";
  if (fs::exists(variables))
    t.variables = parse_status_tsv(slurp_present(variables), variables.string(), /*counters=*/false, &t.variable_lines, &t.variable_texts);
  check_meta_against_variables(t, meta, meta_file, variables.string());

  auto iostat = fs::path(dir) / "iostat.txt";
  if (fs::exists(iostat)) {
    t.iostat = parse_iostat(slurp_present(iostat), iostat.string());
    // iostat's shares are of its CPUs, the fit's of meta.yaml's cores: the host they describe.
    const int cores = t.meta["host"]["cores"].as<int>();
    if (t.iostat->cpus != cores)
      throw InputError({iostat.string(), 1, 0}, "host.cores",
                       "iostat's header names " + std::to_string(t.iostat->cpus) + " CPUs but meta.yaml's host.cores is " + std::to_string(cores) +
                           ": its CPU shares are of another host, or meta.yaml is wrong");
  }
  // storage.members (an md RAID0's devices, whose iostat lines give the measured await and the
  // write rate the calibration fits): a list of device names, as many as storage.devices, each in
  // iostat's reports. A plain name or a member iostat does not list dropped the await without a word;
  // 64 devices beside 2 members simulated a volume 32 times wider.
  if (const YAML::Node& m = meta; m["storage"] && m["storage"]["members"]) {
    const YAML::Node members = m["storage"]["members"];
    const auto where = Origin{meta_file, {}}.locate("storage.members", members);
    const auto not_a_name = [](const YAML::Node& member) { return !member.IsScalar() || member.Scalar().empty(); };
    if (!members.IsSequence() || members.size() == 0 || std::any_of(members.begin(), members.end(), not_a_name))
      throw InputError(where, "storage.members", "expected a list of the volume's device names, e.g. [sdc, sdd]");
    if (m["storage"]["devices"] && m["storage"]["devices"].as<double>() != static_cast<double>(members.size()))
      throw InputError(Origin{meta_file, {}}.locate("storage.devices", m["storage"]["devices"]), "storage.devices",
                       m["storage"]["devices"].Scalar() + " devices, but storage.members lists " + std::to_string(members.size()));
    if (t.iostat && t.iostat->reports.size() > 1)
      for (const auto& member : members)
        if (!t.iostat->reports[1].devices.count(member.Scalar()))
          throw InputError(where, "storage.members", "'" + member.Scalar() + "' is not among iostat.txt's devices (line " +
                                                         std::to_string(t.iostat->reports[1].line) + "'s report)");
  }
  for (const char* which : {"diskstats_before.txt", "diskstats_after.txt"}) {
    auto p = fs::path(dir) / which;
    if (fs::exists(p)) (std::string(which) == "diskstats_before.txt" ? t.diskstats_before : t.diskstats_after) = parse_diskstats(slurp_present(p), p.string());
  }
  // The two snapshots must be of one boot, one device each: a device missing after, or a counter that
  // fell, would make a negative (wrapped) count of requests and a wrong await.
  if (!t.diskstats_before.empty() || !t.diskstats_after.empty()) {
    const std::string after_file = (fs::path(dir) / "diskstats_after.txt").string();
    for (const auto& [device, before] : t.diskstats_before) {
      auto after = t.diskstats_after.find(device);
      if (after == t.diskstats_after.end())
        throw InputError({after_file, 0, 0}, device, "device '" + device + "' is in diskstats_before.txt but not here");
      const DiskStats& a = after->second;
      for (const auto& [name, was, is] : {std::tuple<const char*, std::uint64_t, std::uint64_t>{"reads completed", before.reads, a.reads},
                                          {"time reading (ms)", before.read_ms, a.read_ms},
                                          {"writes completed", before.writes, a.writes},
                                          {"time writing (ms)", before.write_ms, a.write_ms},
                                          {"time doing IO (ms)", before.io_ms, a.io_ms},
                                          {"sectors read", before.read_sectors, a.read_sectors},
                                          {"sectors written", before.write_sectors, a.write_sectors},
                                          {"flushes completed", before.flushes.value_or(0), a.flushes.value_or(before.flushes.value_or(0))},
                                          {"time flushing (ms)", before.flush_ms.value_or(0), a.flush_ms.value_or(before.flush_ms.value_or(0))}})
        if (is < was)
          throw InputError({after_file, 0, 0}, device, std::string(name) + " fell from " + std::to_string(was) + " (diskstats_before.txt) to " +
                                                           std::to_string(is) + ": the snapshots are not of one run (a reboot between them?)");
    }
    // The trace's own device (meta.yaml storage.device), whose await the write-buffer fit and validate
    // compare: in after only, or in neither while the snapshots list devices, it was left out of both
    // without a word; a device that did no IO while the server wrote is a snapshot copied twice.
    const std::string before_file = (fs::path(dir) / "diskstats_before.txt").string();
    const YAML::Node& m = meta;  // const lookups: no keys are created
    const YAML::Node device_node = m["storage"]["device"];
    const std::string device = device_node ? device_node.Scalar() : "";
    const std::string kind = m["storage"]["kind"] ? m["storage"]["kind"].Scalar() : "";
    const bool in_before = t.diskstats_before.count(device) > 0, in_after = t.diskstats_after.count(device) > 0;
    if (in_after && !in_before)
      throw InputError({before_file, 0, 0}, device, "device '" + device + "' (meta.yaml storage.device) is in diskstats_after.txt but not here");
    if (!device.empty() && kind != "tmpfs" && !in_before && !in_after)
      throw InputError(Origin{meta_file, {}}.locate("storage.device", device_node), "storage.device",
                       "'" + device + "' is not among the devices of diskstats_before.txt and diskstats_after.txt: not the device this trace ran on");
    auto data_writes = [&](const std::map<std::string, double>& status) {
      auto it = status.find("Innodb_data_writes");
      return it == status.end() ? 0.0 : it->second;
    };
    if (in_before && kind != "tmpfs") {
      const DiskStats &b = t.diskstats_before.at(device), &a = t.diskstats_after.at(device);
      const double server_writes = data_writes(t.status_after) - data_writes(t.status_before);
      if (a.writes == b.writes && a.reads == b.reads && server_writes > 0)
        throw InputError({after_file, 0, 0}, device,
                         "device '" + device + "' did no IO between the snapshots while the server wrote " + std::to_string(std::lround(server_writes)) +
                             " times (Innodb_data_writes): the snapshots are not of this run (one copied as both?)");
      // Times the block layer counts in wall-clock ms between the snapshots, taken around the run:
      // the device's busy time, and a request's mean time in it, are at most the time between them.
      // The bound is twice the run (the snapshots may be taken a little outside it; the committed
      // traces' devices were busy 2-79 % of it and a request took at most 10 ms); a time past it is an
      // edited or foreign figure, which the write-buffer fit would take as the device's await.
      const double run_s = t.sysbench.total_time_s > 0 ? t.sysbench.total_time_s : t.capture_figure("window_s");
      if (run_s > 0) {
        constexpr double kSnapshotSpanToRun = 2.0;
        const double span_ms = kSnapshotSpanToRun * run_s * 1e3;
        const auto refuse_past_span = [&](const char* what, double ms) {
          if (ms > span_ms)
            throw InputError({after_file, 0, 0}, device,
                             std::string(what) + " of " + format_significant(ms) + " ms between the snapshots, longer than twice the run (" +
                                 format_significant(run_s) + " s): not a time the device spent in this run");
        };
        refuse_past_span("device busy time (io_ticks)", static_cast<double>(a.io_ms - b.io_ms));
        const auto mean_ms = [](std::uint64_t requests, std::uint64_t ms) {
          return requests > 0 ? static_cast<double>(ms) / static_cast<double>(requests) : 0.0;
        };
        refuse_past_span("a mean read time", mean_ms(a.reads - b.reads, a.read_ms - b.read_ms));
        refuse_past_span("a mean write time", mean_ms(a.writes - b.writes, a.write_ms - b.write_ms));
        if (a.flushes && b.flushes && a.flush_ms && b.flush_ms)
          refuse_past_span("a mean flush time", mean_ms(*a.flushes - *b.flushes, *a.flush_ms - *b.flush_ms));
      }
    }
  }
  auto bursts = fs::path(dir) / "perf_sched_bursts.tsv";
  if (fs::exists(bursts)) {
    // A diagnostic file: a broken one costs its comparison, not the trace.
    try {
      const std::string text = slurp(bursts.string());
      t.cpu_bursts = parse_perf_sched_bursts(text, bursts.string());
      t.server_bursts = parse_perf_sched_bursts(text, bursts.string(), {"mariadbd", "mysqld"});
      if (text.find(":connections\trun\t") != std::string::npos)
        t.connection_bursts = parse_perf_sched_bursts(text, bursts.string(), {"mariadbd:connections", "mysqld:connections"});
      // The bursts ran on the host's cores within perf's window: more CPU than those had is an edited
      // or foreign file (the committed traces' bursts fill 76-98 % of it; 5 % over allows for bursts
      // that straddle the window's edges).
      constexpr double kStraddlingBurstsShare = 0.05;
      const double window_s = t.capture_figure("perf_sched_s");
      const double cores = t.meta["host"]["cores"].as<double>();
      const double run_s = static_cast<double>(t.cpu_bursts->count) * t.cpu_bursts->mean_us * 1e-6;
      if (!std::isnan(window_s) && run_s > window_s * cores * (1 + kStraddlingBurstsShare))
        throw InputError({bursts.string(), 0, 0}, "count/mean_us",
                         "the bursts ran " + format_significant(run_s) + " s of CPU, more than the host's " + format_significant(cores) +
                             " cores had in capture.perf_sched_s (" + format_significant(window_s) + " s)");
    } catch (const InputError& e) {
      t.cpu_bursts.reset();
      t.server_bursts.reset();
      t.connection_bursts.reset();
      std::fprintf(stderr, "poolsim: warning: %s (the trace's CPU bursts are left out)\n", e.what());
    }
  }
  auto threads = fs::path(dir) / "perf_sched_timehist.tsv";
  if (fs::exists(threads)) {
    try {
      t.server_threads = parse_perf_sched_threads(slurp(threads.string()), threads.string(), t.meta["workload"]["threads"].as<int>());
    } catch (const InputError& e) {
      std::fprintf(stderr, "poolsim: warning: %s (the trace's per-thread CPU is left out)\n", e.what());
    }
  }
  auto fio_dir = fs::path(dir) / "fio";
  if (fs::is_directory(fio_dir)) {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(fio_dir))
      if (e.path().extension() == ".json") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) t.fio.push_back(parse_fio_json(slurp(f.string()), f.string()));
    // A buffered job (direct=0) measured the OS page cache: its reads hit memory and its writes
    // returned before the device had them, and calibrate would fit a device from them. Only tmpfs,
    // which has no O_DIRECT (and no device behind it), is measured buffered (capture.py's choice).
    // A buffered job that syncs each write is the device's in its sync latency (the sync writes the
    // page and flushes): calibrate takes that figure only.
    const std::string kind = t.meta["storage"]["kind"].Scalar();
    for (const auto& f : t.fio)
      if (!f.direct && !f.syncs && kind != "tmpfs")
        throw InputError({f.file, 0, 0}, "job options.direct",
                         "the job ran buffered (direct=0: the OS page cache's figures), but meta.yaml's storage.kind is " + kind +
                             ": a device is measured with direct=1 (only tmpfs, which has no O_DIRECT, is measured buffered)");
  }
  return t;
}

}  // namespace poolsim
