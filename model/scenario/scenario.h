// A scenario: the cluster (compute nodes, storage, fabric), the workload and the simulation control,
// loaded from YAML with --set overrides and expanded over its `sweep:` section.
#pragma once
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/profile.h"
#include "platform/device.h"
#include "workload/sysbench.h"
#include "scenario/schema.h"

namespace poolsim {

// Bounds a scenario's schema sets, which other inputs that become scenarios (a trace's meta.yaml)
// share, so that a value is refused where it was written, not in the scenario made from it.
inline constexpr double kMaxCoresPerNode = 4096, kMaxSysbenchTables = 100000, kMaxClientThreads = 100000;
// `sysbench cpu` events per second on one thread (a profile's cpu_probe_eps, a trace's probes):
// 3,000-4,400 on this project's VMs (traces/local-vm); 1 to 100,000 spans any core, and a probe
// given as 1e-300 (a profile's) made a core speed of 3e303, refused in the scenario made from it.
inline constexpr double kMinCpuProbeEps = 1, kMaxCpuProbeEps = 1e5;

struct ComputeConfig {
  int count = 1;
  int cores = 2;
  double core_speed = 1.0;  // relative to the core the CPU costs were calibrated on
  double frequency_hz = 0;  // informative
  double memory_bytes = 0;
  double background_cores = 0;  // CPU taken by other processes (validation against loaded traces)
};

struct StorageNodeConfig {
  std::string name;
  int cores = 1;
  double core_speed = 1.0;
  std::string device;
  int devices = 1;
  int ports = 1;
};

struct StorageConfig {
  std::string kind = "local";  // local: one device per compute node; pool: a striped volume on storage nodes
  std::string device;          // local device model
  int local_devices = 1;       // local devices per compute node, striped into one volume (RAID0) when > 1
  double local_stripe_bytes = 512 * 1024;  // their stripe unit (chunk)
  std::string valid_data = "database";     // database: the SSDs hold only the database's files; full: every block
  std::vector<StorageNodeConfig> nodes;
  std::vector<std::string> volume_nodes;  // storage nodes that each compute node's volume spans
  int volume_devices_per_node = 0;        // 0: all devices of each node
  double stripe_bytes = 64 * 1024;
};

struct FabricConfig {
  std::string preset;
  std::string transport;           // rdma | tcp
  double rate_Bps = 0;             // per port, each direction
  double nic_latency_s = 0;        // adapter latency per end
  double switch_latency_s = 0;
  double initiator_cpu_s = 0;      // NVMe-oF per-IO CPU on the compute node
  double target_cpu_s = 0;         // NVMe-oF per-IO CPU on the storage node
  double capsule_bytes = 0;        // command / completion capsule size
  std::string source;              // where the preset figures come from
};

struct FioConfig {
  std::string rw = "randread";  // randread | randwrite | randrw
  double block_bytes = 16384;
  int iodepth = 1;
  int numjobs = 1;
  double read_fraction = 1.0;   // randrw only
  int fsync_every = 0;          // fsync after this many writes (0: never)
  double span_bytes = 0;        // address range; 0: the whole device or volume
  double rate_iops = 0;         // > 0: open loop with Poisson arrivals at this rate (iodepth ignored)
};

struct WorkloadConfig {
  std::string kind = "fio";  // fio | sysbench
  FioConfig fio;
  SysbenchOptions sysbench;
  int threads = 1;            // sysbench client threads per compute node
  int warmup_threads = 1;     // client threads during the warm-up (those beyond `threads` stop at its end)
  double rate_tps = 0;        // > 0: sysbench --rate (transactions per second per compute node)
  ClientConfig clients;
};

struct SimulationConfig {
  std::uint64_t seed = 1;
  double warmup_s = 0.2;
  bool warmup_auto = false;  // detect the end of the transient (MSER) instead of a fixed warm-up
  // After warmup_s, warm up on until the buffer pools have read this many times their frames (0: off):
  // the dirty pages and the flushing reach their steady state only once the pool has turned over.
  double warmup_turnovers = 0;
  // Reach warmup_turnovers without timing (InnodbServer::fast_forward), between two timed stretches.
  bool warmup_fast_forward = false;
  double fast_forward_pace_s = 0.2;    // timed before the fast-forward (its second half gives the pace)
  double fast_forward_settle_s = 0.2;  // timed after it, before measuring
  // End the replay once its flushing is steady (MSER), before warmup_turnovers if that comes first.
  bool fast_forward_steady = false;
  double max_warmup_s = 900;  // cap on the whole warm-up when warmup_turnovers is set
  double batch_s = 0.1;
  int min_batches = 10;
  double target_rel_ci = 0.02;
  double confidence = 0.95;
  double max_duration_s = 30;
};

struct Scenario {
  std::string name;
  std::string file;
  ComputeConfig compute;
  StorageConfig storage;
  FabricConfig fabric;
  WorkloadConfig workload;
  SimulationConfig simulation;
  DatabaseConfig database;
  ServerProfile profile;
  std::map<std::string, DeviceSpec> devices;  // the catalogue in force
  nlohmann::json params = nlohmann::json::object();  // swept and overridden keys of this point
  YAML::Node document;  // the validated document with defaults, for later sections
  // Files the point reads besides the scenario (its `catalogue:` files, a profile given by path):
  // an output may not replace them.
  std::vector<std::string> catalogue_files;
  std::string profile_file;  // empty: a built-in profile

