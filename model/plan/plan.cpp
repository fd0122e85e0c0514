#include "plan/plan.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <iomanip>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <sstream>

#include "engine/btree.h"
#include "platform/platform.h"
#include "scenario/schema.h"
#include "workload/sysbench.h"

namespace poolsim {

using namespace schema;

namespace {

SpecPtr build_plan_schema() {
  auto option = map({{"name", required(string("Option name, shown in the results"))},
                     {"price_usd", required(real(0, std::nullopt, "Price of this option in US dollars"))},
                     {"source", required(string("Where the price comes from (list price, quote, catalogue), and its date"))},
                     {"set", map({}, "Scenario keys this option sets: {dotted.key: value}", true)}},
                    "A priced option");
  auto target = map({{"tps", quantity(Dimension::PerSecond, 0.0, std::nullopt,
                                      "Transactions per second at or above (all compute nodes together)", true)},
                     {"p99", quantity(Dimension::Seconds, 0.0, std::nullopt, "99th percentile transaction latency at or below", true)},
                     {"threads", integer(1, 100000, "Client threads per compute node to serve (sets workload.threads)")}},
                    "What a configuration must achieve (tps, p99 or both)");
  return map({{"name", string("Plan name")},
              {"description", string("What the plan asks")},
              {"scenario", required(string("Base scenario, relative to the plan: workload, database, simulation (its sweep is ignored)"))},
              {"target", required(target)},
              {"set", map({}, "Scenario keys every configuration sets: {dotted.key: value}", true)},
              {"choices", required(dict(seq(option), "Axes: name -> priced options; a configuration takes one option of each"))}});
}

// A `set:` value as the plan wrote it, for the override the scenario loader reads: a quoted scalar
// stays quoted (yaml-cpp tags it "!" and its emitter drops that), so "4" where a number belongs is
// refused as it is in the scenario file, where re-emitted plain it was taken as 4.
void emit_as_written(YAML::Emitter& out, const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      out << YAML::BeginMap;
      for (auto it = node.begin(); it != node.end(); ++it) {
        out << YAML::Key;
        emit_as_written(out, it->first);
        out << YAML::Value;
        emit_as_written(out, it->second);
      }
      out << YAML::EndMap;
      break;
    case YAML::NodeType::Sequence:
      out << YAML::BeginSeq;
      for (const auto& item : node) emit_as_written(out, item);
      out << YAML::EndSeq;
      break;
    case YAML::NodeType::Scalar:
      if (node.Tag() == "!") out << YAML::DoubleQuoted;
      out << node.Scalar();
      break;
    default:
      out << node;  // null or undefined, as before
  }
}

// Keys an option may not set: the scenario's own machinery.
bool is_reserved_key(const std::string& key) {
  return key.rfind("sweep", 0) == 0 || key.rfind("variant", 0) == 0 || key.rfind("validation", 0) == 0;
}

// Statement kinds whose first page is the primary-key leaf of a freshly drawn key. An insert
// re-inserts the row its delete just removed (sysbench 1.0.20 and 0.5), so its leaf is resident.
bool reads_fresh_leaf(StatementKind kind) {
  switch (kind) {
    case StatementKind::Begin:
    case StatementKind::Commit:
    case StatementKind::Insert: return false;
    default: return true;
  }
}

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// The resource that allows the fewest transactions per second.
void add_resource(ThroughputBound& b, const std::string& name, double tps) {
  b.resources[name] = std::isfinite(tps) ? nlohmann::ordered_json(tps) : nlohmann::ordered_json(nullptr);
  if (tps < b.tps) {
    b.tps = tps;
    b.limit = name;
  }
}

// Highest read rate of one device for pages of `bytes`: every unit busy, or the interface saturated.
double device_read_ceiling(const DeviceSpec& d, double bytes) {
  double units = d.units() / d.unit_read_service_s(bytes);
  double interface = d.read_bandwidth_Bps > 0 ? d.read_bandwidth_Bps / bytes : kInfinity;
  return std::min(units, interface);
}

// Fastest read of one page: the device's fixed delay and a unit's service, nothing queued.
double device_read_floor_s(const DeviceSpec& d, double bytes) { return d.read_delay_s() + d.unit_read_service_s(bytes); }

std::string fmt(double v, int precision = 1) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(precision) << v;
  return o.str();
}

// A price or a price per TPS as the table prints it: whole dollars when whole, cents otherwise, and
// a small ratio to 3 significant digits (fixed decimals had printed 0.45 USD as 0, and 1.35 USD over
// 2,000 TPS as 0.00).
std::string fmt_usd(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt(v, 0);
  if (std::fabs(v) >= 1) return fmt(v, 2);
  std::ostringstream o;
  o << std::setprecision(3) << v;
  return o.str();
}

}  // namespace

const schema::Spec& plan_schema() {
  static const SpecPtr spec = build_plan_schema();
  return *spec;
}

