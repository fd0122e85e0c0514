// MySQL NDB Cluster, analytically: data nodes with their thread banks, API nodes, the transporter,
// and the transaction coordinator's protocols for a batch of key operations.
//
// Data is in memory, hash-partitioned by primary key over node groups of `replicas` data nodes; each
// partition has a primary replica on one node of its group and backups on the others, and lives in
// one LDM thread on each of them. A statement's row operations go to the transaction's TC in one
// message; the TC forwards them batched, one message per data node (NDB packs the signals for one
// destination into one send). Committed reads are served by the primary replica (or the TC's own
// replica with ReadBackup), which returns the rows straight to the API node and confirms to the TC;
// the TC confirms to the API (TCKEYCONF). Writes are prepared along the replica chain (primary, then
// backups, then a confirmation to the TC); at the end of the business operation the TC commits on
// every replica and confirms to the API; the complete phase follows off the response path.
//
// Every stage is booked when the statement is issued (ThreadBank, FabricLink), so a statement costs
// its caller one timer until the reply is handled.
#pragma once
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "ndb/ndb_schema.h"
#include "ndb/thread_bank.h"
#include "platform/platform.h"

namespace poolsim {

// NDB's message layer between two nodes: the sender's CPU, the wire, the receiver's CPU.
class Transporter {
public:
  explicit Transporter(const TransporterConfig& config) : config_(config) {}
  const TransporterConfig& config() const { return config_; }
  double send_cpu_s() const { return config_.send_cpu_s; }
  double recv_cpu_s() const { return config_.recv_cpu_s; }
  double send_batched_cpu_s() const { return config_.send_batched_cpu_s; }
  double recv_batched_cpu_s() const { return config_.recv_batched_cpu_s; }
  // The time the last byte of a message handed to the adapter at `sent_s` reaches the receiving
  // adapter: serialised on the sender's port and (cut-through) on the receiver's, plus the latency.
  double wire(FabricLink& out, FabricLink& in, double now_s, double sent_s, double bytes) const {
    double serialisation = bytes / out.rate_Bps();
    double on_wire = out.serialise(now_s, sent_s, bytes);
    return in.serialise(now_s, on_wire - serialisation, bytes) + config_.latency_s;
  }

private:
  TransporterConfig config_;
};

class NdbDataNode {
public:
  NdbDataNode(int id, int group, const NdbDataNodeConfig& config, double rate_Bps)
      : ldm("ldm", config.ldm_threads), tc("tc", config.tc_threads), recv("recv", config.recv_threads),
        send("send", config.send_threads), tx("ndbd" + std::to_string(id) + "-tx", rate_Bps),
        rx("ndbd" + std::to_string(id) + "-rx", rate_Bps), id_(id), group_(group) {}
  int id() const { return id_; }
  int group() const { return group_; }
  std::string name() const { return "ndbd" + std::to_string(id_); }

  ThreadBank ldm, tc, recv, send;
  FabricLink tx, rx;

private:
  int id_, group_;
};

class NdbApiNode {
public:
  NdbApiNode(int id, const NdbApiNodeConfig& config, double rate_Bps)
      : cpu("cpu", config.cores), recv("recv", config.recv_threads), tx("api" + std::to_string(id) + "-tx", rate_Bps),
        rx("api" + std::to_string(id) + "-rx", rate_Bps), id_(id) {}
  int id() const { return id_; }
  std::string name() const { return "api" + std::to_string(id_); }

  ThreadBank cpu, recv;
  FabricLink tx, rx;

private:
  int id_;
};

// One row operation: where its partition lives.
struct RowOp {
  int group = 0;            // node group
  int primary = 0;          // replica index of the primary within the group
  int ldm = 0;              // LDM thread owning the partition (same on every replica)
};

// Counts of what a statement did, for reports and tests.
struct StatementStats {
  int messages = 0;         // transporter messages (node to node)
  int local_handoffs = 0;   // signals between threads of one data node
};

// The transaction coordinator's protocols over the cluster's nodes: what a statement costs each
// thread and link, and when its reply is in the application's hands (unloaded: the sum of its stages).
class TransactionCoordinator {
public:
  explicit TransactionCoordinator(const NdbConfig& config);

  const NdbConfig& config() const { return config_; }
  std::vector<std::unique_ptr<NdbDataNode>>& data_nodes() { return data_nodes_; }
  std::vector<std::unique_ptr<NdbApiNode>>& api_nodes() { return api_nodes_; }
  const Transporter& transporter() const { return transporter_; }

  // The data node holding replica `r` (0: primary) of a row.
  int replica_node(const RowOp& row, int r) const {
    return row.group * config_.replicas + (row.primary + r) % config_.replicas;
  }
  // A row of a uniformly drawn key.
  RowOp draw_row(std::mt19937_64& rng) const;

  // The business operation's coordinator for API node `api`: the primary of `first` (hint) or the
  // next data node in turn; and one of that node's TC threads.
  int choose_tc_node(const RowOp& first);

  struct Statement {
    int api = 0;              // API node
    int connection = 0;       // its cluster connection (picks the API receive thread)
    int tc_node = 0;
    int tc_thread = 0;
    bool write = false;
    const std::vector<RowOp>* rows = nullptr;
    // Set on the last statement of a business operation that wrote: the rows to commit.
    const std::vector<RowOp>* commit_rows = nullptr;
  };
  // Books every stage of a statement issued by the application thread at `start_s` (its NDB API
  // CPU first) and returns the time the application thread has the reply in hand.
  double execute(const Statement& s, double now_s, double start_s, StatementStats* stats = nullptr);

  // API node CPU work of the application thread (its own logic), booked at `ready_s`.
  double api_cpu(int api, double now_s, double ready_s, double cpu_s) {
    return api_nodes_[static_cast<size_t>(api)]->cpu.book(now_s, ready_s, cpu_s);
  }

  // A window opening at `now_s` (work booked before it and served in it counts in it).
  void reset_counters(double now_s);
  // Thread and link utilisations over the `elapsed_s` since the last reset, ending at `now_s`.
  void report(nlohmann::ordered_json& out, double elapsed_s, double now_s) const;

private:
  // A message from data node `from`, handed to its send threads at `ready_s`, to data node `to`;
  // returns the time `to`'s receive thread has processed it.
  double dn_to_dn(int from, int to, double now_s, double ready_s, int signals, double bytes, StatementStats* stats);
  double dn_to_api(int from, int api, int connection, double now_s, double ready_s, int signals, double bytes,
                   StatementStats* stats);
  double send_from_dn(NdbDataNode& node, double now_s, double ready_s);
  // Reaching another thread: a data node's signal to a thread in the same node, or across nodes.
  double to_node(int from, int to, double now_s, double ready_s, int signals, double bytes, StatementStats* stats);
  double ldm_work(NdbDataNode& node, double now_s, double ready_s, const std::vector<const RowOp*>& rows, double per_row_s);

  NdbConfig config_;
  Transporter transporter_;
  std::vector<std::unique_ptr<NdbDataNode>> data_nodes_;
  std::vector<std::unique_ptr<NdbApiNode>> api_nodes_;
  int next_tc_ = 0;
};

}  // namespace poolsim
