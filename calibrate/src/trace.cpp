#include "trace.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "core/errors.h"
#include "scenario/schema.h"

namespace poolsim {

namespace fs = std::filesystem;
using namespace schema;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError({path, 0, 0}, "", "cannot read the file");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const Spec& meta_schema() {
  static const SpecPtr spec = map({
      {"engine", required(map({{"product", required(one_of({"mariadb", "mysql", "greatsql", "percona"}))},
                               {"version", required(string())}}, "", true))},
      {"workload", required(map({{"tool", with_default(string(), "sysbench")},
                                 {"version", with_default(string(), "1.0.20")},
                                 {"test", with_default(string(), "oltp_read_write")},
                                 {"tables", required(integer(1.0, 1e6))},
                                 {"table_size", required(integer(1.0, 4e9))},
                                 {"rand_type", with_default(one_of({"uniform", "special", "gaussian", "pareto", "zipfian"}), "special")},
                                 {"range_size", with_default(integer(1.0, 1e6), "100")},
                                 {"threads", required(integer(1.0, 1e6))},
                                 {"duration_s", integer(1.0, 1e7)}}, "", true))},
      {"server", required(map({{"buffer_pool", required(quantity(Dimension::Bytes, 0.0, std::nullopt, "", true))},
                               {"flush_log_at_trx_commit", with_default(integer(0.0, 2.0), "1")},
                               {"doublewrite", with_default(boolean(), "true")},
                               {"binlog", with_default(boolean(), "false")},
                               {"sync_binlog", with_default(integer(0.0, 1e9), "0")},
                               {"io_capacity", with_default(integer(1.0, 1e9), "200")},
                               {"io_capacity_max", integer(1.0, 1e9)},
                               {"log_file_size", quantity(Dimension::Bytes, 0.0, std::nullopt)},
                               {"flush_method", with_default(string(), "O_DIRECT")}}, "", true))},
      {"host", required(map({{"cores", required(integer(1.0, 1e5))}, {"memory", quantity(Dimension::Bytes, 0.0, std::nullopt)}}, "", true))},
      {"storage", required(map({{"kind", required(one_of({"nvme", "sata", "pcie-flash", "tmpfs", "virtual-disk", "nvmeof"}))},
                                {"device", string()}, {"fs", string()}}, "", true))},
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

}  // namespace

SysbenchResult parse_sysbench_log(const std::string& text, const std::string& file) {
  SysbenchResult r;
  std::istringstream in(text);
  std::string line;
  int n = 0;
  bool saw_transactions = false, saw_avg = false, saw_p95 = false;
  const std::regex interval10(R"(^\[\s*(\d+)s\s*\]\s+thds:\s*\d+\s+tps:\s*([\d.]+).*lat \(ms,(\d+)%\):\s*([\d.]+))");
  const std::regex interval05(R"(^\[\s*(\d+)s\]\s+threads:\s*\d+,\s*tps:\s*([\d.]+).*response time:\s*([\d.]+)ms \((\d+)%\))");
  const std::regex transactions(R"(^\s*transactions:\s+(\d+)\s+\(([\d.]+) per sec)");
  const std::regex queries(R"(^\s*(queries|read/write requests):\s+(\d+)\s+\(([\d.]+) per sec)");
  const std::regex count(R"(^\s*(read|write|other):\s+(\d+)\s*$)");
  const std::regex latency(R"(^\s*(min|avg|max|approx\.\s+95 percentile|95th percentile|99th percentile):\s+([\d.]+)(ms)?)");
  const std::regex total_time(R"(^\s*total time:\s+([\d.]+)s)");
  std::smatch m;
  while (std::getline(in, line)) {
    ++n;
    if (line.find("sysbench 0.5") != std::string::npos) r.version = "0.5";
    if (line.rfind("sysbench 1.", 0) == 0) r.version = "1.0";
    if (std::regex_search(line, m, interval10)) {
      r.intervals.push_back({number(m[1], file, n), number(m[2], file, n), number(m[4], file, n)});
    } else if (std::regex_search(line, m, interval05)) {
      r.intervals.push_back({number(m[1], file, n), number(m[2], file, n), number(m[3], file, n)});
    } else if (std::regex_search(line, m, transactions)) {
      r.transactions = static_cast<std::uint64_t>(number(m[1], file, n));
      r.tps = number(m[2], file, n);
      saw_transactions = true;
    } else if (std::regex_search(line, m, queries)) {
      if (m[1] == "queries") r.qps = number(m[3], file, n);
    } else if (std::regex_search(line, m, count)) {
      double v = number(m[2], file, n);
      (m[1] == "read" ? r.read_queries : m[1] == "write" ? r.write_queries : r.other_queries) = v;
    } else if (std::regex_search(line, m, latency)) {
      double v = number(m[2], file, n);
      std::string what = m[1];
      if (what == "avg") { r.latency_avg_ms = v; saw_avg = true; }
      else if (what == "max") r.latency_max_ms = v;
      else if (what.find("99") != std::string::npos) r.latency_p99_ms = v;
      else if (what.find("95") != std::string::npos) { r.latency_p95_ms = v; saw_p95 = true; }
    } else if (std::regex_search(line, m, total_time)) {
      r.total_time_s = number(m[1], file, n);
    }
  }
  if (!saw_transactions)
    throw InputError({file, n, 0}, "", "no final 'transactions:' line: the log is truncated or not sysbench output");
  if (!saw_avg || !saw_p95)
    throw InputError({file, n, 0}, "", "no latency summary (avg and 95th percentile): the log is truncated");
  if (r.qps == 0 && r.total_time_s > 0) r.qps = (r.read_queries + r.write_queries + r.other_queries) / r.total_time_s;
  if (r.version.empty()) r.version = "1.0";
  return r;
}

std::map<std::string, double> parse_status_tsv(const std::string& text, const std::string& file) {
  std::map<std::string, double> values;
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty()) continue;
    auto tab = line.find('\t');
    if (tab == std::string::npos) throw InputError({file, n, 0}, "", "expected 'name<TAB>value'");
    std::string name = line.substr(0, tab), value = line.substr(tab + 1);
    while (!value.empty() && (value.back() == '\r' || value.back() == ' ')) value.pop_back();
    char* end = nullptr;
    double v = std::strtod(value.c_str(), &end);
    if (end != value.c_str() && *end == '\0') values[name] = v;  // non-numeric status values are skipped
  }
  return values;
}

FioResult parse_fio_json(const std::string& text, const std::string& file) {
  auto doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.contains("jobs") || doc["jobs"].empty())
    throw InputError({file, 0, 0}, "", "not fio JSON output (no 'jobs')");
  const auto& job = doc["jobs"][0];
  FioResult r;
  r.file = file;
  const auto& options = job.contains("job options") ? job["job options"] : nlohmann::json::object();
  auto opt = [&](const char* key, const std::string& fallback) {
    if (options.contains(key)) return options[key].get<std::string>();
    if (doc.contains("global options") && doc["global options"].contains(key)) return doc["global options"][key].get<std::string>();
    return fallback;
  };
  r.rw = opt("rw", "randread");
  r.iodepth = std::stoi(opt("iodepth", "1"));
  std::string bs = opt("bs", "4k");
  r.block_bytes = std::stod(bs) * (bs.find_first_of("kK") != std::string::npos ? 1024 : bs.find_first_of("mM") != std::string::npos ? 1048576 : 1);
  const char* side = r.rw.find("write") != std::string::npos ? "write" : "read";
  if (!job.contains(side) || !job[side].contains("lat_ns")) throw InputError({file, 0, 0}, "", std::string("no '") + side + ".lat_ns' in the job");
  auto side_figures = [&](const char* name, double& iops, double& latency_s) {
    if (job.contains(name) && job[name].contains("lat_ns") && job[name].contains("iops")) {
      iops = job[name]["iops"].get<double>();
      latency_s = job[name]["lat_ns"]["mean"].get<double>() * 1e-9;
    }
  };
  side_figures("read", r.read_iops, r.read_latency_mean_s);
  side_figures("write", r.write_iops, r.write_latency_mean_s);
  bool write_side = std::string(side) == "write";
  r.iops = write_side ? r.write_iops : r.read_iops;
  r.latency_mean_s = write_side ? r.write_latency_mean_s : r.read_latency_mean_s;
  r.syncs = options.contains("fsync") || options.contains("fdatasync");
  if (job.contains("sync") && job["sync"].contains("lat_ns")) r.sync_latency_mean_s = job["sync"]["lat_ns"]["mean"].get<double>() * 1e-9;
  return r;
}

