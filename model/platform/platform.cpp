#include "platform/platform.h"

#include <algorithm>
#include <map>

namespace poolsim {

namespace sg = simgrid::s4u;

namespace {

double now() { return sg::Engine::get_clock(); }

class LocalPath : public StoragePath {
public:
  explicit LocalPath(NvmeDevice& device) : device_(device) {}
  IoTiming read(std::uint64_t offset, double bytes, bool) override { return wait(device_.read(now(), offset, bytes)); }
  IoTiming write(std::uint64_t offset, double bytes) override { return wait(device_.write(now(), offset, bytes)); }
  IoTiming flush() override { return wait(device_.flush(now())); }
  double capacity_bytes() const override { return device_.spec().capacity_bytes; }
  bool atomic_writes() const override { return device_.spec().atomic_writes; }
  double host_cpu_per_io_s() const override { return device_.spec().host_cpu_per_io_s; }

private:
  IoTiming wait(double done_s) {
    IoTiming t;
    t.device_s = done_s - now();
    sg::this_actor::sleep_until(done_s);
    return t;
  }
  NvmeDevice& device_;
};

// A volume striped (RAID0) over the devices of one or more storage nodes, reached over NVMe-oF.
// A request carries a 64 B command capsule to the target; the target's CPU processes it; the device
// serves it; data crosses the fabric as a SimGrid transfer (bandwidth shared with other flows);
// a 16 B completion capsule returns.
class NvmeofVolumePath : public StoragePath {
public:
  struct Member {
    StorageNode* node;
    NvmeDevice* device;
    int port;
  };

  NvmeofVolumePath(Platform& platform, ComputeNode& compute, std::vector<Member> members, const Scenario& scenario)
      : platform_(platform), compute_(compute), members_(std::move(members)), fabric_(scenario.fabric),
        stripe_bytes_(static_cast<std::uint64_t>(scenario.storage.stripe_bytes)) {
    for (const auto& m : members_) capacity_ += m.device->spec().capacity_bytes;
    // One-way latency of a small message: two adapters and the switch.
    one_way_s_ = 2 * fabric_.nic_latency_s + fabric_.switch_latency_s + fabric_.capsule_bytes / fabric_.rate_Bps;
  }

  IoTiming read(std::uint64_t offset, double bytes, bool issue_cpu_done) override {
    IoTiming t;
    if (!issue_cpu_done) initiator(t);
    Member& member = locate(offset).first;  // the member that returns the data (stripe of the first byte)
    double at_target = now() + one_way_s_;
    double processed = target(*member.node, at_target);
    double done = book_striped(offset, bytes, processed, /*write=*/false);
    t.network_s += one_way_s_;
    t.cpu_s += processed - at_target;
    t.device_s += done - processed;
    sg::this_actor::sleep_until(done);
    transfer(member, bytes, /*to_target=*/false, t);
    return t;
  }

  IoTiming write(std::uint64_t offset, double bytes) override {
    IoTiming t;
    initiator(t);
    Member& member = locate(offset).first;
    // Data beyond the in-capsule size is pulled by the target with an RDMA READ: one more round trip.
    double extra_round_trip = bytes > kInCapsuleBytes ? 2 * one_way_s_ : 0.0;
    transfer(member, bytes + fabric_.capsule_bytes, /*to_target=*/true, t);
    double at_target = now() + extra_round_trip;
    t.network_s += extra_round_trip;
    double processed = target(*member.node, at_target);
    double done = book_striped(offset, bytes, processed, /*write=*/true);
    t.cpu_s += processed - at_target;
    t.device_s += done - processed;
    double completed = done + one_way_s_;
    t.network_s += one_way_s_;
    sg::this_actor::sleep_until(completed);
    return t;
  }

  IoTiming flush() override {
    IoTiming t;
    initiator(t);
    double at_target = now() + one_way_s_;
    // A flush of a striped volume flushes every member; it completes with the slowest.
    double done = at_target;
    double cpu_done = at_target;
    for (auto& m : members_) {
      double processed = target(*m.node, at_target);
      cpu_done = std::max(cpu_done, processed);
      done = std::max(done, m.device->flush(processed));
    }
    t.cpu_s += cpu_done - at_target;
    t.device_s += done - cpu_done;
    t.network_s += 2 * one_way_s_;
    sg::this_actor::sleep_until(done + one_way_s_);
    return t;
  }

  double capacity_bytes() const override { return capacity_; }
  double issue_cpu_s() const override { return fabric_.initiator_cpu_s; }
  bool atomic_writes() const override {
    return std::all_of(members_.begin(), members_.end(), [](const Member& m) { return m.device->spec().atomic_writes; });
  }

private:
  // nvmet-rdma's default inline data size (U: Linux nvmet `inline_data_size`, 4 KiB).
  static constexpr double kInCapsuleBytes = 4096;