  const DeviceSpec& device(const std::string& name) const { return devices.at(name); }
};

struct Override {
  std::string path;
  std::string value;  // YAML text
};

// Parses "path.to.key=value"; throws InputError naming --set.
Override parse_override(const std::string& text);

// The keys a setting `path: value` writes, as an override applies it: a mapping given for a section
// sets each key it names (and keeps the section's others); any other value sets `path` itself.
std::vector<std::string> leaf_paths(const std::string& path, const YAML::Node& value);
// Whether two dotted keys write the same setting: the same key, or one a section holding the other.
bool keys_overlap(const std::string& a, const std::string& b);
// Whether a dotted key has an empty step ("", "a.", ".a", "a..b"): it names no key, where the
// schema lookup took "" for the whole scenario and "a." for section a.
bool has_empty_step(const std::string& path);

// Loads FILE, applies overrides, validates, and expands the sweep into one Scenario per point
// (without `expand_sweep`, the sweep is ignored and the file's own values make the one point).
std::vector<Scenario> load_scenarios(const std::string& file, const std::vector<Override>& overrides = {},
                                     bool expand_sweep = true);
// A check across two keys (simulation.batch against simulation.max_duration, io_capacity against
// io_capacity_max, ...) names the key it reports at its line in the scenario FILE; when FILE loads
// without the overrides, they made it fail: the index of the first override in the section of the
// key reported, else (a check across sections) of the first override that alone makes FILE fail.
// nullopt when the error is not at FILE's key, FILE fails alone too, or no override is found. (For
// the loader's errors under overrides; it loads FILE again, once per override at most.)
std::optional<size_t> override_behind(const InputError& error, const std::string& file, const std::vector<Override>& overrides,
                                      bool expand_sweep = true);
// The same for a scenario loaded from YAML text (load_scenarios_from_text's arguments).
std::optional<size_t> override_behind(const InputError& error, const std::string& yaml_text, const std::string& origin_name,
                                      const std::string& base_dir, const std::vector<Override>& overrides);
// The message for a value given outside the scenario file (a --set, a plan's value, a table's row)
// that the check across keys `error` refused: the scenario's own message, with its line.
std::string refused_with_the_scenarios_settings(const InputError& error);
// The same from YAML text (bindings, tests); `origin_name` appears in error messages.
std::vector<Scenario> load_scenarios_from_text(const std::string& yaml_text, const std::string& origin_name,
                                               const std::vector<Override>& overrides = {},
                                               const std::string& base_dir = ".", bool expand_sweep = true);

// The text of an input file; InputError at `referenced_from` (naming `key`) when it cannot be read.
std::string read_file(const std::string& path, const SourceLocation& referenced_from, const std::string& key);
// YAML text parsed, or InputError naming `origin_name`, line and column of the syntax error.
YAML::Node parse_yaml(const std::string& text, const std::string& origin_name);
// A server release as MAJOR.MINOR[.PATCH] with an optional suffix ("10.11.19", "8.0", "5.7.44-log").
bool is_server_version(const std::string& version);

const schema::Spec& scenario_schema();
const schema::Spec& device_catalogue_schema();
const schema::Spec& profile_schema();

// A server profile by name (scenarios/profiles/NAME.yaml, compiled in) or by path.
ServerProfile load_profile(const std::string& name_or_path, const std::string& base_dir = ".");
// The file `database.profile` names ("" for a built-in profile): a name with '/' or ".yaml" is a
// path, relative to the scenario's directory.
std::string profile_file_of(const std::string& name_or_path, const std::string& base_dir = ".");

// The built-in device catalogue (scenarios/catalogue/devices.yaml, compiled in) plus extra files.
std::map<std::string, DeviceSpec> load_device_catalogue(const std::vector<std::string>& extra_files = {});
// `origin` and `path` (the entry's key path in its file) locate errors the schema cannot see.
DeviceSpec device_from_yaml(const std::string& name, const YAML::Node& node, const schema::Origin& origin, const std::string& path);

}  // namespace poolsim
