#include "ndb/cluster.h"

#include <algorithm>
#include <map>

namespace poolsim {

namespace {
// LQHKEYCONF, TCKEYCONF and commit signals are a few words each (U: NDB signal layouts, ~4-8 words).
constexpr double kConfBytesPerRow = 16;
}  // namespace

TransactionCoordinator::TransactionCoordinator(const NdbConfig& config)
    : config_(config), transporter_(config.transporter) {
  for (int i = 0; i < config.data_nodes; ++i)
    data_nodes_.push_back(std::make_unique<NdbDataNode>(i, i / config.replicas, config.data_node, config.transporter.rate_Bps));
  for (int i = 0; i < config.api_nodes; ++i)
    api_nodes_.push_back(std::make_unique<NdbApiNode>(i, config.api_node, config.transporter.rate_Bps));
}

RowOp TransactionCoordinator::draw_row(std::mt19937_64& rng) const {
  // A uniformly drawn key hashes to a partition: its node group, which replica is its primary, and
  // the LDM thread that owns it are uniform and independent.
  RowOp row;
  row.group = static_cast<int>(rng() % static_cast<std::uint64_t>(config_.node_groups()));
  row.primary = static_cast<int>(rng() % static_cast<std::uint64_t>(config_.replicas));
  row.ldm = static_cast<int>(rng() % static_cast<std::uint64_t>(config_.data_node.ldm_threads));
  return row;
}

int TransactionCoordinator::choose_tc_node(const RowOp& first) {
  if (config_.tc_by_hint) return replica_node(first, 0);
  return next_tc_++ % config_.data_nodes;
}

double TransactionCoordinator::send_from_dn(NdbDataNode& node, double now_s, double ready_s) {
  // The worker thread hands the signals to a send thread (which sleeps when idle).
  double m = config_.data_node.message_cpu_s;
  return node.send.book_message(now_s, ready_s + config_.data_node.wakeup_s, transporter_.send_cpu_s() + m,
                                transporter_.send_batched_cpu_s() + m);
}

double TransactionCoordinator::dn_to_dn(int from, int to, double now_s, double ready_s, int signals, double bytes,
                                        StatementStats* stats) {
  auto& a = *data_nodes_[static_cast<size_t>(from)];
  auto& b = *data_nodes_[static_cast<size_t>(to)];
  const auto& d = config_.data_node;
  double sent = send_from_dn(a, now_s, ready_s);
  double arrived = transporter_.wire(a.tx, b.rx, now_s, sent, bytes);
  if (stats) ++stats->messages;
  // Each transporter (connection) is served by one receive thread.
  double own = d.message_cpu_s + signals * d.signal_cpu_s;
  return b.recv.book_message(now_s, arrived, transporter_.recv_cpu_s() + own, transporter_.recv_batched_cpu_s() + own, from);
}

double TransactionCoordinator::dn_to_api(int from, int api, int connection, double now_s, double ready_s, int signals,
                                         double bytes, StatementStats* stats) {
  (void)signals;
  auto& a = *data_nodes_[static_cast<size_t>(from)];
  auto& b = *api_nodes_[static_cast<size_t>(api)];
  double sent = send_from_dn(a, now_s, ready_s);
  double arrived = transporter_.wire(a.tx, b.rx, now_s, sent, bytes);
  if (stats) ++stats->messages;
  return b.recv.book_message(now_s, arrived, transporter_.recv_cpu_s(), transporter_.recv_batched_cpu_s(), connection);
}

double TransactionCoordinator::to_node(int from, int to, double now_s, double ready_s, int signals, double bytes,
                                       StatementStats* stats) {
  if (from == to) {
    if (stats) ++stats->local_handoffs;
    return ready_s + config_.data_node.wakeup_s;  // a signal to another thread of the same node
  }
  return dn_to_dn(from, to, now_s, ready_s, signals, bytes, stats) + config_.data_node.wakeup_s;
}

double TransactionCoordinator::ldm_work(NdbDataNode& node, double now_s, double ready_s,
                                        const std::vector<const RowOp*>& rows, double per_row_s) {
  // Rows of different partitions are served by their LDM threads in parallel.
  std::vector<int> per_thread(static_cast<size_t>(node.ldm.threads()), 0);
  for (const auto* r : rows) ++per_thread[static_cast<size_t>(r->ldm) % per_thread.size()];
  double done = ready_s;
  for (size_t t = 0; t < per_thread.size(); ++t)
    if (per_thread[t] > 0) done = std::max(done, node.ldm.book(now_s, ready_s, per_thread[t] * per_row_s, static_cast<int>(t)));
  return done;
}

double TransactionCoordinator::execute(const Statement& s, double now_s, double start_s, StatementStats* stats) {
  const auto& d = config_.data_node;
  const auto& a = config_.api_node;
  auto& api = *api_nodes_[static_cast<size_t>(s.api)];
  auto& tc = *data_nodes_[static_cast<size_t>(s.tc_node)];
  const auto& rows = *s.rows;
  const int n = static_cast<int>(rows.size());
  const double header = config_.header_bytes;

  // The application thread defines the operations and calls execute(): NDB API CPU and the send.
  double sent = api.cpu.book(now_s, start_s, a.statement_cpu_s + n * a.row_cpu_s + transporter_.send_cpu_s());
  double arrived = transporter_.wire(api.tx, tc.rx, now_s, sent, header + n * config_.request_row_bytes);
  if (stats) ++stats->messages;
  int endpoint = config_.data_nodes + s.api * config_.api_node.recv_threads + s.connection;
  double own = d.message_cpu_s + n * d.signal_cpu_s;
  double received = tc.recv.book_message(now_s, arrived, transporter_.recv_cpu_s() + own, transporter_.recv_batched_cpu_s() + own, endpoint);
  double coordinated = tc.tc.book(now_s, received + d.wakeup_s, n * d.tc_row_cpu_s, s.tc_thread);

  std::vector<double> replies;  // times the API's receive thread has each reply
  double confirmed_at_tc = coordinated;
  if (!s.write) {
    // Committed reads: one batch per data node serving them; rows go straight to the API node, the
    // confirmations to the TC.
    std::map<int, std::vector<const RowOp*>> by_node;
    for (const auto& r : rows) {
      int node = replica_node(r, 0);
      if (config_.read_local_replica && r.group == tc.group()) node = s.tc_node;
      by_node[node].push_back(&r);
    }
    for (const auto& [node, list] : by_node) {
      int k = static_cast<int>(list.size());
      double at_ldm = to_node(s.tc_node, node, now_s, coordinated, k, header + k * config_.request_row_bytes, stats);
      double read = ldm_work(*data_nodes_[static_cast<size_t>(node)], now_s, at_ldm, list, d.ldm_read_row_cpu_s);
      replies.push_back(dn_to_api(node, s.api, s.connection, now_s, read, k, header + k * config_.data_row_bytes, stats));
      confirmed_at_tc = std::max(confirmed_at_tc, to_node(node, s.tc_node, now_s, read, k, header + k * kConfBytesPerRow, stats));
    }
  } else {
    // Prepare along each partition's replica chain: primary, backups, then a confirmation to the TC.
    std::map<std::pair<int, int>, std::vector<const RowOp*>> by_chain;
    for (const auto& r : rows) by_chain[{r.group, r.primary}].push_back(&r);
    for (const auto& [chain, list] : by_chain) {
      int k = static_cast<int>(list.size());
      int previous = s.tc_node;
      double t = coordinated;
      for (int replica = 0; replica < config_.replicas; ++replica) {
        int node = replica_node(*list.front(), replica);
        t = to_node(previous, node, now_s, t, k, header + k * config_.request_row_bytes, stats);
        t = ldm_work(*data_nodes_[static_cast<size_t>(node)], now_s, t, list, d.ldm_write_row_cpu_s);
        previous = node;
      }
      confirmed_at_tc = std::max(confirmed_at_tc, to_node(previous, s.tc_node, now_s, t, k, header + k * kConfBytesPerRow, stats));
    }
  }
  double done_at_tc = tc.tc.book(now_s, confirmed_at_tc, n * d.tc_conf_row_cpu_s, s.tc_thread);

  if (s.commit_rows && !s.commit_rows->empty()) {
    // Commit: the TC commits every replica of the rows written and waits for their confirmations.
    std::map<int, std::vector<const RowOp*>> by_node;
    for (const auto& r : *s.commit_rows)
      for (int replica = 0; replica < config_.replicas; ++replica) by_node[replica_node(r, replica)].push_back(&r);
    double committed = done_at_tc;
    for (const auto& [node, list] : by_node) {
      int k = static_cast<int>(list.size());
      double t = to_node(s.tc_node, node, now_s, done_at_tc, k, header + k * kConfBytesPerRow, stats);
      t = ldm_work(*data_nodes_[static_cast<size_t>(node)], now_s, t, list, d.ldm_commit_row_cpu_s);
      committed = std::max(committed, to_node(node, s.tc_node, now_s, t, k, header + k * kConfBytesPerRow, stats));
    }
    int m = static_cast<int>(s.commit_rows->size());
    done_at_tc = tc.tc.book(now_s, committed, m * d.tc_conf_row_cpu_s, s.tc_thread);
    // The commit confirmation goes to the API first; then the complete phase releases the operation
    // records: CPU and messages that load the threads without delaying this statement.
    replies.push_back(dn_to_api(s.tc_node, s.api, s.connection, now_s, done_at_tc, n, header + n * kConfBytesPerRow, stats));
    for (const auto& [node, list] : by_node) {
      int k = static_cast<int>(list.size());
      double t = to_node(s.tc_node, node, now_s, done_at_tc, k, header + k * kConfBytesPerRow, stats);
      ldm_work(*data_nodes_[static_cast<size_t>(node)], now_s, t, list, d.ldm_complete_row_cpu_s);
    }
  } else {
    // TCKEYCONF to the API node.
    replies.push_back(dn_to_api(s.tc_node, s.api, s.connection, now_s, done_at_tc, n, header + n * kConfBytesPerRow, stats));
  }
  double all = *std::max_element(replies.begin(), replies.end());
  // The receive thread wakes the application thread, which handles the results.
  return api.cpu.book(now_s, all + a.wakeup_s, n * a.result_row_cpu_s);
}

void TransactionCoordinator::reset_counters(double now_s) {
  for (auto& n : data_nodes_) {
    n->ldm.reset_counters(now_s);
    n->tc.reset_counters(now_s);
    n->recv.reset_counters(now_s);
    n->send.reset_counters(now_s);
    n->tx.reset_counters(now_s);
    n->rx.reset_counters(now_s);
  }
  for (auto& n : api_nodes_) {
    n->cpu.reset_counters(now_s);
    n->recv.reset_counters(now_s);
    n->tx.reset_counters(now_s);
    n->rx.reset_counters(now_s);
  }
}

void TransactionCoordinator::report(nlohmann::ordered_json& out, double elapsed_s, double now_s) const {
  auto cpus = nlohmann::ordered_json::array();
  auto links = nlohmann::ordered_json::array();
  auto bank = [&](const std::string& host, const ThreadBank& b) {
    cpus.push_back({{"host", host + "/" + b.name()}, {"cores", b.threads()}, {"utilisation", b.utilisation(now_s, elapsed_s)},
                    {"busiest_thread", b.max_thread_utilisation(now_s, elapsed_s)}});
  };
  auto link = [&](const FabricLink& l) {
    const double bytes = l.served_bytes(now_s);
    links.push_back({{"name", l.name()}, {"utilisation", bytes / (l.rate_Bps() * elapsed_s)}, {"MBps", bytes / elapsed_s / 1e6}});
  };
  for (const auto& n : data_nodes_) {
    for (const ThreadBank* b : {&n->ldm, &n->tc, &n->recv, &n->send}) bank(n->name(), *b);
    link(n->tx);
    link(n->rx);
  }
  for (const auto& n : api_nodes_) {
    bank(n->name(), n->cpu);
    bank(n->name(), n->recv);
    link(n->tx);
    link(n->rx);
  }
  out["devices"] = nlohmann::ordered_json::array();
  out["links"] = links;
  out["cpus"] = cpus;
}

}  // namespace poolsim
