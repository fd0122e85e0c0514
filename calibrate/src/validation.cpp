#include "validation.h"


#include <algorithm>
#include <cstdio>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "calibration.h"
#include "core/errors.h"
#include "core/input_file.h"
#include "core/utf8.h"
#include "core/temp_directory.h"
#include "scenario/scenario.h"
#include "sim/output.h"
#include "sim/simulation.h"
#include "sim/statistics.h"
#include "trace.h"

namespace poolsim {
namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string devices_for(const ValidationOptions& o) {
  if (!o.devices.empty() || o.profile.empty()) return o.devices;
  std::string guess = devices_file_for(o.profile);
  return std::filesystem::exists(guess) ? guess : std::string();
}

// A figure a table or trace can measure, and where a point's result holds the prediction.
struct Figure {
  const char* name;
  const char* pointer;
};
constexpr Figure kFigures[] = {{"tps", "/tps"},           {"qps", "/qps"},
                               {"mean_ms", "/latency_ms/mean"}, {"p95_ms", "/latency_ms/p95"},
                               {"p99_ms", "/latency_ms/p99"},   {"ops_per_s", "/ops_per_s"}};

const Figure* find_figure(const std::string& name) {
  for (const auto& f : kFigures)
    if (name == f.name) return &f;
  return nullptr;
}

// The figures a point of this workload kind reports (simulation.cpp: a database reports tps and qps,
// an NDB cluster business operations, fio iops and latency_us, which no table figure is).
std::vector<std::string> figures_reported(const std::string& kind) {
  if (kind == "sysbench") return {"tps", "qps", "mean_ms", "p95_ms", "p99_ms"};
  if (kind == "ndb") return {"ops_per_s", "mean_ms", "p95_ms", "p99_ms"};
  return {};
}

std::vector<std::string> figure_names() {
  std::vector<std::string> out;
  for (const auto& f : kFigures) out.push_back(f.name);
  return out;
}

// Fills predicted and error_pct for every measured figure of a row.
void compare(nlohmann::ordered_json& row, const nlohmann::ordered_json& result) {
  const nlohmann::ordered_json measured = row["measured"];  // a copy: adding keys to `row` moves its members
  row["predicted"] = nlohmann::ordered_json::object();
  row["error_pct"] = nlohmann::ordered_json::object();
  for (auto it = measured.begin(); it != measured.end(); ++it) {
    const Figure* f = find_figure(it.key());
    nlohmann::json::json_pointer ptr(f->pointer);
    if (!result.contains(ptr)) throw std::runtime_error("the simulation reports no '" + it.key() + "'");
    // A point that completed nothing has no latency (its empty histogram reads 0): not compared.
    const bool latency = it.key() != "tps" && it.key() != "qps" && it.key() != "ops_per_s";
    const bool nothing_completed = (result.contains("transactions") && result["transactions"] == 0) ||
                                   (result.contains("business_operations") && result["business_operations"] == 0);
    if (latency && nothing_completed) {
      row["predicted"][it.key()] = nullptr;
      row["error_pct"][it.key()] = nullptr;
      continue;
    }
    double predicted = result.at(ptr).get<double>(), measured = it.value().get<double>();
    row["predicted"][it.key()] = predicted;
    row["error_pct"][it.key()] = 100 * (predicted - measured) / measured;
  }
  if (result.contains("ci95") && result["ci95"].contains("tps")) row["predicted"]["tps_ci95"] = result["ci95"]["tps"];
}

// A point that completed nothing within a --duration that cut its run short is no prediction: its
// -100 % TPS error is the window's, not the model's.
void refuse_a_duration_that_completed_nothing(const nlohmann::ordered_json& result, double duration_s, const std::string& what) {
  const bool nothing_completed = (result.contains("transactions") && result["transactions"] == 0) ||
                                 (result.contains("business_operations") && result["business_operations"] == 0);
  if (!nothing_completed || !(duration_s > 0)) return;
  std::ostringstream message;
  message << "no transaction of " << what << " completed in the " << duration_s
          << " s that --duration allows (the point's warm-up and first batch come first): give a longer --duration";
  throw InputError({"--duration", 0, 0}, "duration", message.str());
}

// The half-width of a 95 % confidence interval of a run's mean TPS from its interval lines (each a
// batch mean; at least 3), or nothing when the log has too few.
std::optional<double> interval_tps_ci95(const SysbenchResult& log) {
  if (log.intervals.size() < 3) return std::nullopt;
  BatchMeans batches;  // the simulator's own estimator, on the measured series
  for (const auto& i : log.intervals) batches.add(i.tps);
  return batches.estimate(0.95).half_width;
}

// The 95 % interval of a row's TPS error, from the measured and the predicted intervals together (the
// two runs are independent; the delta method for the ratio predicted / measured), in points of error.
void add_error_interval(nlohmann::ordered_json& row) {
  const auto& m = row["measured"];
  const auto& p = row["predicted"];
  if (!m.contains("tps_ci95") || !p.contains("tps_ci95") || !(m["tps"].get<double>() > 0) || !(p["tps"].get<double>() > 0)) return;
  const double measured = m["tps"].get<double>(), predicted = p["tps"].get<double>();
  const double rel_m = m["tps_ci95"].get<double>() / measured, rel_p = p["tps_ci95"].get<double>() / predicted;
  row["error_ci95_pct"] = {{"tps", 100 * predicted / measured * std::sqrt(rel_m * rel_m + rel_p * rel_p)}};
}

nlohmann::ordered_json summarise(const nlohmann::ordered_json& rows) {
  std::map<std::string, std::vector<double>> errors;
  std::vector<std::string> order;
  size_t compared = 0, skipped = 0;
  for (const auto& row : rows) {
    if (row.contains("skipped")) {
      ++skipped;
      continue;
    }
    ++compared;
    for (auto it = row["error_pct"].begin(); it != row["error_pct"].end(); ++it) {
      if (it.value().is_null()) continue;  // not predicted (nothing completed)
      if (!errors.count(it.key())) order.push_back(it.key());
      errors[it.key()].push_back(std::fabs(it.value().get<double>()));
    }
  }
  nlohmann::ordered_json med = nlohmann::ordered_json::object(), max = nlohmann::ordered_json::object();
  for (const auto& k : order) {
    med[k] = median(errors[k]);
    max[k] = *std::max_element(errors[k].begin(), errors[k].end());
  }
  nlohmann::ordered_json out = {{"median_abs_error_pct", med}, {"max_abs_error_pct", max}, {"rows_compared", compared}, {"rows_skipped", skipped}};
  // The measurements' own TPS uncertainty, in % of their TPS, where the traces give it.
  std::vector<double> ci_pct;
  for (const auto& row : rows)
    if (!row.contains("skipped") && row["measured"].contains("tps_ci95") && row["measured"]["tps"].get<double>() > 0)
      ci_pct.push_back(100 * row["measured"]["tps_ci95"].get<double>() / row["measured"]["tps"].get<double>());
  if (!ci_pct.empty())
    out["measured_tps_ci95_pct"] = {{"median", median(ci_pct)}, {"max", *std::max_element(ci_pct.begin(), ci_pct.end())},
                                    {"rows", ci_pct.size()}};
  // How many TPS errors the two runs' noise does not explain.
  size_t with_interval = 0, beyond = 0;
  for (const auto& row : rows)
    if (!row.contains("skipped") && row.contains("error_ci95_pct")) {
      ++with_interval;
      beyond += std::fabs(row["error_pct"]["tps"].get<double>()) > row["error_ci95_pct"]["tps"].get<double>();
    }
  if (with_interval > 0) out["tps_errors_beyond_ci95"] = {{"rows", with_interval}, {"beyond", beyond}};
  return out;
}

// ---------------------------------------------------------------- CSV (RFC 4180: quotes, "" escapes)

struct CsvTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<int> lines;  // the line each row starts on
};