Plan load_plan_from_text(const std::string& yaml_text, const std::string& origin_name, const std::string& base_dir) {
  YAML::Node root = parse_yaml(yaml_text, origin_name);
  Origin origin{origin_name, {}};
  if (!root.IsMap()) throw InputError({origin_name, 1, 1}, "", "a plan must be a YAML mapping");
  validate(root, plan_schema(), origin);
  Plan plan;
  plan.file = origin_name;
  plan.name = root["name"] ? root["name"].Scalar() : std::filesystem::path(origin_name).stem().string();
  std::filesystem::path scenario = root["scenario"].Scalar();
  plan.scenario_file = scenario.is_absolute() ? scenario.string() : (std::filesystem::path(base_dir) / scenario).string();
  plan.scenario_where = origin.locate("scenario", root["scenario"]);
  const YAML::Node target = root["target"];
  if (target["tps"]) plan.target.min_tps = to_quantity(target["tps"], Dimension::PerSecond);
  if (target["p99"]) plan.target.max_p99_s = to_quantity(target["p99"], Dimension::Seconds);
  // Reported in milliseconds: past a double there, the JSON gave "p99_ms": null (no target) and the table "inf ms".
  if (!std::isfinite(plan.target.max_p99_s * 1e3))
    throw InputError(origin.locate("target.p99", target["p99"]), "target.p99", "'" + target["p99"].Scalar() + "' is more milliseconds than a number can hold");
  if (target["threads"]) {
    plan.target.threads = target["threads"].as<int>();
    plan.target.threads_where = origin.locate("target.threads", target["threads"]);
  }
  if (plan.target.min_tps <= 0 && plan.target.max_p99_s <= 0)
    throw InputError(origin.locate("target", target), "target", "give tps, p99 or both");

  std::map<std::string, std::string> key_owner;  // scenario key -> the axis that sets it
  if (plan.target.threads > 0) key_owner["workload.threads"] = "target.threads";
  // `set:` maps (the plan's and each option's): known scenario keys, each set by one owner only.
  auto read_sets = [&](const YAML::Node& set, const std::string& set_path, const std::string& owner_name,
                       std::vector<Override>& sets, std::vector<SourceLocation>& locations) {
    if (!set) return;
    std::vector<std::pair<std::string, std::string>> map_leaves;  // leaf -> the key of this map that writes it
    for (auto k = set.begin(); k != set.end(); ++k) {
      std::string key = k->first.Scalar(), key_path = set_path + "." + key, suggestion;
      // An empty key or step ("", "a.", "a..b") names no key: "" found the scenario's root and
      // crashed the loader, "a." was refused in the scenario file as if written there (as --set is).
      if (has_empty_step(key))
        throw InputError(origin.locate(key_path, k->first), key_path, "a key path has an empty step (a dot too many, or no key)");
      if (is_reserved_key(key))
        throw InputError(origin.locate(key_path, k->first), key_path,
                         "a plan may not set the scenario's sweep, variants or validation: each configuration is one point "
                         "(a variant's keys can be given here instead)");
      if (!find(scenario_schema(), key, &suggestion))
        throw InputError(origin.locate(key_path, k->first), key_path,
                         "sets a key the scenario does not have" + (suggestion.empty() ? std::string() : " (did you mean '" + suggestion + "'?)"));
      // Keys compare by what they write: `compute: {cores: 2}` sets compute.cores, and a key inside
      // one another sets (`storage.nodes` against `storage: {nodes: ...}`) is the same setting. Two
      // such settings were both applied, the later silently winning over the option it contradicts.
      for (const auto& leaf : leaf_paths(key, k->second)) {
        for (const auto& [other, owner] : key_owner)
          if (owner != owner_name && keys_overlap(leaf, other))
            throw InputError(origin.locate(key_path, k->first), key_path, "'" + other + "' is already set by " + owner);
        for (const auto& [other, other_key] : map_leaves)
          if (other_key != key && keys_overlap(leaf, other))
            throw InputError(origin.locate(key_path, k->first), key_path, "'" + other + "' is already set by '" + other_key + "' in this set");
        map_leaves.emplace_back(leaf, key);
      }
      for (const auto& [leaf, leaf_key] : map_leaves)
        if (leaf_key == key) key_owner[leaf] = owner_name;
      YAML::Emitter text;
      text << YAML::Flow;
      emit_as_written(text, k->second);
      sets.push_back({key, text.c_str()});
      locations.push_back(origin.locate(key_path, k->second));
    }
  };
  read_sets(root["set"], "set", "the plan's set", plan.sets, plan.set_locations);
  const YAML::Node choices = root["choices"];
  if (choices.size() == 0) throw InputError(origin.locate("choices", choices), "choices", "give at least one axis of options");
  // The dearest configuration's total: prices near 1e308 summed to inf, and every cost (and cost per
  // TPS) past it compared equal, ranked nothing and printed as "inf".
  double dearest_usd = 0;
  for (auto axis_it = choices.begin(); axis_it != choices.end(); ++axis_it) {
    PlanAxis axis;
    double axis_dearest_usd = 0;
    std::string dearest_path;
    YAML::Node dearest_price;
    axis.name = axis_it->first.Scalar();
    std::string axis_path = "choices." + axis.name;
    // The results name a configuration by its axes and options: an empty or blank name labels nothing.
    const auto blank = [](const std::string& name) { return name.find_first_not_of(" \t") == std::string::npos; };
    if (blank(axis.name)) throw InputError(origin.locate(axis_path, axis_it->first), axis_path, "an axis needs a name that is not empty");
    if (axis_it->second.size() == 0) throw InputError(origin.locate(axis_path, axis_it->second), axis_path, "an axis needs at least one option");
    std::set<std::string> names;
    for (size_t i = 0; i < axis_it->second.size(); ++i) {
      const YAML::Node o = axis_it->second[i];
      std::string path = axis_path + "[" + std::to_string(i) + "]";
      PlanOption option;
      option.name = o["name"].Scalar();
      option.where = origin.locate(path, o);
      if (blank(option.name)) throw InputError(origin.locate(path + ".name", o["name"]), path + ".name", "an option needs a name that is not empty");
      if (!names.insert(option.name).second)
        throw InputError(origin.locate(path + ".name", o["name"]), path + ".name", "option '" + option.name + "' appears twice on this axis");
      option.price_usd = o["price_usd"].as<double>();
      if (i == 0 || option.price_usd > axis_dearest_usd) {
        axis_dearest_usd = option.price_usd;
        dearest_path = path + ".price_usd";
        dearest_price = o["price_usd"];
      }
      option.source = o["source"].Scalar();
      // "axis 'NAME'": an axis named "target.threads" or "the plan's set" is not that owner.
      read_sets(o["set"], path + ".set", "axis '" + axis.name + "'", option.sets, option.set_locations);
      axis.options.push_back(std::move(option));
    }
    dearest_usd += axis_dearest_usd;
    if (!std::isfinite(dearest_usd))
      throw InputError(origin.locate(dearest_path, dearest_price), dearest_path,
                       "with this price the dearest configuration costs more than a number can hold: prices are in US dollars");
    plan.axes.push_back(std::move(axis));
  }
  // Every configuration is a scenario loaded and held in memory (a thousand took 16 s and 270 MB to
  // bound), so a product past a sweep's limit ran for hours and filled the memory before any output:
  // refused before any is loaded, as a sweep this large is.
  constexpr double kMaxConfigurations = 100000;
  double product = 1;
  for (const auto& axis : plan.axes) product *= static_cast<double>(axis.options.size());
  if (product > kMaxConfigurations)
    throw InputError(origin.locate("choices", choices), "choices",
                     "the axes make " + fmt(product, 0) + " configurations, more than " + fmt(kMaxConfigurations, 0) +
                         ": split the plan into several, or drop options the bound rules out");
  return plan;
}

