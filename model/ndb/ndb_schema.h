// The `ndb:` section of a scenario (MySQL NDB Cluster: data nodes and their threads, API nodes, load
// generators, the transporter) and its parsed form. scenario.cpp adds `ndb_spec()` at the top level
// and `custom_mix_spec()` (workload/custom_mix.h) as `workload.mix`; `check_ndb_scenario` runs when a
// scenario is built so that inconsistent input fails at load time with file:line:column and key.
#pragma once
#include <yaml-cpp/yaml.h>

#include <string>

#include "scenario/schema.h"
#include "workload/custom_mix.h"

namespace poolsim {

// A transporter (NDB's name for its node-to-node message layer): CPU per message on the sending and
// the receiving side, one-way latency beyond that CPU (adapters, switch, interrupt path), line rate.
// A message that finds its send or receive thread idle pays a whole call (system call, interrupt,
// doorbell); one that arrives while the thread is busy goes in the next call with the others and
// pays only its own part.
struct TransporterConfig {
  std::string kind = "tcp";     // tcp | rdma
  std::string preset;           // the preset the figures came from
  double rate_Bps = 1.25e9;     // per port and direction
  double latency_s = 0;         // one way, excluding the CPU below
  double send_cpu_s = 0;        // sender, per message sent on its own
  double recv_cpu_s = 0;        // receiver, per message received on its own
  double send_batched_cpu_s = 0;  // sender, per message in a call with others
  double recv_batched_cpu_s = 0;  // receiver, per message in a call with others
  std::string source;
};

struct NdbDataNodeConfig {
  int ldm_threads = 4, tc_threads = 2, recv_threads = 1, send_threads = 1;
  double message_cpu_s = 0;       // NDB's own handling of a message (pack or unpack, job buffers), per side
  double signal_cpu_s = 0;        // per row-operation signal in a received message
  double tc_row_cpu_s = 0;        // TC: per row operation (TCKEYREQ in, LQHKEYREQ out)
  double tc_conf_row_cpu_s = 0;   // TC: per row operation confirmed (LQHKEYCONF in)
  double ldm_read_row_cpu_s = 0;  // LDM: committed read by primary key
  double ldm_write_row_cpu_s = 0; // LDM: update by primary key, per replica (prepare)
  double ldm_commit_row_cpu_s = 0;// LDM: commit of a row, per replica
  double ldm_complete_row_cpu_s = 0;  // LDM: complete phase, per replica (after the reply)
  double wakeup_s = 0;            // a signal handed to another thread that sleeps
};

struct NdbApiNodeConfig {
  int cores = 1;
  int recv_threads = 1;           // receive threads (one per cluster connection)
  double operation_cpu_s = 0;     // application logic per business operation
  double statement_cpu_s = 0;     // NDB API per execute() (one round trip)
  double row_cpu_s = 0;           // defining a row operation
  double result_row_cpu_s = 0;    // handling a returned row or confirmation
  double wakeup_s = 0;            // the receive thread waking the application thread
};

struct NdbLoadGeneratorConfig {
  int threads = 1;                // closed-loop threads per load generator
  double think_time_s = 0;        // per business operation, outside the measured response time
  double link_latency_s = 0;      // one way, load generator <-> application node
};

struct NdbConfig {
  int data_nodes = 2;
  int replicas = 2;
  bool read_local_replica = false;  // reads from the TC's own replica when it has one (ReadBackup)
  bool tc_by_hint = true;           // the TC of a transaction is the primary of its first row
  NdbDataNodeConfig data_node;
  int api_nodes = 1;
  NdbApiNodeConfig api_node;
  int load_generators = 1;
  NdbLoadGeneratorConfig load_generator;
  TransporterConfig transporter;
  double header_bytes = 0, request_row_bytes = 0, data_row_bytes = 0;
  int node_groups() const { return data_nodes / replicas; }
};

// The schema of the top-level `ndb:` section.
schema::SpecPtr ndb_spec();

// Builds the configuration from the validated document with defaults (`doc`, the whole scenario);
// `raw` is the document as written, for the line and column of errors.
NdbConfig parse_ndb_config(const YAML::Node& doc, const YAML::Node& raw, const schema::Origin& origin);

// Load-time checks of an ndb scenario (workload.kind == ndb): the cluster and the mix parse.
void check_ndb_scenario(const YAML::Node& doc, const YAML::Node& raw, const schema::Origin& origin);

}  // namespace poolsim