CsvTable read_csv(const std::string& path) {
  std::string text = read_input_text(path, {path, 0, 0}, "");
  // A spreadsheet's UTF-8 byte order mark would become part of the first column's name.
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);
  // Cells reach the JSON output (`columns`), which must be UTF-8: refused here, before simulating.
  require_utf8(text, path);
  CsvTable table;
  std::vector<std::string> record;
  std::string field;
  bool quoted = false, in_quotes = false, any = false;
  int line = 1, record_line = 1;
  auto end_record = [&]() {
    record.push_back(field);
    bool blank = record.size() == 1 && record[0].empty() && !quoted;
    if (!blank) {
      if (table.header.empty()) {
        table.header = record;
        // A column named twice: only one of them would be read, and which is not visible.
        std::set<std::string> names;
        for (const auto& name : table.header)
          if (!names.insert(name).second)
            throw InputError({path, record_line, 0}, name, "column '" + name + "' appears twice in the header");
      } else {
        if (record.size() != table.header.size())
          throw InputError({path, record_line, 0}, "",
                           "row has " + std::to_string(record.size()) + " fields, the header has " +
                               std::to_string(table.header.size()));
        table.rows.push_back(record);
        table.lines.push_back(record_line);
      }
    }
    record.clear();
    field.clear();
    quoted = false;
    any = false;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_quotes) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        in_quotes = false;
      } else {
        if (c == '\n') ++line;
        field += c;
      }
      continue;
    }
    if (c == '"' && field.empty()) {
      in_quotes = quoted = any = true;
    } else if (c == ',') {
      record.push_back(field);
      field.clear();
      quoted = false;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      end_record();
      record_line = ++line;
    } else {
      field += c;
      any = true;
    }
  }
  if (in_quotes) throw InputError({path, record_line, 0}, "", "unterminated quoted field");
  if (any || !record.empty()) end_record();
  if (table.header.empty()) throw InputError({path, 1, 0}, "", "the table is empty (no header)");
  return table;
}