Plan load_plan(const std::string& file) {
  std::string text = read_file(file, {file, 0, 0}, "");
  auto base_dir = std::filesystem::path(file).parent_path().string();
  return load_plan_from_text(text, file, base_dir.empty() ? "." : base_dir);
}

ThroughputBound throughput_bound(const Scenario& s) {
  if (s.workload.kind != "sysbench")
    throw std::invalid_argument("poolsim plan bounds sysbench workloads only (workload.kind is " + s.workload.kind + ")");
  ThroughputBound b;
  const auto& p = s.profile;
  const auto& w = s.workload;
  const double nodes = s.compute.count;
  const double page = s.database.page_bytes;
  const bool pool = s.storage.kind == "pool";

  // The statements of an event. Their kinds do not depend on the keys drawn; a few events are
  // averaged all the same, and the cheapest gives the latency floor.
  constexpr int kEvents = 16;
  SysbenchMix mix(w.sysbench);
  std::mt19937_64 rng(s.simulation.seed);
  std::vector<Statement> statements;
  double statement_cpu = 0, min_statement_cpu = kInfinity, statements_per_txn = 0, leaf_reads = 0;
  for (int e = 0; e < kEvents; ++e) {
    statements.clear();
    mix.next(rng, statements);
    double cpu = 0;
    for (const auto& st : statements) {
      cpu += p.statement_cpu_s[static_cast<int>(st.kind)];
      if (reads_fresh_leaf(st.kind)) leaf_reads += 1.0 / kEvents;
    }
    statement_cpu += cpu / kEvents;
    min_statement_cpu = std::min(min_statement_cpu, cpu);
    statements_per_txn += static_cast<double>(statements.size()) / kEvents;
  }
  const int threads = w.threads;
  const bool remote = w.clients.remote;
  // Per transaction on the compute node's cores (reference-core seconds): statements, the client
  // when it runs there, and the oversubscription term (InnodbServer::execute).
  double client_cpu = remote ? 0 : p.client_statement_cpu_s * statements_per_txn;
  double oversubscription = p.oversubscription_cpu_s * std::max(0, threads - s.compute.cores);
  double think_s = remote ? statements_per_txn * (w.clients.round_trip_s + p.client_statement_cpu_s) : 0;

  // Page reads no cache can avoid, uniform keys only. sysbench draws a table per statement group
  // and then each key uniformly; the cache at the group's start does not depend on that table, so
  // on average it holds at most frames / tables of its leaves, plus the leaves this transaction
  // itself read before. A leaf holds entries_per_leaf keys of table_size, so a fresh key finds its
  // leaf resident with probability at most (frames / tables + earlier leaf reads) x per_leaf / rows.
  // (This assumes the other threads' accesses do not depend on this thread's table.) Other key
  // distributions concentrate on hot pages: no IO bound is claimed for them.
  if (w.sysbench.rand_type == "uniform") {
    DataLayout layout(1, sysbench_table_shape(w.sysbench.table_size, page));
    double per_leaf = layout.table(0).primary.entries_per_leaf();
    // The most the pool can hold (no overhead), and with buffered data files the OS page cache's
    // pages too: a read it serves does not reach the device (InnodbServer's page cache).
    double frames = s.database.buffer_pool_bytes / page;
    if (s.database.buffered_data_files) frames += s.database.page_cache_bytes / page;
    double resident = frames / w.sysbench.tables;
    double misses = 0;
    for (int i = 0; i < static_cast<int>(std::ceil(leaf_reads)); ++i) {
      double weight = std::min(1.0, leaf_reads - i);  // the last statement may count fractionally
      double hit = std::min(1.0, (resident + i) * per_leaf / static_cast<double>(w.sysbench.table_size));
      misses += weight * (1 - hit);
    }
    b.page_reads_per_txn = misses;
  }
  const double reads = b.page_reads_per_txn;

  double checksum = s.database.checksum == "crc32" ? p.checksum_crc32_cpu_s : s.database.checksum == "innodb" ? p.checksum_innodb_cpu_s : 0;
  double io_cpu = p.page_read_cpu_s + checksum + (pool ? s.fabric.initiator_cpu_s : s.device(s.storage.device).host_cpu_per_io_s);
  double cpu = statement_cpu + client_cpu + oversubscription + reads * io_cpu;
  add_resource(b, "compute CPU", nodes * s.compute.cores * s.compute.core_speed / cpu);
  // The profile's one-thread-at-a-time section (global latches): every statement, BEGIN and COMMIT
  // included, holds it for serial_section on its server, so a server completes at most one
  // transaction per statements x serial_section (the section's utilisation is at most 1).
  if (p.serial_section_s > 0) add_resource(b, "serial section", nodes / (statements_per_txn * p.serial_section_s));

  // Storage: every page read occupies a device unit and crosses the interface; over NVMe-oF it also
  // takes the target's CPU, a storage port and the compute node's adapter.
  double read_floor_s = 0;
  if (reads > 0) {
    if (!pool) {
      const auto& d = s.device(s.storage.device);
      // A local volume striped over local_devices devices (RAID0) reads from all of them.
      const int devices = std::max(1, s.storage.local_devices);
      add_resource(b, (devices > 1 ? std::to_string(devices) + " x SSD " : "SSD ") + d.name,
                   nodes * devices * device_read_ceiling(d, page) / reads);
      read_floor_s = device_read_floor_s(d, page);
    } else {
      double device_rate = 0, target_rate = 0, port_rate = 0;
      read_floor_s = kInfinity;
      for (const auto& n : s.storage.nodes) {
        if (std::find(s.storage.volume_nodes.begin(), s.storage.volume_nodes.end(), n.name) == s.storage.volume_nodes.end()) continue;
        const auto& d = s.device(n.device);
        int used = s.storage.volume_devices_per_node > 0 ? std::min(s.storage.volume_devices_per_node, n.devices) : n.devices;
        device_rate += used * device_read_ceiling(d, page);
        target_rate += n.cores * n.core_speed / s.fabric.target_cpu_s;
        port_rate += n.ports * s.fabric.rate_Bps / page;
        read_floor_s = std::min(read_floor_s, device_read_floor_s(d, page) + s.fabric.target_cpu_s / n.core_speed);
      }
      add_resource(b, "SSDs", device_rate / reads);
      add_resource(b, "target CPU", target_rate / reads);
      add_resource(b, "storage ports", port_rate / reads);
      add_resource(b, "compute adapters", nodes * s.fabric.rate_Bps / page / reads);
      // A read crosses the route twice (command capsule there, data back).
      double route_s = 2 * s.fabric.nic_latency_s + s.fabric.switch_latency_s;
      read_floor_s += 2 * route_s;  // the initiator's CPU is in io_cpu, counted with the CPU below
    }
  }
  // Little's law for the client population: each thread's transactions take at least their own CPU
  // time, their unavoidable reads and the clients' round trips.
  double response_floor_s = (statement_cpu + client_cpu + oversubscription + reads * io_cpu) / s.compute.core_speed + reads * read_floor_s;
  add_resource(b, "client threads", nodes * threads / (response_floor_s + think_s));
  if (w.rate_tps > 0) add_resource(b, "arrival rate", nodes * w.rate_tps);
  double shortest_window_s = s.simulation.min_batches * s.simulation.batch_s;
  b.measurement_slack_tps = nodes * threads / shortest_window_s;
  // sysbench's --rate starts transactions at exponential intervals: a window's count is Poisson, and
  // its rate can exceed the mean by its noise (5 standard deviations: about one window in 3.5 million).
  constexpr double kPoissonSigmas = 5;
  if (w.rate_tps > 0) b.measurement_slack_tps += kPoissonSigmas * std::sqrt(nodes * w.rate_tps / shortest_window_s);
  // With a long-burst tail a statement's body is the rest of its mean (InnodbServer::statement_cpu):
  // most transactions, the 99th percentile's included, may meet no long burst.
  const double body_share = p.statement_cpu_tail_mean_s > 0 ? 1 - p.statement_cpu_tail_share : 1.0;
  b.latency_floor_s = (body_share * min_statement_cpu + client_cpu + oversubscription) / s.compute.core_speed + think_s;
  return b;
}

