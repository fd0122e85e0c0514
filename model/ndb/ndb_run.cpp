#include "ndb/ndb_run.h"

#include <simgrid/s4u.hpp>

namespace poolsim {

namespace sg = simgrid::s4u;

namespace {
double now() { return sg::Engine::get_clock(); }
// Operations one thread may end at the instant they started before the loop counts as stalled:
// a mix whose costs are all zero would otherwise run at one simulated instant for ever.
constexpr int kMaxOperationsAtOneInstant = 1000;
}  // namespace

NdbRun::NdbRun(Platform& platform, Measurement& measurement, const Scenario& scenario)
    : platform_(platform), measurement_(measurement), scenario_(scenario),
      config_(parse_ndb_config(scenario.document, scenario.document, schema::Origin{scenario.file, {}})),
      mix_(parse_custom_mix(scenario.document["workload"]["mix"], scenario.document["workload"]["mix"],
                            schema::Origin{scenario.file, {}})),
      coordinator_(config_),
      types_(mix_.operations().size()) {}

void NdbRun::start() {
  auto* host = platform_.compute().front().host;  // CPUs are analytic; the actors' host is immaterial
  const auto& lg = config_.load_generator;
  for (int g = 0; g < config_.load_generators; ++g) {
    for (int i = 0; i < lg.threads; ++i) {
      auto t = std::make_unique<LoadThread>();
      t->generator = g;
      t->api = g % config_.api_nodes;
      // The application spreads its threads over its cluster connections.
      t->connection = i % config_.api_node.recv_threads;
      t->rng.seed(scenario_.simulation.seed * 1000003 + static_cast<std::uint64_t>(g) * 7919 + static_cast<std::uint64_t>(i));
      LoadThread* raw = t.get();
      threads_.push_back(std::move(t));
      sg::Actor::create("ndb-load-" + std::to_string(g) + "-" + std::to_string(i), host, [this, raw] { thread_loop(*raw); })
          ->daemonize();
    }
  }
}

void NdbRun::thread_loop(LoadThread& t) {
  const auto& lg = config_.load_generator;
  const auto& api = config_.api_node;
  std::vector<RowOp> rows, written;
  // Threads start spread over one think time plus a millisecond, not all at the same instant.
  double next_start = std::uniform_real_distribution<double>(0.0, lg.think_time_s + 1e-3)(t.rng);
  int operations_at_one_instant = 0;
  while (true) {
    if (next_start > now()) sg::this_actor::sleep_until(next_start);
    size_t type = mix_.pick(t.rng);
    const auto& op = mix_.operations()[type];
    double start = now();
    // The request reaches the application node, whose own logic runs first.
    double ready = coordinator_.api_cpu(t.api, start, start + lg.link_latency_s, api.operation_cpu_s);
    int tc_node = -1, tc_thread = 0;
    written.clear();
    StatementStats stats;
    std::int64_t remaining = op.statement_count();
    for (const auto& shape : op.statements) {
      for (int r = 0; r < shape.repeat; ++r) {
        rows.clear();
        for (int i = 0; i < shape.tables * shape.rows; ++i) rows.push_back(coordinator_.draw_row(t.rng));
        if (tc_node < 0) {
          tc_node = coordinator_.choose_tc_node(rows.front());
          tc_thread = static_cast<int>(t.rng() % static_cast<std::uint64_t>(config_.data_node.tc_threads));
        }
        if (shape.write) written.insert(written.end(), rows.begin(), rows.end());
        bool commit = --remaining == 0 && !written.empty();
        TransactionCoordinator::Statement s;
        s.api = t.api;
        s.connection = t.connection;
        s.tc_node = tc_node;
        s.tc_thread = tc_thread;
        s.write = shape.write;
        s.rows = &rows;
        s.commit_rows = commit ? &written : nullptr;
        double done = coordinator_.execute(s, now(), ready, &stats);
        sg::this_actor::sleep_until(done);  // the one wait of a statement
        ready = done;
      }
    }
    // The response travels back to the load generator.
    double end = ready + lg.link_latency_s;
    record(type, end - start, stats, op.statement_count());
    next_start = end + lg.think_time_s;
    if (next_start > start) {
      operations_at_one_instant = 0;
    } else if (++operations_at_one_instant >= kMaxOperationsAtOneInstant) {
      stalled_ = true;
      sg::this_actor::suspend();  // the point fails once the other actors have let the clock move
    }
  }
}

void NdbRun::record(size_t type, double latency_s, const StatementStats& stats, std::int64_t statements) {
  measurement_.complete(latency_s);
  if (!measurement_.measuring) return;
  auto& s = types_[type];
  ++s.count;
  s.latency.record(latency_s);
  ++s.batch_count;
  s.batch_latency.record(latency_s);
  s.statements += statements;
  s.messages += stats.messages;
}

void NdbRun::start_measuring() {
  reset_counters();
  sg::Actor::create("ndb-batches", platform_.compute().front().host, [this] { sample_batches(); })->daemonize();
}

void NdbRun::sample_batches() {
  const double batch = scenario_.simulation.batch_s;
  while (true) {
    sg::this_actor::sleep_for(batch);
    for (auto& s : types_) {
      s.rate.add(s.batch_count / batch);
      if (s.batch_latency.count() > 0) s.mean.add(s.batch_latency.mean_s());
      s.batch_count = 0;
      s.batch_latency.clear();
    }
  }
}

void NdbRun::reset_counters() {
  coordinator_.reset_counters(now());
  for (auto& s : types_) {
    s.count = s.batch_count = 0;
    s.latency.clear();
    s.batch_latency.clear();
    s.rate = BatchMeans();
    s.mean = BatchMeans();
    s.statements = s.messages = 0;
  }
}

std::vector<std::string> NdbRun::types_not_measured() const {
  std::vector<std::string> names;
  for (size_t i = 0; i < types_.size(); ++i)
    if (types_[i].count == 0) names.push_back(mix_.operations()[i].name);
  return names;
}

void NdbRun::report(nlohmann::ordered_json& out, double elapsed_s, double now_s) const {
  const double confidence = scenario_.simulation.confidence;
  auto operations = nlohmann::ordered_json::array();
  double statements = 0, messages = 0, count = 0;
  for (size_t i = 0; i < types_.size(); ++i) {
    const auto& s = types_[i];
    const auto& op = mix_.operations()[i];
    double n = static_cast<double>(s.count);
    // A type none of whose operations completed has no latency: null, not the empty histogram's 0.
    auto measured_ms = [&](double seconds) { return s.count > 0 ? nlohmann::ordered_json(seconds * 1e3) : nlohmann::ordered_json(); };
    operations.push_back({{"name", op.name},
                          {"share", mix_.share(i)},
                          {"ops_per_s", n / elapsed_s},
                          {"mean_ms", measured_ms(s.latency.mean_s())},
                          {"p95_ms", measured_ms(s.latency.quantile_s(0.95))},
                          {"p99_ms", measured_ms(s.latency.quantile_s(0.99))},
                          {"ci95", {{"ops_per_s", s.rate.estimate(confidence).half_width},
                                    {"mean_ms", s.mean.estimate(confidence).half_width * 1e3}}},
                          {"statements", op.statement_count()},
                          {"rows", op.row_count()},
                          {"messages_per_op", n > 0 ? s.messages / n : 0.0}});
    statements += s.statements;
    messages += s.messages;
    count += n;
  }
  out["operations"] = operations;
  out["statements_per_op"] = count > 0 ? statements / count : 0.0;
  out["messages_per_op"] = count > 0 ? messages / count : 0.0;
  const auto& tr = config_.transporter;
  out["ndb"] = {{"transporter", {{"kind", tr.kind}, {"preset", tr.preset}, {"latency_us", tr.latency_s * 1e6},
                                 {"send_cpu_us", tr.send_cpu_s * 1e6}, {"recv_cpu_us", tr.recv_cpu_s * 1e6},
                                 {"send_cpu_batched_us", tr.send_batched_cpu_s * 1e6}, {"recv_cpu_batched_us", tr.recv_batched_cpu_s * 1e6},
                                 {"rate_Gbps", tr.rate_Bps * 8 / 1e9}}},
                {"data_nodes", config_.data_nodes},
                {"node_groups", config_.node_groups()},
                {"api_nodes", config_.api_nodes},
                {"load_threads", config_.load_generators * config_.load_generator.threads}};
  coordinator_.report(out, elapsed_s, now_s);
}

}  // namespace poolsim