// A cell mapped to a key is read as YAML, which drops what follows " #" as a comment (and an anchor
// or tag before the value): "4 # x" set 4. A cell must read as itself.
void require_one_value(const std::string& cell, const std::string& path, int line, const std::string& column) {
  YAML::Node node;
  try {
    node = YAML::Load(cell);
  } catch (const YAML::Exception&) {
    return;  // the scenario's load names it at this line
  }
  const std::size_t first = cell.find_first_not_of(" \t"), last = cell.find_last_not_of(" \t");
  const std::string trimmed = first == std::string::npos ? std::string() : cell.substr(first, last - first + 1);
  if (node.IsScalar() && node.Scalar() != trimmed)
    throw InputError({path, line, 0}, column, "'" + cell + "' is not one value: YAML reads it as '" + node.Scalar() +
                                                  "' (a comment, anchor, tag or quotes around it); write the value alone");
}

double parse_measured(const std::string& text, const std::string& path, int line, const std::string& column) {
  try {
    size_t used = 0;
    double v = std::stod(text, &used);
    // A decimal figure: stod would also read hexadecimal ("0x258" as 600), which no table means.
    const bool hex = text.find_first_of("xX") != std::string::npos;
    if (!hex && used == text.size() && std::isfinite(v) && v > 0) return v;
  } catch (const std::exception&) {
  }
  throw InputError({path, line, 0}, column, "expected a positive number, got '" + text + "'");
}

}  // namespace

// The trace's measured device awaits: /proc/diskstats of its storage.device, else the iostat mean
// of its RAID members (r_await, w_await; iostat has no flush await).
static std::optional<DeviceAwait> measured_await(const Trace& t) {
  const auto& storage = t.meta["storage"];
  if (storage["device"] && storage["device"].IsScalar())
    if (auto d = t.device_await(storage["device"].Scalar())) return d;
  if (!t.iostat || !storage["members"] || !storage["members"].IsSequence() || storage["members"].size() == 0) return std::nullopt;
  auto mean = t.iostat->run_mean();
  double r = 0, w = 0;
  int n = 0;
  for (const auto& m : storage["members"]) {
    auto dev = mean.devices.find(m.Scalar());
    if (dev == mean.devices.end() || !dev->second.count("r_await") || !dev->second.count("w_await")) return std::nullopt;
    r += dev->second.at("r_await");
    w += dev->second.at("w_await");
    ++n;
  }
  DeviceAwait d;
  d.read_s = r / n * 1e-3;
  d.write_s = w / n * 1e-3;
  return d;
}

std::string remeasured_devices_yaml(const std::vector<Trace>& traces, const std::string& devices_file,
                                    const std::set<std::string>& skip) {
  YAML::Node fitted;
  if (!devices_file.empty()) fitted = parse_yaml(read_file(devices_file, {devices_file, 0, 0}, "--devices"), devices_file);
  std::set<std::string> done = skip;
  std::string out;
  for (const auto& t : traces) {
    std::string name = device_name_for(t);
    if (t.fio.empty() || !done.insert(name).second) continue;
    YAML::Node entry = YAML::Load(device_yaml_from_fio(t, 0.0))[name];
    if (!entry) continue;
    if (fitted && fitted[name])
      for (auto it = fitted[name].begin(); it != fitted[name].end(); ++it)
        if (it->first.Scalar().rfind("host_cpu_", 0) == 0) entry[it->first.Scalar()] = it->second;
    entry["description"] = "re-measured by " + std::filesystem::path(t.dir).filename().string() +
                           "/fio, the profile's fitted host CPU kept";
    YAML::Node doc;
    doc[name] = entry;
    YAML::Emitter e;
    e << doc;
    out += std::string(e.c_str()) + "\n";
  }
  return out;
}


