#include "ndb/ndb_schema.h"

#include <algorithm>
#include <sstream>

#include "core/errors.h"

namespace poolsim {

using namespace schema;

namespace {

struct TransporterPreset {
  const char* name;
  const char* kind;
  double rate_bps;
  double latency_s;
  double send_cpu_s;
  double recv_cpu_s;
  double send_batched_cpu_s;
  double recv_batched_cpu_s;
  const char* source;
};

// Figures from ../shared/anchors/devices.md and the project's fabric presets (model/scenario/
// scenario.cpp); V = read in the source, U = commonly quoted, not confirmed.
// TCP: adapter ~2.5 us per end + cut-through switch 0.3 us (the eth-* presets) on the wire, plus the
// kernel stack's CPU on each side (~5 us, the NVMe-oF TCP figure, U): one way ~15 us unloaded, inside
// the 10-25 us measured for kernel TCP on 10GbE (V: devices.md, Intel SBAC-PAD'07).
// Of the ~5 us, ~1 us is per message (per-segment TCP/IP processing and the copy) and the rest per
// call (system call, epoll, interrupt and softirq, wake-up), shared by the messages one send or
// recv call moves (U).
// RDMA (IB verbs, reliable connection): adapter 0.45 us per end + 0.2 us switch for FDR (the ib-fdr
// preset: ConnectX-3 "sub-microsecond", V); per message ~1 us of CPU per side for posting or polling
// the work request and copying through a registered buffer (the S004 transporter has no zero-copy;
// U: verbs post/poll are a few hundred ns, the copy and NDB's buffer handling the rest), of which
// the copy and the work request (~0.5 us) stay per message when calls carry several (U).
const TransporterPreset kTransporterPresets[] = {
    {"eth-10g-tcp", "tcp", 10e9, 5.3e-6, 5e-6, 5e-6, 1e-6, 1e-6,
     "10GbE (Intel 82599ES class), kernel TCP: adapters 2 x 2.5 us (U) + switch 0.3 us (V: 190-500 ns cut-through); stack CPU 5 us per side (U); one way ~15 us (V: 10-25 us, devices.md)"},
    {"eth-25g-tcp", "tcp", 25e9, 4.3e-6, 5e-6, 5e-6, 1e-6, 1e-6,
     "25GbE, kernel TCP: adapters 2 x 2 us (U) + switch 0.3 us (V); stack CPU 5 us per side (U)"},
    {"ib-fdr-rdma", "rdma", 54.54e9, 1.1e-6, 1e-6, 1e-6, 0.5e-6, 0.5e-6,
     "FDR InfiniBand (ConnectX-3, 56 Gb/s signalling, 54.5 Gb/s after 64b/66b; V: devices.md): adapters 2 x 0.45 us + switch 0.2 us (V: sub-microsecond; U: split); verbs post/poll and a buffer copy ~1 us per side (U)"},
    {"ib-edr-rdma", "rdma", 100e9, 0.79e-6, 1e-6, 1e-6, 0.5e-6, 0.5e-6,
     "EDR InfiniBand: adapters 2 x 0.35 us + switch 0.09 us (V/U as the ib-edr fabric preset); verbs ~1 us per side (U)"},
};

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const auto& p : kTransporterPresets) names.push_back(p.name);
  return names;
}

double q(const YAML::Node& node, Dimension dimension) { return to_quantity(node, dimension); }

YAML::Node child(const YAML::Node& node, const std::string& key) {
  if (node && node.IsMap() && node[key]) return node[key];
  return YAML::Node();
}

}  // namespace