  std::pair<Member&, std::uint64_t> locate(std::uint64_t offset) {
    std::uint64_t stripe = offset / stripe_bytes_;
    Member& m = members_[stripe % members_.size()];
    std::uint64_t device_offset = (stripe / members_.size()) * stripe_bytes_ + offset % stripe_bytes_;
    return {m, device_offset};
  }

  // An IO larger than the stripe unit is split across the members it spans (RAID0); the pieces are
  // served in parallel and the IO completes with the last.
  double book_striped(std::uint64_t offset, double bytes, double at_s, bool write) {
    double done = at_s;
    std::uint64_t end = offset + static_cast<std::uint64_t>(bytes);
    for (std::uint64_t piece = offset; piece < end;) {
      std::uint64_t piece_end = std::min(end, (piece / stripe_bytes_ + 1) * stripe_bytes_);
      auto [m, device_offset] = locate(piece);
      double n = static_cast<double>(piece_end - piece);
      done = std::max(done, write ? m.device->write(at_s, device_offset, n) : m.device->read(at_s, device_offset, n));
      piece = piece_end;
    }
    return done;
  }

  void initiator(IoTiming& t) {
    double start = now();
    platform_.compute(compute_, fabric_.initiator_cpu_s);
    t.cpu_s += now() - start;
  }

  double target(StorageNode& node, double arrival_s) {
    return node.cores->book(arrival_s, fabric_.target_cpu_s / node.config.core_speed).end_s;
  }

  void transfer(const Member& m, double bytes, bool to_target, IoTiming& t) {
    double start = now();
    if (to_target) {
      compute_.nic_tx.bytes += bytes;
      m.node->port_rx[m.port].bytes += bytes;
      sg::Comm::sendto(compute_.host, m.node->host, static_cast<std::uint64_t>(bytes));
    } else {
      m.node->port_tx[m.port].bytes += bytes;
      compute_.nic_rx.bytes += bytes;
      sg::Comm::sendto(m.node->host, compute_.host, static_cast<std::uint64_t>(bytes));
    }
    t.network_s += now() - start;
  }