std::optional<double> Trace::per_txn(const std::string& counter) const {
  auto a = status_after.find(counter), b = status_before.find(counter);
  if (a == status_after.end() || b == status_before.end() || sysbench.transactions == 0) return std::nullopt;
  return (a->second - b->second) / static_cast<double>(sysbench.transactions);
}

Trace load_trace(const std::string& dir) {
  Trace t;
  t.dir = dir;
  std::string meta_file = (fs::path(dir) / "meta.yaml").string();
  YAML::Node meta;
  try {
    meta = YAML::Load(slurp(meta_file));
  } catch (const YAML::Exception& e) {
    throw InputError({meta_file, e.mark.line + 1, e.mark.column + 1}, "", "YAML syntax error: " + e.msg);
  }
  validate(meta, meta_schema(), Origin{meta_file, {}});
  t.meta = with_defaults(meta, meta_schema());
  std::string log = (fs::path(dir) / "sysbench.log").string();
  t.sysbench = parse_sysbench_log(slurp(log), log);
  for (const char* which : {"status_before.tsv", "status_after.tsv"}) {
    auto p = fs::path(dir) / which;
    if (fs::exists(p)) (std::string(which) == "status_before.tsv" ? t.status_before : t.status_after) = parse_status_tsv(slurp(p.string()), p.string());
  }
  auto fio_dir = fs::path(dir) / "fio";
  if (fs::is_directory(fio_dir)) {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(fio_dir))
      if (e.path().extension() == ".json") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) t.fio.push_back(parse_fio_json(slurp(f.string()), f.string()));
  }
  return t;
}

}  // namespace poolsim