SpecPtr ndb_spec() {
  auto us = [](const std::string& d, const std::string& def) {
    return with_default(quantity(Dimension::Seconds, 0.0, 1.0, d), def);
  };
  auto threads = [](const std::string& d, const std::string& def) {
    return with_default(integer(1.0, 256.0, d), def);
  };
  return map({
      {"data_nodes", with_default(integer(1.0, 144.0, "Data nodes (ndbmtd); a multiple of replicas: node groups = data_nodes / replicas"), "2")},
      {"replicas", with_default(integer(1.0, 4.0, "NoOfReplicas: copies of each partition, in one node group"), "2")},
      {"read_from", with_default(one_of({"primary", "local"}, "Committed reads go to the primary replica, or to the TC's own replica when it holds one (ReadBackup)"), "primary")},
      {"tc_selection", with_default(one_of({"hint", "round-robin"}, "The transaction coordinator of a business operation: on the primary of its first row (distribution awareness) or round robin"), "hint")},
      {"data_node", map({
           {"threads", map({
                {"ldm", threads("LDM threads: row operations on the partitions they own", "4")},
                {"tc", threads("TC threads: transaction coordination", "2")},
                {"recv", threads("Receive threads", "1")},
                {"send", threads("Send threads", "1")},
            }, "ndbmtd thread counts (ThreadConfig / MaxNoOfExecutionThreads)")},
           {"cpu", map({
                {"message", us("NDB's handling of one message (packing or unpacking, job buffers), on each side, beyond the transporter", "0.5us")},
                {"signal", us("Per row-operation signal in a received message", "0.25us")},
                {"tc_row", us("TC per row operation sent (TCKEYREQ in, LQHKEYREQ out)", "1us")},
                {"tc_conf_row", us("TC per row operation confirmed (LQHKEYCONF in)", "0.5us")},
                {"ldm_read_row", us("LDM: committed read of a row by primary key", "1.5us")},
                {"ldm_write_row", us("LDM: update of a row by primary key, per replica (prepare: lock, undo, redo buffer)", "3us")},
                {"ldm_commit_row", us("LDM: commit of a row, per replica", "1us")},
                {"ldm_complete_row", us("LDM: complete phase of a row, per replica (after the reply, off the response path)", "0.5us")},
            }, "CPU per unit of work, in seconds of one data-node thread")},
           {"wakeup", us("Latency when a signal passes to another thread that sleeps (futex wake-up)", "5us")},
       }, "Each data node")},
      {"api_nodes", with_default(integer(1.0, 1024.0, "API (application) nodes"), "1")},
      {"api_node", map({
           {"cores", with_default(integer(1.0, 4096.0, "Cores for the application threads"), "28")},
           {"recv_threads", with_default(integer(1.0, 256.0, "NDB API receive threads (one per cluster connection)"), "1")},
           {"cpu", map({
                {"operation", us("Application logic per business operation", "20us")},
                {"statement", us("NDB API per execute() (one round trip): transaction and signal set-up, wait", "10us")},
                {"row", us("Defining one row operation", "1.5us")},
                {"result_row", us("Handling one returned row or confirmation", "1us")},
            }, "CPU on the application node, in seconds of one core")},
           {"wakeup", us("The receive thread waking the application thread that waits for a reply", "5us")},
       }, "Each API node")},
      {"load_generators", with_default(integer(1.0, 1024.0, "Load generator hosts; generator i drives API node i mod api_nodes"), "1")},
      {"load_generator", map({
           {"threads", with_default(integer(1.0, 100000.0, "Closed-loop threads per load generator"), "8")},
           {"think_time", us("Per business operation, outside the measured response time (preparing the request, recording the result)", "0us")},
           {"link_latency", us("One way, load generator <-> application node (request and response of a business operation)", "15us")},
       }, "Each load generator")},
      {"transporter", map({
           {"kind", with_default(one_of({"tcp", "rdma"}, "NDB transporter between all nodes: TCP sockets or InfiniBand verbs"), "tcp")},
           {"preset", one_of(preset_names(), "Figures for the link (default: eth-10g-tcp for tcp, ib-fdr-rdma for rdma)")},
           {"rate", quantity(Dimension::BytesPerSecond, 0.0, std::nullopt, "Line rate per port and direction (overrides the preset)", true)},
           {"latency", quantity(Dimension::Seconds, 0.0, 1.0, "One-way latency beyond the CPU (overrides the preset)")},
           {"send_cpu", quantity(Dimension::Seconds, 0.0, 1.0, "CPU per message sent on its own: a whole call (overrides the preset)")},
           {"recv_cpu", quantity(Dimension::Seconds, 0.0, 1.0, "CPU per message received on its own: a whole call (overrides the preset)")},
           {"send_cpu_batched", quantity(Dimension::Seconds, 0.0, 1.0, "CPU per message that waited and went out in one call with others (overrides the preset)")},
           {"recv_cpu_batched", quantity(Dimension::Seconds, 0.0, 1.0, "CPU per message that waited and came in in one call with others (overrides the preset)")},
       }, "The transporter")},
      {"message", map({
           {"header", with_default(whole_bytes(quantity(Dimension::Bytes, 0.0, std::nullopt, "Per message")), "32B")},
           {"request_row", with_default(whole_bytes(quantity(Dimension::Bytes, 0.0, std::nullopt, "Per row operation requested (key and attributes)")), "100B")},
           {"data_row", with_default(whole_bytes(quantity(Dimension::Bytes, 0.0, std::nullopt, "Per row returned")), "200B")},
       }, "Message sizes")},
  }, "MySQL NDB Cluster (workload kind ndb)");
}

