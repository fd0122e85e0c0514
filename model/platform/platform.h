// The hardware of a scenario on SimGrid: compute and storage hosts, their devices, the fabric, and
// one StoragePath per compute node (a local device, or a striped volume reached over NVMe-oF).
#pragma once
#include <simgrid/s4u.hpp>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "platform/device.h"
#include "platform/server_bank.h"
#include "scenario/scenario.h"

namespace poolsim {

// SimGrid flop rate of a reference core (core_speed 1.0): CPU costs are written in seconds of such
// a core and executed as seconds x kReferenceFlops.
constexpr double kReferenceFlops = 1e9;

// Where the time of one IO went, for latency breakdowns.
struct IoTiming {
  double device_s = 0;   // queueing and service in the device
  double network_s = 0;  // fabric latency and transfer
  double cpu_s = 0;      // NVMe-oF processing (initiator and target), including queueing for cores
  double total() const { return device_s + network_s + cpu_s; }
};

// The storage a compute node sees. Calls block the calling SimGrid actor until the IO completes.
class StoragePath {
public:
  virtual ~StoragePath() = default;
  // `issue_cpu_done`: the caller already ran the per-IO issuing CPU (issue_cpu_s()) in its own CPU
  // burst before the IO, which saves an execution per IO (the guide: merge CPU between two waits).
  virtual IoTiming read(std::uint64_t offset_bytes, double bytes, bool issue_cpu_done = false) = 0;
  virtual IoTiming write(std::uint64_t offset_bytes, double bytes) = 0;
  virtual IoTiming flush() = 0;
  virtual double capacity_bytes() const = 0;
  virtual bool atomic_writes() const = 0;
  // CPU the compute node spends per IO in its own IO path (beyond NVMe-oF's initiator cost).
  virtual double host_cpu_per_io_s() const { return 0; }
  // CPU the compute node spends issuing one IO on this path before it waits (NVMe-oF initiator).
  virtual double issue_cpu_s() const { return 0; }
};

// A link (one direction of a port) whose bytes poolsim counts for utilisation.
struct LinkCounter {
  std::string name;
  double rate_Bps = 0;
  double bytes = 0;
};

struct StorageNode {
  StorageNodeConfig config;
  simgrid::s4u::Host* host = nullptr;
  std::vector<std::unique_ptr<NvmeDevice>> devices;
  std::vector<simgrid::s4u::Link*> ports;
  std::vector<LinkCounter> port_tx, port_rx;  // per port: to compute nodes / from compute nodes
  std::unique_ptr<FcfsServerBank> cores;      // NVMe-oF target processing
};

struct ComputeNode {
  simgrid::s4u::Host* host = nullptr;
  std::unique_ptr<NvmeDevice> local_device;  // local mode
  simgrid::s4u::Link* nic = nullptr;         // pool mode
  LinkCounter nic_tx, nic_rx;
  std::unique_ptr<StoragePath> storage;
  double cpu_busy_s = 0;  // CPU work submitted through `compute()`, in reference-core seconds
};

class Platform {
public:
  // Builds the SimGrid platform into `engine` (call before engine.run()).
  Platform(const Scenario& scenario, simgrid::s4u::Engine& engine);
  ~Platform();

  std::vector<ComputeNode>& compute() { return compute_; }
  std::vector<StorageNode>& storage_nodes() { return storage_; }
  const Scenario& scenario() const { return scenario_; }

  // Runs `reference_s` seconds of reference-core CPU work on the calling actor's compute node.
  void compute(ComputeNode& node, double reference_s);

  void reset_counters(double now_s);
  // Utilisations since the last reset: devices, links, CPUs.
  nlohmann::ordered_json report(double now_s) const;

private:
  const Scenario& scenario_;
  std::vector<ComputeNode> compute_;
  std::vector<StorageNode> storage_;
  double counters_since_s_ = 0;
};

}  // namespace poolsim