nlohmann::ordered_json validate_traces(const std::vector<std::string>& dirs, const ValidationOptions& options) {
  if (options.profile.empty()) throw InputError({"--profile", 0, 0}, "profile", "validating traces needs a profile");
  std::string devices = devices_for(options);
  std::vector<Trace> traces;
  for (const auto& d : dirs) traces.push_back(load_trace(d));
  // Devices the profile's catalogue lacks (a device the fit never saw) come from the trace's own fio
  // jobs, with no fitted host CPU: the device hold-out.
  std::vector<std::string> catalogues;
  if (!devices.empty()) catalogues.push_back(std::filesystem::absolute(devices).string());
  auto known = load_device_catalogue(catalogues);
  std::string unseen;
  std::set<std::string> added;
  if (devices.empty())
    std::fprintf(stderr, "poolsim validate: note: no device catalogue beside the profile (%s) and no --devices\n",
                 devices_file_for(options.profile).c_str());
  for (const auto& t : traces) {
    std::string name = device_name_for(t);
    if (!known.count(name) && added.insert(name).second) {
      // Said aloud: a device missing by mistake (a wrong --devices) would otherwise pass for the
      // device hold-out, with other figures and no fitted host CPU.
      std::fprintf(stderr,
                   "poolsim validate: note: device '%s' is not in %s: its figures come from the trace (its fio jobs, or the catalogue model its meta.yaml names), "
                   "without a fitted host CPU (a device the profile never saw; the name is the trace's set and storage kind: "
                   "the directory that holds the trace, or meta.yaml's capture.trace_set)\n",
                   name.c_str(), devices.empty() ? "the built-in catalogue" : devices.c_str());
      unseen += device_yaml_for(t, 0.0);
    }
  }
  if (options.remeasured_devices) {
    // The re-measured entries replace the profile's of the same name: one scratch catalogue holds
    // the profile's devices with them (a catalogue may define a device once).
    YAML::Node combined = devices.empty() ? YAML::Node(YAML::NodeType::Map)
                                          : parse_yaml(read_file(devices, {devices, 0, 0}, "--devices"), devices);
    const std::string fresh_yaml = unseen + remeasured_devices_yaml(traces, devices, added);
    const YAML::Node fresh = parse_yaml(fresh_yaml.empty() ? "{}" : fresh_yaml, "the re-measured devices");
    for (auto it = fresh.begin(); it != fresh.end(); ++it) combined[it->first.Scalar()] = it->second;
    YAML::Emitter out;
    out << combined;
    unseen = std::string(out.c_str()) + "\n";
    catalogues.clear();
  }
  std::vector<Scenario> points;
  std::vector<nlohmann::ordered_json> results;
  {
    // The unseen devices' catalogue, gone before the simulations start (the points hold the
    // catalogue they loaded): an interrupted run leaves nothing behind.
    const TempDirectory scratch("poolsim-unseen-");
    const std::string extra_devices = scratch.path() + "/devices.yaml";
    write_output(extra_devices, unseen.empty() ? "{}\n" : unseen);
    catalogues.push_back(extra_devices);
    for (size_t i = 0; i < traces.size(); ++i) {
      std::string yaml = scenario_for_trace(traces[i], std::filesystem::absolute(options.profile).string(), catalogues,
                                            options.duration_s);
      points.push_back(load_scenarios_from_text(yaml, dirs[i] + " (scenario from meta.yaml)").front());
    }
  }
  // A profile of another server (product or MAJOR.MINOR) predicts with that server's costs and
  // flushing policies: a what-if the command allows, said aloud once per server.
  std::set<std::string> told;
  for (size_t i = 0; i < traces.size(); ++i) {
    const ServerProfile& profile = points[i].profile;
    if (profile.product.empty() || profile.version.empty()) continue;
    const std::string profile_server = server_name(profile.product, profile.version);
    if (server_of(traces[i]) != profile_server && told.insert(server_of(traces[i])).second)
      std::fprintf(stderr,
                   "poolsim validate: warning: %s is a %s trace and the profile (%s) is of %s: its CPU costs and "
                   "flushing policies are the other server's\n",
                   traces[i].dir.c_str(), server_of(traces[i]).c_str(), options.profile.c_str(), profile_server.c_str());
  }
  results = run_points(points, options.jobs);
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (size_t i = 0; i < traces.size(); ++i) {
    const auto& r = results[i];
    if (r.contains("error")) throw std::runtime_error("simulating " + dirs[i] + " failed: " + r["error"].get<std::string>());
    refuse_a_duration_that_completed_nothing(r, options.duration_s, dirs[i]);
    const auto& m = traces[i].sysbench;
    nlohmann::ordered_json row = {{"trace", dirs[i]}, {"measured", {{"tps", m.tps}, {"p95_ms", m.latency_p95_ms}}}};
    if (m.latency_p99_ms) row["measured"]["p99_ms"] = *m.latency_p99_ms;
    compare(row, r);
    // How well the trace itself knows its TPS: a 95 % interval from its interval lines as batch
    // means (on a shared VM the host's speed drifts within a run; an error inside this is noise).
    if (auto ci = interval_tps_ci95(m)) row["measured"]["tps_ci95"] = *ci;
    add_error_interval(row);
    // The counters behind the figures, measured against simulated, per transaction.
    const auto& db = r["innodb"][0];
    auto counter = [&](const char* name) { return traces[i].per_txn(name).value_or(std::nan("")); };
    row["counters_per_txn"] = {
        {"page_reads", {{"measured", counter("Innodb_buffer_pool_reads")}, {"predicted", db["page_reads_per_txn"]}}},
        {"page_writes", {{"measured", counter("Innodb_pages_written")}, {"predicted", db["data_page_writes_per_txn"]}}},
        {"doublewrite_pages", {{"measured", counter("Innodb_dblwr_pages_written")}, {"predicted", db["doublewrite_pages_per_txn"]}}},
        {"fsyncs", {{"measured", counter("Innodb_data_fsyncs")}, {"predicted", db["fsyncs_per_txn"]}}},
        // The redo log's writes: one per commit group (and one per background flush).
        {"log_writes", {{"measured", counter("Innodb_log_writes")}, {"predicted", db["redo_writes_per_txn"]}}},
        {"redo_bytes", {{"measured", counter("Innodb_os_log_written")}, {"predicted", db["redo_bytes_per_txn"]}}},
        // Clean pages made dirty: the pages written plus the growth of the dirty pages over the run.
        {"pages_dirtied", {{"measured", counter("Innodb_buffer_pool_pages_flushed") + counter("Innodb_buffer_pool_pages_dirty")},
                           {"predicted", db["pages_dirtied_per_txn"]}}},
        {"pages_made_young", {{"measured", counter("Innodb_buffer_pool_pages_made_young")}, {"predicted", db["young_per_txn"]}}},
        // Threads that found no free and no clean page near the tail: once per attempt to get one
        // (buf_LRU_get_free_block: a single-page flush each, or a wait for the page cleaner).
        {"free_page_waits", {{"measured", counter("Innodb_buffer_pool_wait_free")}, {"predicted", db["free_page_attempts_per_txn"]}}}};
    // Dirty pages at the end of the run, in % of the pool's pages (what the page writes follow).
    const auto& after = traces[i].status_after;
    auto dirty = after.find("Innodb_buffer_pool_pages_dirty"), total = after.find("Innodb_buffer_pool_pages_total");
    if (dirty != after.end() && total != after.end() && total->second > 0 && db.contains("dirty_pages"))
      row["dirty_pct"] = {{"measured", 100.0 * dirty->second / total->second},
                          {"predicted", 100.0 * db["dirty_pages"].get<double>() / std::max(1.0, db["frames"].get<double>())}};
    if (auto await = measured_await(traces[i]); await && r.contains("devices") && !r["devices"].empty()) {
      // The block layer's mean await against the simulated device's (the first device of the first
      // compute node: the trace's storage), per request kind, in microseconds.
      const auto& dev = r["devices"][0];
      nlohmann::ordered_json a = nlohmann::ordered_json::object();
      auto add = [&](const char* kind, const std::optional<double>& measured_s, const char* key) {
        if (measured_s) a[kind] = {{"measured", *measured_s * 1e6}, {"predicted", dev.value(key, 0.0)}};
      };
      add("read", await->read_s, "read_await_us");
      add("write", await->write_s, "write_await_us");
      add("flush", await->flush_s, "flush_await_us");
      if (!a.empty()) row["device_await_us"] = a;
    }
    row["predicted_breakdown_ms"] = r["breakdown_ms"];
    row["predicted_cpu_utilisation"] = r["cpus"][0]["utilisation"];
    // The CPU bursts (runs between two waits) whose variability sets the run-queue waits.
    const auto& cpu = r["cpus"][0];
    double tps = r.value("tps", 0.0);
    nlohmann::ordered_json bursts = {{"predicted", {{"per_txn", tps > 0 ? cpu.value("bursts_per_s", 0.0) / tps : 0.0},
                                                    {"mean_us", cpu.value("burst_mean_us", 0.0)},
                                                    {"scv", cpu.value("burst_scv", 0.0)}}}};
    if (const auto& b = traces[i].cpu_bursts) {
      bursts["measured"] = {{"mean_us", b->mean_us}, {"scv", b->scv}};
      if (auto per_txn = traces[i].bursts_per_txn()) bursts["measured"]["per_txn"] = *per_txn;
    }
    row["cpu_bursts"] = bursts;
    if (cpu.contains("idle_wakeup_share")) row["predicted_idle_wakeup_share"] = cpu["idle_wakeup_share"];
    if (cpu.contains("core_utilisation")) row["predicted_core_utilisation"] = cpu["core_utilisation"];
    rows.push_back(row);
  }
  return {{"rows", rows}, {"summary", summarise(rows)}};
}