std::vector<Configuration> configurations(const Plan& plan) {
  std::vector<Configuration> out;
  std::vector<size_t> index(plan.axes.size(), 0);
  while (true) {
    Configuration c;
    c.choice = index;
    std::vector<Override> overrides;
    if (plan.target.threads > 0) overrides.push_back({"workload.threads", std::to_string(plan.target.threads)});
    overrides.insert(overrides.end(), plan.sets.begin(), plan.sets.end());
    for (size_t a = 0; a < plan.axes.size(); ++a) {
      const auto& o = plan.axes[a].options[index[a]];
      c.cost_usd += o.price_usd;
      overrides.insert(overrides.end(), o.sets.begin(), o.sets.end());
    }
    // Throws at the first value this configuration's plan sets (the plan's own `set:`, then its
    // options') whose key `match` accepts, naming it in the plan; returns when none does.
    auto throw_at_plan_value = [&](const std::function<bool(const std::string&)>& match, const std::string& detail) {
      for (size_t k = 0; k < plan.sets.size(); ++k)
        if (match(plan.sets[k].path)) throw InputError(plan.set_locations[k], "set." + plan.sets[k].path, detail);
      for (size_t a = 0; a < plan.axes.size(); ++a) {
        const auto& o = plan.axes[a].options[index[a]];
        for (size_t k = 0; k < o.sets.size(); ++k)
          if (match(o.sets[k].path))
            throw InputError(o.set_locations[k], "choices." + plan.axes[a].name + "." + o.name + ".set." + o.sets[k].path, detail);
      }
    };
    // A check across keys (io_capacity against io_capacity_max, ...) is reported at the scenario
    // file's key, but when the scenario loads alone a value the plan sets made it fail: named at that
    // value in the plan, the one override_behind finds.
    auto blame_a_plan_value = [&](const InputError& e) {
      // The values the plan sets: the overrides after target.threads' (its refusals are named apart).
      const std::vector<Override> plan_values(overrides.begin() + (plan.target.threads > 0 ? 1 : 0), overrides.end());
      const auto behind = override_behind(e, plan.scenario_file, plan_values, /*expand_sweep=*/false);
      if (!behind) return;
      const std::string path = plan_values[*behind].path;
      throw_at_plan_value([&](const std::string& p) { return p == path; },
                          refused_with_the_scenarios_settings(e));
    };
    try {
      auto points = load_scenarios(plan.scenario_file, overrides, /*expand_sweep=*/false);
      c.scenario = std::move(points.front());
    } catch (const InputError& e) {
      // A value an option sets is wrong: name the option's key in the plan, not the --set it became.
      // The scenario file itself cannot be read (missing, a directory, too large): the plan's line.
      if (e.where().file == plan.scenario_file && e.where().line == 0 && e.key().empty())
        throw InputError(plan.scenario_where, "scenario", e.detail());
      const std::string prefix = "--set ";
      if (e.where().file.rfind(prefix, 0) != 0) {
        blame_a_plan_value(e);
        throw;
      }
      std::string key = e.where().file.substr(prefix.size(), e.where().file.find('=') - prefix.size());
      // target.threads becomes workload.threads: a value the scenario refuses is the plan's line.
      if (key == "workload.threads" && plan.target.threads > 0)
        throw InputError(plan.target.threads_where, "target.threads", e.key() == key ? e.detail() : "key '" + e.key() + "': " + e.detail());
      throw_at_plan_value([&](const std::string& path) { return path == key; },
                          e.key() == key ? e.detail() : "key '" + e.key() + "': " + e.detail());
      throw;
    }
    for (size_t a = 0; a < plan.axes.size(); ++a) c.scenario.params[plan.axes[a].name] = plan.axes[a].options[index[a]].name;
    try {
      c.bound = throughput_bound(c.scenario);
    } catch (const std::invalid_argument& e) {
      // Named where the kind comes from: a key of the plan that sets it, else the scenario's line.
      auto sets_kind = [](const Override& o) {
        for (const auto& leaf : leaf_paths(o.path, YAML::Load(o.value)))
          if (leaf == "workload.kind" || leaf == "workload") return true;
        return false;
      };
      for (size_t k = 0; k < plan.sets.size(); ++k)
        if (sets_kind(plan.sets[k])) throw InputError(plan.set_locations[k], "set." + plan.sets[k].path, e.what());
      for (size_t a = 0; a < plan.axes.size(); ++a) {
        const auto& o = plan.axes[a].options[index[a]];
        for (size_t k = 0; k < o.sets.size(); ++k)
          if (sets_kind(o.sets[k]))
            throw InputError(o.set_locations[k], "choices." + plan.axes[a].name + "." + o.name + ".set." + o.sets[k].path, e.what());
      }
      SourceLocation where{plan.scenario_file, 0, 0};
      const YAML::Node& document = c.scenario.document;
      if (document["workload"] && document["workload"]["kind"] && document["workload"]["kind"].Mark().line >= 0)
        where = {plan.scenario_file, document["workload"]["kind"].Mark().line + 1, document["workload"]["kind"].Mark().column + 1};
      throw InputError(where, "workload.kind", e.what());
    }
    out.push_back(std::move(c));
    bool advanced = false;
    for (size_t axis = plan.axes.size(); axis-- > 0;) {
      if (++index[axis] < plan.axes[axis].options.size()) {
        advanced = true;
        break;
      }
      index[axis] = 0;
    }
    if (!advanced) break;
  }
  return out;
}

