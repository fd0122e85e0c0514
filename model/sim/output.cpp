#include "sim/output.h"

#include <algorithm>
#include <cstdio>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>

namespace poolsim {

namespace {

struct Column {
  std::string header;
  std::string pointer;  // JSON pointer into a point
  int precision;
};

std::vector<Column> columns_for(const nlohmann::ordered_json& point) {
  std::vector<Column> columns;
  for (auto& [key, value] : point["params"].items()) columns.push_back({key, "/params/" + key, -1});
  if (point.contains("tps")) {
    columns.push_back({"tps", "/tps", 1});
    columns.push_back({"+-ci95", "/ci95/tps", 1});
    columns.push_back({"qps", "/qps", 0});
    columns.push_back({"mean_ms", "/latency_ms/mean", 2});
    columns.push_back({"p95_ms", "/latency_ms/p95", 2});
    columns.push_back({"p99_ms", "/latency_ms/p99", 2});
    columns.push_back({"hit%", "/innodb/0/hit_ratio", -2});
    columns.push_back({"reads/txn", "/innodb/0/page_reads_per_txn", 2});
  }
  if (point.contains("ops_per_s")) {  // business operations (workload kind ndb)
    columns.push_back({"ops_per_s", "/ops_per_s", 0});
    columns.push_back({"+-ci95", "/ci95/ops_per_s", 0});
    columns.push_back({"mean_ms", "/latency_ms/mean", 2});
    columns.push_back({"p95_ms", "/latency_ms/p95", 2});
    if (point.contains("operations") && point["operations"].is_array())
      for (size_t i = 0; i < point["operations"].size(); ++i)
        columns.push_back({point["operations"][i].value("name", "op") + "_ms", "/operations/" + std::to_string(i) + "/mean_ms", 2});
  }
  if (point.contains("iops")) {
    columns.push_back({"iops", "/iops", 0});
    columns.push_back({"+-ci95", "/iops_ci95", 0});
    columns.push_back({"MB/s", "/throughput_MBps", 1});
    columns.push_back({"lat_mean_us", "/latency_us/mean", 1});
    columns.push_back({"p95_us", "/latency_us/p95", 1});
    columns.push_back({"p99_us", "/latency_us/p99", 1});
  }
  return columns;
}

std::string cell(const nlohmann::ordered_json& point, const Column& c) {
  auto ptr = nlohmann::ordered_json::json_pointer(c.pointer);
  if (!point.contains(ptr)) return "";
  const auto& v = point.at(ptr);
  if (v.is_number() && c.precision == -2) {  // a ratio shown as a percentage
    std::ostringstream out;
    out << std::fixed << std::setprecision(2) << 100 * v.get<double>();
    return out.str();
  }
  if (v.is_number() && c.precision >= 0) {
    std::ostringstream out;
    out << std::fixed << std::setprecision(c.precision) << v.get<double>();
    return out.str();
  }
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "";  // not measured (an operation type with no completion)
  return v.dump();
}

// Summary columns added after the per-workload ones: busiest device, link and CPU, and which
// resource is the busiest of all.
void add_resource_columns(const nlohmann::ordered_json& point, std::vector<std::string>& headers,
                          std::vector<std::string>& cells) {
  auto busiest = [&](const char* key) {
    double best = 0;
    if (point.contains(key))
      for (const auto& r : point[key]) best = std::max(best, r.value("utilisation", 0.0));
    std::ostringstream out;
    out << std::fixed << std::setprecision(1) << 100 * best;
    return out.str();
  };
  headers.insert(headers.end(), {"dev_util%", "link_util%", "cpu_util%", "bottleneck"});
  std::string bottleneck = point.contains("bottleneck") && point["bottleneck"].is_object()
                               ? point["bottleneck"]["kind"].get<std::string>() + " " + point["bottleneck"]["resource"].get<std::string>()
                               : "";
  cells.insert(cells.end(), {busiest("devices"), busiest("links"), busiest("cpus"), bottleneck});
}

// Under a sweep over storage.kind with both `local` and `pool` (the main job's question, seed S000):
// for each setting of the other parameters, the pool's TPS, p95 and p99 against local's, in %.
std::vector<std::vector<std::string>> storage_comparison(const std::vector<nlohmann::ordered_json>& points) {
  const std::string axis = "storage.kind";
  auto others = [&](const nlohmann::ordered_json& p) {
    nlohmann::ordered_json rest = p["params"];
    rest.erase(axis);
    return rest;
  };
  auto measured = [](const nlohmann::ordered_json& p) { return !p.contains("error") && p.contains("tps") && p.contains("params"); };
  auto change = [](double pool_value, double local_value) {
    std::ostringstream out;
    out << std::showpos << std::fixed << std::setprecision(1) << (local_value > 0 ? 100 * (pool_value / local_value - 1) : 0.0);
    return out.str();
  };
  std::vector<std::vector<std::string>> rows;
  for (const auto& local : points) {
    if (!measured(local) || local["params"].value(axis, "") != "local") continue;
    const auto rest = others(local);
    for (const auto& pool : points) {
      if (!measured(pool) || pool["params"].value(axis, "") != "pool" || others(pool) != rest) continue;
      if (rows.empty()) {  // the headers: the other parameters' names, then the figures
        rows.emplace_back();
        for (auto& [key, value] : rest.items()) rows.back().push_back(key);
        for (const char* h : {"tps %", "p95 %", "p99 %"}) rows.back().push_back(h);
      }
      std::vector<std::string> row;
      for (auto& [key, value] : rest.items()) row.push_back(value.is_string() ? value.get<std::string>() : value.dump());
      row.push_back(change(pool["tps"].get<double>(), local["tps"].get<double>()));
      row.push_back(change(pool["latency_ms"]["p95"].get<double>(), local["latency_ms"]["p95"].get<double>()));
      row.push_back(change(pool["latency_ms"]["p99"].get<double>(), local["latency_ms"]["p99"].get<double>()));
      rows.push_back(row);
      break;
    }
  }
  return rows;
}

// Columns right-aligned to their widest cell, two spaces apart.
void write_aligned(std::ostringstream& out, const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width;
  for (const auto& r : rows) {
    if (width.size() < r.size()) width.resize(r.size(), 0);
    for (size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  }
  for (const auto& r : rows) {
    for (size_t i = 0; i < r.size(); ++i) out << (i ? "  " : "") << std::setw(static_cast<int>(width[i])) << r[i];
    out << "\n";
  }
}

}  // namespace

std::string render(const std::vector<nlohmann::ordered_json>& points, OutputFormat format) {
  if (format == OutputFormat::Json) {
    nlohmann::ordered_json doc;
    doc["points"] = points;
    return doc.dump(2) + "\n";
  }
  // Points may have different columns (a failed point, variants with other operation types): the
  // headers are their union, each point's in its own order, and every cell goes under its own header.
  std::vector<std::string> headers;
  std::vector<std::map<std::string, std::string>> cells_by_header;
  for (const auto& p : points) {
    auto columns = columns_for(p);
    std::vector<std::string> h, r;
    for (const auto& c : columns) {
      h.push_back(c.header);
      r.push_back(cell(p, c));
    }
    if (p.contains("error")) {
      h.push_back("error");
      r.push_back(p["error"].get<std::string>());
    } else {
      add_resource_columns(p, h, r);
    }
    size_t insert_at = 0;
    for (const auto& header : h) {
      auto found = std::find(headers.begin(), headers.end(), header);
      if (found == headers.end())  // a failed point's error goes last, after every figure
        found = header == "error" ? headers.insert(headers.end(), header)
                                  : headers.insert(headers.begin() + static_cast<std::ptrdiff_t>(insert_at), header);
      insert_at = static_cast<size_t>(found - headers.begin()) + 1;
    }
    cells_by_header.emplace_back();
    for (size_t i = 0; i < h.size(); ++i) cells_by_header.back().emplace(h[i], r[i]);
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& cells : cells_by_header) {
    rows.emplace_back();
    for (const auto& header : headers) {
      auto c = cells.find(header);
      rows.back().push_back(c == cells.end() ? std::string() : c->second);
    }
  }
  std::ostringstream out;
  if (format == OutputFormat::Csv) {
    auto quote = [](const std::string& s) {
      if (s.find_first_of(",\"\n") == std::string::npos) return s;
      std::string q = "\"";
      for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
      return q + "\"";
    };
    for (size_t i = 0; i < headers.size(); ++i) out << (i ? "," : "") << quote(headers[i]);
    out << "\n";
    for (const auto& r : rows) {
      for (size_t i = 0; i < r.size(); ++i) out << (i ? "," : "") << quote(r[i]);
      out << "\n";
    }
    return out.str();
  }
  rows.insert(rows.begin(), headers);
  write_aligned(out, rows);
  auto comparison = storage_comparison(points);
  if (!comparison.empty()) {
    out << "\npool vs local (the same other parameters):\n";
    write_aligned(out, comparison);
  }
  return out.str();
}

namespace {
std::string write_failure(const std::string& what, int error) {
  return "cannot write " + what + (error ? ": " + std::string(std::strerror(error)) : std::string());
}

// Where `path`'s text goes: the file itself, or the file a symbolic link names (a rename would
// replace the link). Empty `tmp` for a device or a FIFO, which is written directly.
struct StagedOutput {
  std::string path, target, tmp;
};

StagedOutput stage_output(const std::string& path, const std::string& text) {
  namespace fs = std::filesystem;
  std::error_code ec;  // a path that does not exist yet is the usual case, not an error
  fs::path target = path;
  if (fs::is_symlink(fs::symlink_status(path, ec))) {
    // The file the link names, relative to the link's directory (it may not exist yet).
    const fs::path link = fs::read_symlink(path, ec);
    if (!ec) target = fs::weakly_canonical(link.is_absolute() ? link : fs::path(path).parent_path() / link, ec);
    if (ec) throw std::runtime_error(write_failure("'" + path + "'", ec.value()));
  }
  const fs::file_status status = fs::status(target, ec);
  if (fs::is_directory(status)) throw std::runtime_error("cannot write '" + path + "': it is a directory");
  if (fs::exists(status) && !fs::is_regular_file(status)) return {path, target.string(), ""};
  // Whole or not at all: a temporary file beside the target, renamed onto it once complete.
  const std::string tmp = target.string() + ".tmp-poolsim";
  std::ofstream out(tmp, std::ios::binary);
  if (!out) throw std::runtime_error(write_failure("'" + path + "'", errno));
  out << text;
  if (!out.flush()) {
    const int error = errno;
    out.close();
    std::remove(tmp.c_str());
    throw std::runtime_error(write_failure("'" + path + "'", error));
  }
  return {path, target.string(), tmp};
}

void commit_output(const StagedOutput& staged, const std::string& text) {
  if (staged.tmp.empty()) {
    // A device or a FIFO (/dev/null, a pipe to another program) cannot be replaced whole: the text
    // goes to it directly, and a failed write is an error.
    std::ofstream out(staged.target, std::ios::binary);
    if (!out || !(out << text) || !out.flush()) throw std::runtime_error(write_failure("'" + staged.path + "'", errno));
    return;
  }
  if (std::rename(staged.tmp.c_str(), staged.target.c_str()) != 0) {
    const int error = errno;
    std::remove(staged.tmp.c_str());
    throw std::runtime_error(write_failure("'" + staged.path + "'", error));
  }
}
}  // namespace

void write_output(const std::string& path, const std::string& text) {
  if (path.empty()) {
    std::cout << text << std::flush;
    if (!std::cout) throw std::runtime_error(write_failure("to standard output", errno));
    return;
  }
  commit_output(stage_output(path, text), text);
}

void write_outputs(const std::vector<std::pair<std::string, std::string>>& files) {
  // Every file complete beside its target before any replaces its target.
  std::vector<StagedOutput> staged;
  try {
    for (const auto& [path, text] : files) staged.push_back(stage_output(path, text));
  } catch (...) {
    for (const auto& s : staged)
      if (!s.tmp.empty()) std::remove(s.tmp.c_str());
    throw;
  }
  for (std::size_t i = 0; i < staged.size(); ++i) commit_output(staged[i], files[i].second);
}

}  // namespace poolsim