namespace {
// A row that selects a variant through one column and sets one of that variant's keys through
// another: the column's value would win (--set over variant) and the row be simulated at a mix
// that neither column names. Refused, as two columns setting one key are.
void check_variant_keys(const YAML::Node& variants, const std::string& table_csv, int line,
                        const std::map<std::string, std::string>& row_keys, const nlohmann::ordered_json& params) {
  const auto chooser = row_keys.find("variant");
  if (chooser == row_keys.end() || !variants || !variants.IsMap()) return;
  const std::string name = params["variant"].get<std::string>();
  const YAML::Node settings = variants[name];
  if (!settings || !settings.IsMap()) return;  // an unknown variant is load_scenarios' error
  std::vector<std::string> leaves;
  for (auto k = settings.begin(); k != settings.end(); ++k)
    for (auto& leaf : leaf_paths(k->first.Scalar(), k->second)) leaves.push_back(std::move(leaf));
  for (const auto& leaf : leaves)
    for (const auto& [key, column] : row_keys)
      if (column != chooser->second && keys_overlap(leaf, key))
        throw InputError({table_csv, line, 0}, key,
                         "column '" + column + "' sets '" + key + "', which variant '" + name + "' (column '" +
                             chooser->second + "') sets as '" + leaf + "': give each key one column");
}
}  // namespace