bool meets_target(const nlohmann::ordered_json& r, const PlanTarget& target) {
  if (r.contains("error") || !r.contains("tps")) return false;
  // A point that completed no transaction measured no latency (its histogram reads 0 ms).
  if (r.contains("transactions") && r["transactions"].get<double>() <= 0) return false;
  if (target.min_tps > 0 && r["tps"].get<double>() < target.min_tps) return false;
  if (target.max_p99_s > 0 && r["latency_ms"]["p99"].get<double>() > target.max_p99_s * 1e3) return false;
  return true;
}

nlohmann::ordered_json run_plan(const Plan& plan, const std::vector<Configuration>& configs, const PlanOptions& options,
                                const Evaluator& evaluate) {
  const auto& target = plan.target;
  std::vector<nlohmann::ordered_json> rows(configs.size());
  std::vector<size_t> survivors;
  for (size_t i = 0; i < configs.size(); ++i) {
    const auto& c = configs[i];
    auto& row = rows[i];
    row["id"] = i + 1;
    nlohmann::ordered_json choice = nlohmann::ordered_json::object();
    for (size_t a = 0; a < plan.axes.size(); ++a) choice[plan.axes[a].name] = plan.axes[a].options[c.choice[a]].name;
    row["choice"] = choice;
    row["cost_usd"] = c.cost_usd;
    row["bound"] = {{"tps", std::isfinite(c.bound.tps) ? nlohmann::ordered_json(c.bound.tps) : nlohmann::ordered_json(nullptr)},
                    {"limit", c.bound.limit},
                    {"latency_floor_ms", c.bound.latency_floor_s * 1e3},
                    {"page_reads_per_txn", c.bound.page_reads_per_txn},
                    {"measurement_slack_tps", c.bound.measurement_slack_tps},
                    {"resources", c.bound.resources}};
    std::string why;
    if (target.min_tps > 0 && c.bound.tps + c.bound.measurement_slack_tps < target.min_tps)
      why = "bound " + fmt(c.bound.tps) + " TPS (" + c.bound.limit + ") + " + fmt(c.bound.measurement_slack_tps) +
            " measurement slack < " + fmt(target.min_tps) + " TPS";
    else if (target.max_p99_s > 0 && c.bound.latency_floor_s > target.max_p99_s)
      why = "latency floor " + fmt(c.bound.latency_floor_s * 1e3, 2) + " ms > p99 target";
    if (options.prune && !why.empty()) {
      row["status"] = "pruned";
      row["why"] = why;
    } else {
      row["status"] = "not-simulated";
      survivors.push_back(i);
    }
  }
  // Cheapest first (ties in the order of the plan), so that cheapest_only can stop early.
  std::stable_sort(survivors.begin(), survivors.end(), [&](size_t a, size_t b) { return configs[a].cost_usd < configs[b].cost_usd; });
  if (!options.simulate) survivors.clear();
  size_t batch = options.cheapest_only ? static_cast<size_t>(std::max(1, options.jobs)) : survivors.size();
  size_t meeting = 0, simulated = 0;
  for (size_t start = 0; start < survivors.size(); start += batch) {
    if (options.cheapest_only && meeting >= options.top) break;
    std::vector<Scenario> points;
    size_t end = std::min(survivors.size(), start + batch);
    for (size_t k = start; k < end; ++k) points.push_back(configs[survivors[k]].scenario);
    auto results = evaluate(points);
    for (size_t k = start; k < end; ++k) {
      auto& row = rows[survivors[k]];
      auto& r = results[k - start];
      ++simulated;
      if (r.contains("error")) {
        row["status"] = "failed";
        row["why"] = r["error"];
        continue;
      }
      bool ok = meets_target(r, target);
      meeting += ok;
      double tps = r["tps"].get<double>(), tps_ci = r["ci95"]["tps"].get<double>();
      double p99 = r["latency_ms"]["p99"].get<double>(), p99_ci = r["ci95"]["latency_p99_ms"].get<double>();
      row["status"] = ok ? "meets" : "misses";
      row["tps"] = tps;
      row["tps_ci95"] = tps_ci;
      row["p99_ms"] = p99;
      row["p99_ci95_ms"] = p99_ci;
      // Meets even at the unfavourable end of both confidence intervals.
      row["meets_with_confidence"] = ok && (target.min_tps <= 0 || tps - tps_ci >= target.min_tps) &&
                                     (target.max_p99_s <= 0 || p99 + p99_ci <= target.max_p99_s * 1e3);
      row["usd_per_tps"] = tps > 0 ? nlohmann::ordered_json(configs[survivors[k]].cost_usd / tps) : nlohmann::ordered_json(nullptr);
      if (r.contains("bottleneck")) row["bottleneck"] = r["bottleneck"];
      if (r.contains("stop")) row["stop"] = r["stop"];
      nlohmann::ordered_json figures;
      for (const char* key : {"latency_ms", "breakdown_ms", "innodb", "devices", "links", "cpus", "series"})
        if (r.contains(key)) figures[key] = r[key];
      row["result"] = figures;
      // The busiest SSD's write rate against its steady-state drain rate (the write buffer's), which
      // the units' utilisation does not count: near 1 the buffer fills and writes wait.
      nlohmann::ordered_json drain = nullptr;
      if (r.contains("devices"))
        for (const auto& d : r["devices"]) {
          if (!d.contains("write_drain_utilisation")) continue;
          double use = d["write_drain_utilisation"].get<double>();
          if (use > 0 && (drain.is_null() || use > drain["utilisation"].get<double>()))
            drain = {{"device", d["name"]}, {"utilisation", use}};
        }
      if (!drain.is_null()) row["write_drain"] = drain;
    }
  }
  // The cheapest that meet the target, and the Pareto front of cost against simulated TPS.
  std::vector<size_t> order(configs.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (configs[a].cost_usd != configs[b].cost_usd) return configs[a].cost_usd < configs[b].cost_usd;
    return rows[a].value("tps", 0.0) > rows[b].value("tps", 0.0);
  });
  nlohmann::ordered_json cheapest = nlohmann::ordered_json::array(), pareto = nlohmann::ordered_json::array();
  double best_tps = -1;
  for (size_t i : order) {
    if (rows[i]["status"] == "meets" && cheapest.size() < options.top) cheapest.push_back(i + 1);
    if (rows[i].contains("tps") && rows[i]["tps"].get<double>() > best_tps) {
      best_tps = rows[i]["tps"].get<double>();
      pareto.push_back(i + 1);
    }
  }
  size_t pruned = 0;
  for (const auto& r : rows) pruned += r["status"] == "pruned";
  nlohmann::ordered_json doc;
  doc["plan"] = plan.name;
  doc["scenario"] = plan.scenario_file;
  doc["target"] = {{"tps", target.min_tps > 0 ? nlohmann::ordered_json(target.min_tps) : nlohmann::ordered_json(nullptr)},
                   {"p99_ms", target.max_p99_s > 0 ? nlohmann::ordered_json(target.max_p99_s * 1e3) : nlohmann::ordered_json(nullptr)},
                   {"threads", target.threads > 0 ? nlohmann::ordered_json(target.threads) : nlohmann::ordered_json(nullptr)}};
  doc["axes"] = nlohmann::ordered_json::array();
  for (const auto& a : plan.axes) doc["axes"].push_back(a.name);
  doc["counts"] = {{"configurations", configs.size()}, {"pruned", pruned}, {"simulated", simulated}, {"meeting", meeting}};
  doc["cheapest"] = cheapest;
  doc["pareto"] = pareto;
  doc["configurations"] = rows;
  return doc;
}