  Platform& platform_;
  ComputeNode& compute_;
  std::vector<Member> members_;
  FabricConfig fabric_;
  std::uint64_t stripe_bytes_;
  double capacity_ = 0;
  double one_way_s_ = 0;
};

std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t a, std::uint64_t b) {
  // SplitMix64 finaliser: independent streams per device from one scenario seed.
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (a * 1315423911ULL + b + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

Platform::Platform(const Scenario& scenario, sg::Engine& engine) : scenario_(scenario) {
  auto* zone = sg::create_full_zone("fabric");
  (void)engine;
  const bool pool = scenario.storage.kind == "pool";
  const auto& fabric = scenario.fabric;
  compute_.resize(scenario.compute.count);
  for (int i = 0; i < scenario.compute.count; ++i) {
    auto& node = compute_[i];
    std::string name = "compute" + std::to_string(i);
    node.host = zone->create_host(name, scenario.compute.core_speed * kReferenceFlops)
                    ->set_core_count(scenario.compute.cores)
                    ->seal();
    if (pool) {
      node.nic = zone->create_split_duplex_link(name + "-nic", fabric.rate_Bps)->set_latency(fabric.nic_latency_s)->seal();
      node.nic_tx = {name + "-nic-tx", fabric.rate_Bps, 0};
      node.nic_rx = {name + "-nic-rx", fabric.rate_Bps, 0};
    } else {
      node.local_device = std::make_unique<NvmeDevice>(scenario.device(scenario.storage.device),
                                                       mix_seed(scenario.simulation.seed, 0, i));
      node.storage = std::make_unique<LocalPath>(*node.local_device);
    }
  }
  if (pool) {
    // A non-blocking switch: every port at full rate, a fixed port-to-port latency.
    auto* sw = zone->create_link("switch", fabric.rate_Bps * 4096)
                   ->set_sharing_policy(sg::Link::SharingPolicy::FATPIPE)
                   ->set_latency(fabric.switch_latency_s)
                   ->seal();
    std::map<std::string, StorageNode*> by_name;
    storage_.resize(scenario.storage.nodes.size());
    for (size_t j = 0; j < scenario.storage.nodes.size(); ++j) {
      auto& node = storage_[j];
      node.config = scenario.storage.nodes[j];
      node.host = zone->create_host(node.config.name, node.config.core_speed * kReferenceFlops)
                      ->set_core_count(node.config.cores)
                      ->seal();
      node.cores = std::make_unique<FcfsServerBank>(node.config.cores, FcfsServerBank::Dispatch::SharedQueue);
      for (int d = 0; d < node.config.devices; ++d)
        node.devices.push_back(std::make_unique<NvmeDevice>(scenario.device(node.config.device),
                                                            mix_seed(scenario.simulation.seed, j + 1, d)));
      for (int p = 0; p < node.config.ports; ++p) {
        std::string port = node.config.name + "-port" + std::to_string(p);
        node.ports.push_back(zone->create_split_duplex_link(port, fabric.rate_Bps)->set_latency(fabric.nic_latency_s)->seal());
        node.port_tx.push_back({port + "-tx", fabric.rate_Bps, 0});
        node.port_rx.push_back({port + "-rx", fabric.rate_Bps, 0});
      }
      by_name[node.config.name] = &node;
    }
    for (int i = 0; i < scenario.compute.count; ++i) {
      auto& c = compute_[i];
      std::vector<NvmeofVolumePath::Member> members;
      for (auto& s : storage_) {
        int port = i % s.config.ports;
        zone->add_route(c.host->get_netpoint(), s.host->get_netpoint(), nullptr, nullptr,
                        {sg::LinkInRoute(c.nic, sg::LinkInRoute::Direction::UP), sg::LinkInRoute(sw),
                         sg::LinkInRoute(s.ports[port], sg::LinkInRoute::Direction::DOWN)},
                        true);
      }
      // Stripe members interleave nodes (node-major within each stripe row) so consecutive stripes
      // land on different storage nodes.
      int per_node = scenario.storage.volume_devices_per_node;
      int max_devices = 0;
      for (const auto& name : scenario.storage.volume_nodes)
        max_devices = std::max(max_devices, per_node > 0 ? per_node : by_name[name]->config.devices);
      for (int d = 0; d < max_devices; ++d)
        for (const auto& name : scenario.storage.volume_nodes) {
          StorageNode* s = by_name[name];
          int used = per_node > 0 ? per_node : s->config.devices;
          if (d < used) members.push_back({s, s->devices[d].get(), i % s->config.ports});
        }
      c.storage = std::make_unique<NvmeofVolumePath>(*this, c, std::move(members), scenario);
    }
  }
  zone->seal();
}

Platform::~Platform() = default;

void Platform::compute(ComputeNode& node, double reference_s) {
  if (reference_s <= 0) return;
  node.cpu_busy_s += reference_s;
  sg::this_actor::execute(reference_s * kReferenceFlops);
}

void Platform::reset_counters(double now_s) {
  counters_since_s_ = now_s;
  for (auto& c : compute_) {
    c.cpu_busy_s = 0;
    c.nic_tx.bytes = c.nic_rx.bytes = 0;
    if (c.local_device) c.local_device->reset_counters();
  }
  for (auto& s : storage_) {
    s.cores->reset_counters();
    for (auto& d : s.devices) d->reset_counters();
    for (auto& l : s.port_tx) l.bytes = 0;
    for (auto& l : s.port_rx) l.bytes = 0;
  }
}

namespace {
nlohmann::ordered_json device_report(const std::string& name, const NvmeDevice& d, double elapsed) {
  const auto& c = d.counters();
  return {{"name", name},
          {"model", d.spec().name},
          {"utilisation", d.unit_busy_s() / (d.spec().units() * elapsed)},
          {"mean_queue_depth", c.response_s / elapsed},
          {"reads_per_s", c.reads / elapsed},
          {"writes_per_s", c.writes / elapsed},
          {"flushes_per_s", c.flushes / elapsed},
          {"read_MBps", c.read_bytes / elapsed / 1e6},
          {"write_MBps", c.write_bytes / elapsed / 1e6}};
}
nlohmann::ordered_json link_report(const LinkCounter& l, double elapsed) {
  return {{"name", l.name}, {"utilisation", l.bytes / (l.rate_Bps * elapsed)}, {"MBps", l.bytes / elapsed / 1e6}};
}
}  // namespace

nlohmann::ordered_json Platform::report(double now_s) const {
  double elapsed = std::max(now_s - counters_since_s_, 1e-12);
  nlohmann::ordered_json devices = nlohmann::ordered_json::array(), links = nlohmann::ordered_json::array(),
                         cpus = nlohmann::ordered_json::array();
  for (const auto& c : compute_) {
    std::string name = c.host->get_name();
    if (c.local_device) devices.push_back(device_report(name + "/" + c.local_device->spec().name, *c.local_device, elapsed));
    if (c.nic) {
      links.push_back(link_report(c.nic_tx, elapsed));
      links.push_back(link_report(c.nic_rx, elapsed));
    }
    cpus.push_back({{"host", name},
                    {"cores", c.host->get_core_count()},
                    {"utilisation", c.cpu_busy_s / (scenario_.compute.core_speed * c.host->get_core_count() * elapsed)}});
  }
  for (const auto& s : storage_) {
    for (size_t d = 0; d < s.devices.size(); ++d)
      devices.push_back(device_report(s.config.name + "/dev" + std::to_string(d), *s.devices[d], elapsed));
    for (size_t p = 0; p < s.ports.size(); ++p) {
      links.push_back(link_report(s.port_tx[p], elapsed));
      links.push_back(link_report(s.port_rx[p], elapsed));
    }
    cpus.push_back({{"host", s.config.name},
                    {"cores", s.config.cores},
                    {"utilisation", s.cores->busy_s() / (s.config.cores * elapsed)}});
  }
  return {{"devices", devices}, {"links", links}, {"cpus", cpus}};
}

}  // namespace poolsim