nlohmann::ordered_json validate_table(const std::string& scenario_file, const std::string& table_csv,
                                      const ValidationOptions& options) {
  std::vector<Override> base;
  if (!options.profile.empty()) base.push_back({"database.profile", std::filesystem::absolute(options.profile).string()});
  // The file's own point (its sweep ignored) carries the mapping in `validation:`.
  load_scenarios(scenario_file, base, false);  // validates the file, `validation:` included
  // The file's own nodes keep their line and column for errors (the document with defaults does not).
  const YAML::Node file = YAML::LoadFile(scenario_file);
  const YAML::Node mapping = file["validation"];
  const YAML::Node variants = file["variants"];
  const schema::Origin origin{scenario_file, {}};
  if (!mapping || !mapping["measured"] || mapping["measured"].size() == 0)
    throw InputError({scenario_file, 1, 1}, "validation.measured",
                     "the scenario has no `validation.measured` section naming the table's measured columns");
  CsvTable table = read_csv(table_csv);
  // A header alone validated nothing and reported an empty summary with exit 0.
  if (table.rows.empty()) throw InputError({table_csv, 1, 1}, "", "the table has no rows under its header: nothing to validate");
  auto column_index = [&](const std::string& name, const YAML::Node& where, const std::string& key) {
    auto it = std::find(table.header.begin(), table.header.end(), name);
    if (it == table.header.end())
      throw InputError(origin.locate(key, where), key,
                       "the table " + table_csv + " has no column '" + name + "'" +
                           [&] {
                             std::string s = did_you_mean(name, table.header);
                             return s.empty() ? std::string() : " (did you mean '" + s + "'?)";
                           }());
    return static_cast<size_t>(it - table.header.begin());
  };
  std::vector<std::pair<std::string, size_t>> measured;  // figure -> column
  std::map<std::string, SourceLocation> measured_where;   // figure -> its `measured` entry
  std::map<std::string, std::string> measured_by_column;  // column -> the figure it is
  for (auto it = mapping["measured"].begin(); it != mapping["measured"].end(); ++it) {
    std::string figure = it->first.Scalar(), key = "validation.measured." + figure;
    if (!find_figure(figure)) {
      std::string s = did_you_mean(figure, figure_names());
      throw InputError(origin.locate(key, it->first), key,
                       "unknown figure; expected one of tps, qps, mean_ms, p95_ms, p99_ms, ops_per_s" +
                           (s.empty() ? std::string() : " (did you mean '" + s + "'?)"));
    }
    // One measurement standing for two figures (tps and qps from one column) is a mapping mistake.
    auto [other, fresh] = measured_by_column.emplace(it->second.Scalar(), figure);
    if (!fresh)
      throw InputError(origin.locate(key, it->second), key,
                       "column '" + it->second.Scalar() + "' is already the measured " + other->second);
    measured.emplace_back(figure, column_index(it->second.Scalar(), it->second, key));
    measured_where[figure] = origin.locate(key, it->first);
  }
  struct ColumnRule {
    std::string column, key;
    size_t index;
    YAML::Node values;
  };
  std::vector<ColumnRule> rules;
  // Each scenario key is set by one column only: with two, the last would win and the row be
  // simulated at a value it was not measured at (as plans refuse a key two options set).
  std::map<std::string, std::string> key_owner;  // scenario key -> the column that sets it
  auto claim = [&](const std::string& scenario_key, const std::string& column, const YAML::Node& where, const std::string& at) {
    auto [owner, fresh] = key_owner.emplace(scenario_key, column);
    if (!fresh && owner->second != column)
      throw InputError(origin.locate(at, where), at, "'" + scenario_key + "' is already set by column '" + owner->second + "'");
  };
  if (mapping["columns"])
    for (auto it = mapping["columns"].begin(); it != mapping["columns"].end(); ++it) {
      std::string column = it->first.Scalar(), key = "validation.columns." + column;
      ColumnRule rule{column, it->second["key"] ? it->second["key"].Scalar() : std::string(),
                      column_index(column, it->first, key), it->second["values"]};
      if (rule.key.empty() == !rule.values)
        throw InputError(origin.locate(key, it->second), key, "give a column either `key` or `values`, not both or neither");
      if (measured_by_column.count(column))
        throw InputError(origin.locate(key, it->first), key,
                         "column '" + column + "' is the measured " + measured_by_column[column] + ": it cannot also set the scenario");
      std::string suggestion;
      auto check_key = [&](const std::string& path, const YAML::Node& where, const std::string& at) {
        if (has_empty_step(path) || !schema::find(scenario_schema(), path, &suggestion) || path.rfind("sweep", 0) == 0 ||
            path.rfind("validation", 0) == 0)
          throw InputError(origin.locate(at, where), at,
                           "'" + path + "' is not a scenario key" + (suggestion.empty() ? "" : " (did you mean '" + suggestion + "'?)"));
      };
      if (!rule.key.empty()) {
        check_key(rule.key, it->second["key"], key + ".key");
        claim(rule.key, column, it->second["key"], key + ".key");
      }
      if (rule.values)
        for (auto v = rule.values.begin(); v != rule.values.end(); ++v)
          for (auto k = v->second.begin(); k != v->second.end(); ++k) {
            check_key(k->first.Scalar(), k->first, key + ".values." + v->first.Scalar());
            claim(k->first.Scalar(), column, k->first, key + ".values." + v->first.Scalar() + "." + k->first.Scalar());
          }
      rules.push_back(rule);
    }
  // One point per row: the row's mapped columns become overrides of the file's point.
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  std::vector<Scenario> points;
  std::vector<size_t> point_row;
  const std::set<std::string> reserved = {"measured", "predicted", "error_pct", "skipped", "params", "line"};
  for (const auto& name : table.header)
    if (reserved.count(name)) throw InputError({table_csv, 1, 0}, name, "a column may not be named '" + name + "'");
  for (size_t r = 0; r < table.rows.size(); ++r) {
    const auto& cells = table.rows[r];
    nlohmann::ordered_json row = nlohmann::ordered_json::object();
    for (size_t c = 0; c < table.header.size(); ++c) row[table.header[c]] = cells[c];
    row["line"] = table.lines[r];
    std::vector<Override> overrides = base;
    nlohmann::ordered_json params = nlohmann::ordered_json::object();
    std::map<std::string, std::string> row_keys;  // scenario key -> the column that set it in this row
    std::string skipped;
    for (const auto& rule : rules) {
      const std::string& cell = cells[rule.index];
      if (!rule.key.empty()) {
        require_one_value(cell, table_csv, table.lines[r], rule.column);
        overrides.push_back({rule.key, cell});
        params[rule.key] = cell;
        row_keys[rule.key] = rule.column;
        continue;
      }
      YAML::Node chosen = rule.values[cell];
      if (!chosen) {
        skipped = rule.column + " '" + cell + "' is not modelled by " + scenario_file;
        break;
      }
      for (auto k = chosen.begin(); k != chosen.end(); ++k) {
        overrides.push_back({k->first.Scalar(), k->second.Scalar()});
        params[k->first.Scalar()] = k->second.Scalar();
        row_keys[k->first.Scalar()] = rule.column;
      }
    }
    if (skipped.empty()) check_variant_keys(variants, table_csv, table.lines[r], row_keys, params);
    if (!skipped.empty()) {
      row["skipped"] = skipped;
      rows.push_back(row);
      continue;
    }
    row["measured"] = nlohmann::ordered_json::object();
    for (const auto& [figure, index] : measured)  // an empty cell: the row does not publish that figure
      if (!cells[index].empty()) row["measured"][figure] = parse_measured(cells[index], table_csv, table.lines[r], table.header[index]);
    if (row["measured"].empty()) throw InputError({table_csv, table.lines[r], 0}, "", "the row has no measured figure");
    row["params"] = params;
    std::vector<Scenario> loaded;
    try {
      loaded = load_scenarios(scenario_file, overrides, false);
    } catch (const InputError& e) {
      // The scenario itself loaded above with the base overrides, so a value set from this row's
      // cells is what is wrong: name the table's line, not the override built from it, nor, for a
      // check across two keys, the scenario's line of the other key.
      if (e.where().file.rfind("--set ", 0) == 0) throw InputError({table_csv, table.lines[r], 0}, e.key(), e.detail());
      throw InputError({table_csv, table.lines[r], 0}, e.key(), refused_with_the_scenarios_settings(e));
    }
    // A figure the point's workload does not report would fail after every simulation, naming nothing.
    const auto reported = figures_reported(loaded.front().workload.kind);
    for (auto it = row["measured"].begin(); it != row["measured"].end(); ++it)
      if (std::find(reported.begin(), reported.end(), it.key()) == reported.end())
        throw InputError(measured_where[it.key()], "validation.measured." + it.key(),
                         "a " + loaded.front().workload.kind + " workload (table line " + std::to_string(table.lines[r]) +
                             ") reports no " + it.key() +
                             (reported.empty() ? std::string(" (it reports no figure a table can measure)")
                                               : " (it reports " + schema::join(reported) + ")"));
    if (options.duration_s > 0)
      loaded.front().simulation.max_duration_s = std::min(loaded.front().simulation.max_duration_s, options.duration_s);
    points.push_back(std::move(loaded.front()));
    point_row.push_back(rows.size());
    rows.push_back(row);
  }
  auto results = run_points(points, options.jobs);
  for (size_t i = 0; i < results.size(); ++i) {
    if (results[i].contains("error"))
      throw std::runtime_error("simulating " + table_csv + " line " + rows[point_row[i]]["line"].dump() +
                               " failed: " + results[i]["error"].get<std::string>());
    refuse_a_duration_that_completed_nothing(results[i], options.duration_s, table_csv + " line " + rows[point_row[i]]["line"].dump());
    compare(rows[point_row[i]], results[i]);
  }
  return {{"scenario", scenario_file}, {"table", table_csv}, {"rows", rows}, {"summary", summarise(rows)}};
}