NdbConfig parse_ndb_config(const YAML::Node& doc, const YAML::Node& raw, const Origin& origin) {
  const YAML::Node n = doc["ndb"];
  const YAML::Node r = child(raw, "ndb");
  NdbConfig c;
  c.data_nodes = n["data_nodes"].as<int>();
  c.replicas = n["replicas"].as<int>();
  if (c.data_nodes % c.replicas != 0) {
    // Named where the change came from: a --set or the point's variant that sets replicas and not
    // data_nodes, else data_nodes as the file writes it.
    auto variant_sets = [&](const char* key) {
      const YAML::Node chosen = child(raw, "variant");
      if (!chosen || !chosen.IsScalar()) return false;
      const YAML::Node settings = child(child(raw, "variants"), chosen.Scalar());
      auto given = [](const YAML::Node& n) { return n.IsDefined() && !n.IsNull(); };  // child() gives a null node when absent
      return given(child(settings, std::string("ndb.") + key)) || given(child(child(settings, "ndb"), key));
    };
    const bool sets_nodes = origin.overridden.count("ndb.data_nodes") > 0 || variant_sets("data_nodes");
    const bool by_replicas = !sets_nodes && (origin.overridden.count("ndb.replicas") > 0 || variant_sets("replicas"));
    const std::string key = by_replicas ? "ndb.replicas" : "ndb.data_nodes";
    const YAML::Node at = child(r, by_replicas ? "replicas" : "data_nodes");
    throw InputError(origin.locate(key, at ? at : r), key,
                     std::to_string(c.data_nodes) + " data nodes cannot form node groups of " + std::to_string(c.replicas) +
                         " replicas (data_nodes must be a multiple of replicas)");
  }
  c.read_local_replica = n["read_from"].Scalar() == "local";
  c.tc_by_hint = n["tc_selection"].Scalar() == "hint";
  const auto& dn = n["data_node"];
  auto& d = c.data_node;
  d.ldm_threads = dn["threads"]["ldm"].as<int>();
  d.tc_threads = dn["threads"]["tc"].as<int>();
  d.recv_threads = dn["threads"]["recv"].as<int>();
  d.send_threads = dn["threads"]["send"].as<int>();
  const auto& cpu = dn["cpu"];
  d.message_cpu_s = q(cpu["message"], Dimension::Seconds);
  d.signal_cpu_s = q(cpu["signal"], Dimension::Seconds);
  d.tc_row_cpu_s = q(cpu["tc_row"], Dimension::Seconds);
  d.tc_conf_row_cpu_s = q(cpu["tc_conf_row"], Dimension::Seconds);
  d.ldm_read_row_cpu_s = q(cpu["ldm_read_row"], Dimension::Seconds);
  d.ldm_write_row_cpu_s = q(cpu["ldm_write_row"], Dimension::Seconds);
  d.ldm_commit_row_cpu_s = q(cpu["ldm_commit_row"], Dimension::Seconds);
  d.ldm_complete_row_cpu_s = q(cpu["ldm_complete_row"], Dimension::Seconds);
  d.wakeup_s = q(dn["wakeup"], Dimension::Seconds);

  c.api_nodes = n["api_nodes"].as<int>();
  const auto& an = n["api_node"];
  auto& a = c.api_node;
  a.cores = an["cores"].as<int>();
  a.recv_threads = an["recv_threads"].as<int>();
  a.operation_cpu_s = q(an["cpu"]["operation"], Dimension::Seconds);
  a.statement_cpu_s = q(an["cpu"]["statement"], Dimension::Seconds);
  a.row_cpu_s = q(an["cpu"]["row"], Dimension::Seconds);
  a.result_row_cpu_s = q(an["cpu"]["result_row"], Dimension::Seconds);
  a.wakeup_s = q(an["wakeup"], Dimension::Seconds);

  c.load_generators = n["load_generators"].as<int>();
  const auto& lg = n["load_generator"];
  c.load_generator.threads = lg["threads"].as<int>();
  c.load_generator.think_time_s = q(lg["think_time"], Dimension::Seconds);
  c.load_generator.link_latency_s = q(lg["link_latency"], Dimension::Seconds);

  const auto& t = n["transporter"];
  const YAML::Node rt = child(r, "transporter");
  auto& tr = c.transporter;
  tr.kind = t["kind"].Scalar();
  tr.preset = t["preset"] ? t["preset"].Scalar() : (tr.kind == "rdma" ? "ib-fdr-rdma" : "eth-10g-tcp");
  for (const auto& p : kTransporterPresets)
    if (tr.preset == p.name) {
      if (tr.kind != p.kind)
        throw InputError(origin.locate("ndb.transporter.preset", child(rt, "preset")), "ndb.transporter.preset",
                         "preset '" + tr.preset + "' is a " + p.kind + " link but the transporter kind is " + tr.kind);
      tr.rate_Bps = p.rate_bps / 8;
      tr.latency_s = p.latency_s;
      tr.send_cpu_s = p.send_cpu_s;
      tr.recv_cpu_s = p.recv_cpu_s;
      tr.send_batched_cpu_s = p.send_batched_cpu_s;
      tr.recv_batched_cpu_s = p.recv_batched_cpu_s;
      tr.source = p.source;
    }
  if (t["rate"]) tr.rate_Bps = q(t["rate"], Dimension::BytesPerSecond);
  if (t["latency"]) tr.latency_s = q(t["latency"], Dimension::Seconds);
  if (t["send_cpu"]) tr.send_cpu_s = q(t["send_cpu"], Dimension::Seconds);
  if (t["recv_cpu"]) tr.recv_cpu_s = q(t["recv_cpu"], Dimension::Seconds);
  if (t["send_cpu_batched"]) tr.send_batched_cpu_s = q(t["send_cpu_batched"], Dimension::Seconds);
  if (t["recv_cpu_batched"]) tr.recv_batched_cpu_s = q(t["recv_cpu_batched"], Dimension::Seconds);
  // A batched message cannot cost more than one sent alone. This was clamped without a word; it is
  // reported at the key the file gives (the batched one, else the single one that went below the
  // preset's batched cost).
  const auto check_batched = [&](const char* single_key, double single_s, const char* batched_key, double batched_s) {
    if (batched_s <= single_s) return;
    const char* key = t[batched_key] ? batched_key : single_key;
    const std::string path = std::string("ndb.transporter.") + key;
    std::ostringstream detail;
    detail << "the CPU of a message batched with others (" << batched_key << ", " << batched_s * 1e6
           << " us) is above that of one sent alone (" << single_key << ", " << single_s * 1e6 << " us)";
    throw InputError(origin.locate(path, child(rt, key)), path, detail.str());
  };
  check_batched("send_cpu", tr.send_cpu_s, "send_cpu_batched", tr.send_batched_cpu_s);
  check_batched("recv_cpu", tr.recv_cpu_s, "recv_cpu_batched", tr.recv_batched_cpu_s);

  const auto& m = n["message"];
  c.header_bytes = q(m["header"], Dimension::Bytes);
  c.request_row_bytes = q(m["request_row"], Dimension::Bytes);
  c.data_row_bytes = q(m["data_row"], Dimension::Bytes);
  return c;
}