std::string render_plan_table(const nlohmann::ordered_json& doc) {
  std::ostringstream out;
  const auto& t = doc["target"];
  out << "plan " << doc["plan"].get<std::string>() << ": target";
  if (!t["tps"].is_null()) out << " tps >= " << fmt(t["tps"].get<double>());
  if (!t["p99_ms"].is_null()) out << " p99 <= " << fmt(t["p99_ms"].get<double>(), 2) << " ms";
  if (!t["threads"].is_null()) out << " at " << t["threads"].get<int>() << " threads per node";
  const auto& n = doc["counts"];
  out << "\n" << n["configurations"] << " configurations: " << n["pruned"] << " pruned by the bound, " << n["simulated"]
      << " simulated, " << n["meeting"] << " meet the target\n\n";
  std::vector<std::string> header = {"id"};
  for (const auto& a : doc["axes"]) header.push_back(a.get<std::string>());
  for (const char* h : {"cost_usd", "bound_tps", "bound_limit", "status", "tps", "+-ci95", "p99_ms", "+-ci95", "usd_per_tps", "bottleneck",
                        "write_drain"})
    header.push_back(h);
  std::vector<std::vector<std::string>> cells = {header};
  for (const auto& r : doc["configurations"]) {
    std::vector<std::string> row = {std::to_string(r["id"].get<int>())};
    for (const auto& a : doc["axes"]) row.push_back(r["choice"][a.get<std::string>()].get<std::string>());
    row.push_back(fmt_usd(r["cost_usd"].get<double>()));
    row.push_back(r["bound"]["tps"].is_null() ? "inf" : fmt(r["bound"]["tps"].get<double>()));
    row.push_back(r["bound"]["limit"].get<std::string>());
    row.push_back(r["status"].get<std::string>() + (r.value("meets_with_confidence", false) ? "*" : ""));
    bool sim = r.contains("tps");
    row.push_back(sim ? fmt(r["tps"].get<double>()) : "");
    row.push_back(sim ? fmt(r["tps_ci95"].get<double>()) : "");
    row.push_back(sim ? fmt(r["p99_ms"].get<double>(), 2) : "");
    row.push_back(sim ? fmt(r["p99_ci95_ms"].get<double>(), 2) : "");
    row.push_back(sim && !r["usd_per_tps"].is_null() ? fmt_usd(r["usd_per_tps"].get<double>()) : "");
    row.push_back(r.contains("bottleneck") ? r["bottleneck"]["kind"].get<std::string>() + " " +
                                                 fmt(100 * r["bottleneck"]["utilisation"].get<double>(), 0) + "%"
                                           : "");
    row.push_back(r.contains("write_drain") ? fmt(100 * r["write_drain"]["utilisation"].get<double>(), 0) + "%" : "");
    cells.push_back(row);
  }
  std::vector<size_t> width(header.size(), 0);
  for (const auto& row : cells)
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  for (const auto& row : cells) {
    for (size_t c = 0; c < row.size(); ++c) out << (c ? "  " : "") << std::setw(static_cast<int>(width[c])) << row[c];
    out << "\n";
  }
  auto ids = [](const nlohmann::ordered_json& list) {
    std::string s;
    for (const auto& id : list) s += (s.empty() ? "#" : ", #") + std::to_string(id.get<int>());
    return s.empty() ? std::string("none") : s;
  };
  out << "\n(* meets the target at the unfavourable end of both 95 % confidence intervals)\n";
  out << "cheapest meeting the target: " << ids(doc["cheapest"]) << "\n";
  out << "Pareto front, cost against simulated TPS: " << ids(doc["pareto"]) << "\n";
  for (const auto& r : doc["configurations"])
    if (r["status"] == "pruned" || r["status"] == "failed") out << "#" << r["id"] << " " << r["status"].get<std::string>() << ": " << r["why"].get<std::string>() << "\n";
  return out.str();
}