std::string render_validation_table(const nlohmann::ordered_json& doc) {
  // Every lookup is at(): a document from elsewhere (a Validation built in Python) that lacks a key
  // throws, where operator[] on a const document read past the end (a segmentation fault).
  // The figures any row measured, in the order of kFigures.
  std::vector<std::string> figures;
  for (const auto& f : kFigures)
    for (const auto& row : doc.at("rows"))
      if (row.contains("measured") && row.at("measured").contains(f.name)) {
        figures.push_back(f.name);
        break;
      }
  auto label = [](const nlohmann::ordered_json& row) {
    // "set/trace/" names the trace "trace", as load_trace does (a trailing separator left it blank).
    if (row.contains("trace")) return std::filesystem::path(trace_path_as_named(row.at("trace").get<std::string>())).filename().string();
    std::string s;
    for (auto it = row.at("params").begin(); it != row.at("params").end(); ++it) {
      std::string v = it.value().get<std::string>();
      s += (s.empty() ? "" : " ") + v;
    }
    return s.empty() ? "line " + row.at("line").dump() : s;
  };
  // The TPS error's own 95 % interval gets a column where any row has one (traces with interval lines).
  bool error_intervals = false;
  for (const auto& row : doc.at("rows")) error_intervals = error_intervals || row.contains("error_ci95_pct");
  std::ostringstream t;
  t << std::left << std::setw(36) << (doc.contains("table") ? "row" : "trace") << std::right;
  for (const auto& f : figures) {
    t << std::setw(11) << f << std::setw(10) << "pred" << std::setw(8) << "err%";
    if (error_intervals && f == "tps") t << std::setw(7) << "+-";
  }
  t << "\n" << std::fixed << std::setprecision(1);
  for (const auto& row : doc.at("rows")) {
    if (row.contains("skipped")) {
      t << std::left << std::setw(36) << ("line " + row.at("line").dump()) << "skipped: " << row.at("skipped").get<std::string>() << "\n";
      continue;
    }
    t << std::left << std::setw(36) << label(row) << std::right;
    for (const auto& f : figures) {
      if (!row.at("measured").contains(f)) {
        t << std::setw(error_intervals && f == "tps" ? 36 : 29) << "";
        continue;
      }
      t << std::setw(11) << row.at("measured").at(f).get<double>();
      if (row.at("predicted").at(f).is_null()) t << std::setw(10) << "-" << std::setw(8) << "-";
      else t << std::setw(10) << row.at("predicted").at(f).get<double>() << std::setw(8) << row.at("error_pct").at(f).get<double>();
      if (error_intervals && f == "tps") {
        if (row.contains("error_ci95_pct")) t << std::setw(7) << row.at("error_ci95_pct").at("tps").get<double>();
        else t << std::setw(7) << "";
      }
    }
    t << "\n";
  }
  const auto& s = doc.at("summary");
  t << "median |error|:";
  for (auto it = s.at("median_abs_error_pct").begin(); it != s.at("median_abs_error_pct").end(); ++it)
    t << " " << it.key() << " " << it.value().get<double>() << " %";
  t << "; max |error|:";
  for (auto it = s.at("max_abs_error_pct").begin(); it != s.at("max_abs_error_pct").end(); ++it)
    t << " " << it.key() << " " << it.value().get<double>() << " %";
  t << " (" << s.at("rows_compared").get<size_t>() << " rows compared, " << s.at("rows_skipped").get<size_t>() << " skipped)\n";
  if (s.contains("measured_tps_ci95_pct")) {
    const auto& c = s.at("measured_tps_ci95_pct");
    t << "measured TPS, 95 % interval from the logs' interval lines: median +-" << c.at("median").get<double>() << " %, max +-"
      << c.at("max").get<double>() << " % (" << c.at("rows").get<size_t>() << " rows)\n";
  }
  if (s.contains("tps_errors_beyond_ci95")) {
    const auto& b = s.at("tps_errors_beyond_ci95");
    t << "TPS errors beyond the 95 % interval of the measured and predicted TPS together: " << b.at("beyond").get<size_t>() << " of "
      << b.at("rows").get<size_t>() << " rows\n";
  }
  return t.str();
}