void check_ndb_scenario(const YAML::Node& doc, const YAML::Node& raw, const Origin& origin) {
  if (doc["workload"]["kind"].Scalar() != "ndb") return;
  const NdbConfig config = parse_ndb_config(doc, raw, origin);
  YAML::Node raw_workload = child(raw, "workload");
  YAML::Node raw_mix = child(raw_workload, "mix");
  if (!doc["workload"]["mix"])
    throw InputError(origin.locate("workload", raw_workload ? raw_workload : raw), "workload.mix",
                     "workload kind 'ndb' needs a mix (workload.mix: a list of operation types)");
  const CustomMix mix = parse_custom_mix(doc["workload"]["mix"], raw_mix ? raw_mix : raw_workload, origin);
  // Each load thread holds its statement's row operations, and those its operation writes until the
  // commit, in memory (12 bytes each, and as much again in the batches built from them). The schema
  // allows 100000 repeats x 64 tables x 100000 rows per statement: 6.4e11 written rows per operation,
  // which ended the point in std::bad_alloc or took the machine's memory.
  constexpr double kMaxRowsHeld = 1e8;  // ~1.2 GB of row records, all threads together
  const double threads = static_cast<double>(config.load_generators) * config.load_generator.threads;
  for (size_t i = 0; i < mix.operations().size(); ++i) {
    const auto& op = mix.operations()[i];
    const double held = static_cast<double>(op.rows_held());
    if (held * threads <= kMaxRowsHeld) continue;
    const std::string path = "workload.mix[" + std::to_string(i) + "].statements";
    const YAML::Node written = raw_mix && raw_mix.IsSequence() && i < raw_mix.size() ? child(raw_mix[i], "statements") : YAML::Node();
    std::ostringstream detail;
    detail << "operation type '" << op.name << "' holds up to " << op.rows_held()
           << " row operations at once (its largest statement's rows and the rows it writes before the commit), "
           << static_cast<long long>(threads) << " load threads x that is more than " << static_cast<long long>(kMaxRowsHeld)
           << " in memory: fewer rows, tables or repeats per operation, or fewer load generator threads";
    throw InputError(origin.locate(path, written ? written : (raw_mix ? raw_mix : raw_workload)), path, detail.str());
  }
}

}  // namespace poolsim