std::vector<nlohmann::ordered_json> bounds_of(const std::vector<Scenario>& points) {
  std::vector<nlohmann::ordered_json> rows;
  for (const auto& p : points) {
    auto b = throughput_bound(p);
    rows.push_back({{"params", p.params},
                    {"bound_tps", std::isfinite(b.tps) ? nlohmann::ordered_json(b.tps) : nlohmann::ordered_json(nullptr)},
                    {"limit", b.limit},
                    {"latency_floor_ms", b.latency_floor_s * 1e3},
                    {"page_reads_per_txn", b.page_reads_per_txn},
                    {"resources", b.resources}});
  }
  return rows;
}

std::string render_bounds_table(const std::vector<nlohmann::ordered_json>& rows) {
  std::vector<std::vector<std::string>> cells;
  std::vector<std::string> header;
  for (const auto& r : rows) {
    std::vector<std::string> h, c;
    for (const auto& [key, value] : r["params"].items()) {
      h.push_back(key);
      c.push_back(value.is_string() ? value.get<std::string>() : value.dump());
    }
    h.insert(h.end(), {"bound_tps", "limit", "reads/txn"});
    c.insert(c.end(), {r["bound_tps"].is_null() ? "inf" : fmt(r["bound_tps"].get<double>()), r["limit"].get<std::string>(),
                       fmt(r["page_reads_per_txn"].get<double>(), 2)});
    for (const auto& [name, tps] : r["resources"].items()) {
      h.push_back(name);
      c.push_back(tps.is_null() ? "inf" : fmt(tps.get<double>()));
    }
    if (header.empty()) {
      header = h;
      cells.push_back(h);
    }
    if (h != header) {  // another set of resources (local vs pool): a new header
      header = h;
      cells.push_back(h);
    }
    cells.push_back(c);
  }
  std::map<size_t, size_t> width;
  for (const auto& row : cells)
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  std::ostringstream out;
  for (const auto& row : cells) {
    for (size_t c = 0; c < row.size(); ++c) out << (c ? "  " : "") << std::setw(static_cast<int>(width[c])) << row[c];
    out << "\n";
  }
  return out.str();
}

}  // namespace poolsim