std::vector<std::string> threshold_failures(const nlohmann::ordered_json& doc, const ValidationThresholds& th) {
  const auto& s = doc["summary"];
  // The throughput figure: transactions, or business operations where a table measures those.
  const char* throughput = s["median_abs_error_pct"].contains("ops_per_s") ? "ops_per_s" : "tps";
  std::vector<std::string> failures;
  auto check = [&](const std::optional<double>& gate, const char* which, const char* figure, const char* option) {
    if (!gate) return;
    const double threshold = *gate;
    // A gate with nothing to compare fails: an empty or fully skipped table must not pass it.
    if (!s[which].contains(figure) || s[which][figure].is_null()) {
      failures.push_back(std::string(option) + ": no row has a measured " + figure + " to compare");
      return;
    }
    const double error = s[which][figure].get<double>();
    if (error > threshold) {
      char line[160];
      std::snprintf(line, sizeof line, "%s: %s %s %.6g %% is above %g %%", option, which, figure, error, threshold);
      failures.emplace_back(line);
    }
  };
  check(th.max_median_tps_error_pct, "median_abs_error_pct", throughput, "--max-error");
  check(th.max_point_tps_error_pct, "max_abs_error_pct", throughput, "--max-point-error");
  check(th.max_median_p95_error_pct, "median_abs_error_pct", "p95_ms", "--max-p95-error");
  return failures;
}

}  // namespace poolsim
