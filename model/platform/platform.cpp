#include "platform/platform.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/wait.h"

namespace poolsim {

namespace sg = simgrid::s4u;

namespace {

double now() { return sg::Engine::get_clock(); }

// The compute node's own devices: one, or several striped into one volume (RAID0, as Linux md does:
// chunk k of the volume is chunk k / members of member k % members). A request larger than the
// stripe unit is split across the members it spans, served in parallel, and completes with the last.
class LocalPath : public StoragePath {
public:
  LocalPath(std::vector<NvmeDevice*> members, std::uint64_t stripe_bytes)
      : members_(std::move(members)), stripe_bytes_(stripe_bytes) {}
  IoTiming read(std::uint64_t offset, double bytes, bool) override { return wait(book_counted_read(offset, bytes)); }
  double book_read(std::uint64_t offset, double bytes) override { return book_counted_read(offset, bytes); }
  IoTiming write(std::uint64_t offset, double bytes, WriteQueue queue) override { return wait(book(offset, bytes, true, queue)); }
  IoTiming flush() override {
    // A flush of a striped volume flushes every member; it completes with the slowest.
    double done = now();
    for (auto* m : members_) done = std::max(done, m->flush(now()));
    return wait(done);
  }
  double capacity_bytes() const override { return members_.front()->spec().capacity_bytes * members_.size(); }
  void hold(double bytes) override {
    for (auto* m : members_) m->add_live_bytes(bytes / members_.size());
  }
  bool atomic_writes() const override {
    return std::all_of(members_.begin(), members_.end(), [](const NvmeDevice* m) { return m->spec().atomic_writes; });
  }
  bool rotational() const override {
    return std::any_of(members_.begin(), members_.end(), [](const NvmeDevice* m) { return m->spec().rotational; });
  }
  double host_cpu_per_io_s() const override { return members_.front()->spec().host_cpu_per_io_s; }
  double host_cpu_per_flush_s() const override { return members_.front()->spec().host_cpu_per_flush_s; }
  double host_cpu_per_write_s() const override {
    const auto& s = members_.front()->spec();
    return s.host_cpu_per_write_s >= 0 ? s.host_cpu_per_write_s : s.host_cpu_per_io_s;
  }

private:
  double book_counted_read(std::uint64_t offset, double bytes) {
    const double done = book(offset, bytes, false);
    IoTiming t;
    t.device_s = done - now();
    count_read(t);
    return done;
  }
  // `queue`: a write's submission queue (reads have none).
  double book(std::uint64_t offset, double bytes, bool write, WriteQueue queue = WriteQueue::Flushing) {
    const double t = now();
    if (members_.size() == 1) return write ? members_[0]->write(t, offset, bytes, queue) : members_[0]->read(t, offset, bytes);
    double done = t;
    const std::uint64_t end = offset + static_cast<std::uint64_t>(bytes);
    for (std::uint64_t piece = offset; piece < end;) {
      const std::uint64_t chunk = piece / stripe_bytes_;
      const std::uint64_t piece_end = std::min(end, (chunk + 1) * stripe_bytes_);
      NvmeDevice* m = members_[chunk % members_.size()];
      const std::uint64_t device_offset = (chunk / members_.size()) * stripe_bytes_ + piece % stripe_bytes_;
      const double n = static_cast<double>(piece_end - piece);
      done = std::max(done, write ? m->write(t, device_offset, n, queue) : m->read(t, device_offset, n));
      piece = piece_end;
    }
    return done;
  }
  IoTiming wait(double done_s) {
    IoTiming t;
    t.device_s = done_s - now();
    wait_until(done_s);
    return t;
  }
  std::vector<NvmeDevice*> members_;
  std::uint64_t stripe_bytes_;
};

// A volume striped (RAID0) over the devices of one or more storage nodes, reached over NVMe-oF.
// A request carries a 64 B command capsule to the target; the target's CPU processes it; the device
// serves it; data crosses the fabric; a 16 B completion capsule returns. Every stage is an analytic
// queue, so an IO costs one timer until its completion.
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
  }

  IoTiming read(std::uint64_t offset, double bytes, bool issue_cpu_done) override {
    IoTiming t;
    return read_from(issue_cpu_done ? now() : initiator(t), offset, bytes, t);
  }
  double book_read(std::uint64_t offset, double bytes) override {
    IoTiming t;
    return book_read_from(now(), offset, bytes, t);
  }
  IoTiming read_from(double issued, std::uint64_t offset, double bytes, IoTiming& t) {
    wait_until(book_read_from(issued, offset, bytes, t));
    return t;
  }
  double book_read_from(double issued, std::uint64_t offset, double bytes, IoTiming& t) {
    Member& member = locate(offset).first;  // the member that returns the data (stripe of the first byte)
    double at_target = to_target(member, issued, fabric_.capsule_bytes);
    double processed = target(*member.node, at_target);
    double done = book_striped(offset, bytes, processed, /*write=*/false);
    double back = to_initiator(member, done, bytes);
    t.network_s += (at_target - issued) + (back - done);
    t.cpu_s += processed - at_target;
    t.device_s += done - processed;
    count_read(t);
    return back;
  }

  IoTiming write(std::uint64_t offset, double bytes, WriteQueue queue) override {
    IoTiming t;
    double issued = initiator(t);
    Member& member = locate(offset).first;
    // Data beyond the in-capsule size is pulled by the target with an RDMA READ: one more round trip.
    double extra_round_trip = bytes > kInCapsuleBytes ? 2 * platform_.route_latency_s() : 0.0;
    double at_target = to_target(member, issued, bytes + fabric_.capsule_bytes) + extra_round_trip;
    double processed = target(*member.node, at_target);
    double done = book_striped(offset, bytes, processed, /*write=*/true, queue);
    double completed = to_initiator(member, done, kCompletionBytes);
    t.network_s += (at_target - issued) + (completed - done);
    t.cpu_s += processed - at_target;
    t.device_s += done - processed;
    wait_until(completed);
    return t;
  }

  IoTiming flush() override {
    IoTiming t;
    double issued = initiator(t);
    // A flush of a striped volume flushes every member; it completes with the slowest.
    double completed = issued;
    for (auto& m : members_) {
      double at_target = to_target(m, issued, fabric_.capsule_bytes);
      double processed = target(*m.node, at_target);
      double done = m.device->flush(processed);
      double back = to_initiator(m, done, kCompletionBytes);
      if (back > completed) {
        completed = back;
        t.network_s = (at_target - issued) + (back - done);
        t.cpu_s = processed - at_target;
        t.device_s = done - processed;
      }
    }
    wait_until(completed);
    return t;
  }

  double capacity_bytes() const override { return capacity_; }
  void hold(double bytes) override {
    for (auto& m : members_) m.device->add_live_bytes(bytes / members_.size());
  }
  double issue_cpu_s() const override { return fabric_.initiator_cpu_s; }
  bool atomic_writes() const override {
    return std::all_of(members_.begin(), members_.end(), [](const Member& m) { return m.device->spec().atomic_writes; });
  }

private:
  // nvmet-rdma's default inline data size (U: Linux nvmet `inline_data_size`, 4 KiB).
  static constexpr double kInCapsuleBytes = 4096;
  // An NVMe completion queue entry (NVMe base specification: 16 bytes).
  static constexpr double kCompletionBytes = 16;

  std::pair<Member&, std::uint64_t> locate(std::uint64_t offset) {
    std::uint64_t stripe = offset / stripe_bytes_;
    Member& m = members_[stripe % members_.size()];
    std::uint64_t device_offset = (stripe / members_.size()) * stripe_bytes_ + offset % stripe_bytes_;
    return {m, device_offset};
  }

  // An IO larger than the stripe unit is split across the members it spans (RAID0); the pieces are
  // served in parallel and the IO completes with the last.
  double book_striped(std::uint64_t offset, double bytes, double at_s, bool write, WriteQueue queue = WriteQueue::Flushing) {
    double done = at_s;
    std::uint64_t end = offset + static_cast<std::uint64_t>(bytes);
    for (std::uint64_t piece = offset; piece < end;) {
      std::uint64_t piece_end = std::min(end, (piece / stripe_bytes_ + 1) * stripe_bytes_);
      auto [m, device_offset] = locate(piece);
      double n = static_cast<double>(piece_end - piece);
      done = std::max(done, write ? m.device->write_arriving(now(), at_s, device_offset, n, queue)
                                  : m.device->read_arriving(now(), at_s, device_offset, n));
      piece = piece_end;
    }
    return done;
  }

  // The initiator's issuing CPU, queued on the compute node's cores; returns when it is done.
  double initiator(IoTiming& t) {
    double start = now();
    double issued = platform_.book_cpu(compute_, start, fabric_.initiator_cpu_s);
    t.cpu_s += issued - start;
    return issued;
  }

  double target(StorageNode& node, double arrival_s) {
    return node.cores->book(now(), arrival_s, fabric_.target_cpu_s / node.config.core_speed).end_s;
  }

  double to_target(Member& m, double ready_s, double bytes) {
    return platform_.transfer(compute_.nic_tx, m.node->port_rx[m.port], ready_s, bytes);
  }
  double to_initiator(Member& m, double ready_s, double bytes) {
    return platform_.transfer(m.node->port_tx[m.port], compute_.nic_rx, ready_s, bytes);
  }

  Platform& platform_;
  ComputeNode& compute_;
  std::vector<Member> members_;
  FabricConfig fabric_;
  std::uint64_t stripe_bytes_;
  double capacity_ = 0;
};

std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t a, std::uint64_t b) {
  // SplitMix64 finaliser: independent streams per device from one scenario seed.
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (a * 1315423911ULL + b + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// The scheduler's time slice: Linux's base slice, 0.75 ms x (1 + log2 cores) (U: kernel/sched/fair.c,
// sysctl_sched_base_slice with SCHED_TUNABLESCALING_LOG), so a burst shorter than it runs to the end.
double time_slice_s(int cores) { return 0.75e-3 * (1 + std::log2(std::max(1, cores))); }

}  // namespace

Platform::Platform(const Scenario& scenario, sg::Engine& engine) : scenario_(scenario) {
  // SimGrid carries the actors and the clock; CPUs, devices and links are poolsim's own analytic
  // queues, so hosts need no links or routes.
  auto* zone = sg::create_full_zone("platform");
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
    // A local device whose completions interrupt one CPU: per-core run queues, core 0 takes them.
    if (!pool && scenario.device(scenario.storage.device).completions_on_one_core) node.irq_core = 0;
    node.cores = std::make_unique<FcfsServerBank>(scenario.compute.cores, node.irq_core >= 0 ? FcfsServerBank::Dispatch::SharedQueue
                                                                                             : FcfsServerBank::Dispatch::Cores);
    node.core_speed = scenario.compute.core_speed;
    node.time_slice_s = time_slice_s(scenario.compute.cores);
    if (pool) {
      node.nic_tx = FabricLink(name + "-nic-tx", fabric.rate_Bps);
      node.nic_rx = FabricLink(name + "-nic-rx", fabric.rate_Bps);
    } else {
      std::vector<NvmeDevice*> members;
      for (int m = 0; m < scenario.storage.local_devices; ++m) {
        // Member 0 keeps the seed of a single local device, so one device behaves as before.
        node.local_devices.push_back(std::make_unique<NvmeDevice>(scenario.device(scenario.storage.device),
                                                                  mix_seed(scenario.simulation.seed, m == 0 ? 0 : 1000 + m, i)));
        members.push_back(node.local_devices.back().get());
      }
      node.storage = std::make_unique<LocalPath>(std::move(members), static_cast<std::uint64_t>(scenario.storage.local_stripe_bytes));
    }
  }
  if (pool) {
    std::map<std::string, StorageNode*> by_name;
    storage_.resize(scenario.storage.nodes.size());
    for (size_t j = 0; j < scenario.storage.nodes.size(); ++j) {
      auto& node = storage_[j];
      node.config = scenario.storage.nodes[j];
      node.host = zone->create_host(node.config.name, node.config.core_speed * kReferenceFlops)
                      ->set_core_count(node.config.cores)
                      ->seal();
      node.cores = std::make_unique<FcfsServerBank>(node.config.cores, FcfsServerBank::Dispatch::Cores);
      for (int d = 0; d < node.config.devices; ++d)
        node.devices.push_back(std::make_unique<NvmeDevice>(scenario.device(node.config.device),
                                                            mix_seed(scenario.simulation.seed, j + 1, d)));
      for (int p = 0; p < node.config.ports; ++p) {
        std::string port = node.config.name + "-port" + std::to_string(p);
        node.port_tx.emplace_back(port + "-tx", fabric.rate_Bps);
        node.port_rx.emplace_back(port + "-rx", fabric.rate_Bps);
      }
      by_name[node.config.name] = &node;
    }
    for (int i = 0; i < scenario.compute.count; ++i) {
      auto& c = compute_[i];
      std::vector<NvmeofVolumePath::Member> members;
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

void Platform::place_data(double bytes_per_node) {
  if (scenario_.storage.valid_data == "full") return;
  for (auto& c : compute_) c.storage->hold(bytes_per_node);
}

void Platform::count_burst(ComputeNode& node, double work_s) {
  ++node.bursts;
  node.burst_sum_s += work_s;
  node.burst_sumsq_s += work_s * work_s;
}

void Platform::compute_from(ComputeNode& node, double ready_s, double reference_s, double idle_extra_s, bool on_irq_core, int* last_core) {
  const int core = pick_core(node, std::max(ready_s, now()), on_irq_core, last_core);
  reference_s += idle_wakeup_charge(node, core, std::max(ready_s, now()), idle_extra_s);
  if (reference_s <= 0) {
    if (ready_s > now()) wait_until(ready_s);
    return;
  }
  count_burst(node, reference_s);
  // Slice by slice: each slice queues behind the work that arrived while the previous one ran.
  double left_s = reference_s / node.core_speed;
  while (left_s > 0) {
    double slice = std::min(left_s, node.time_slice_s);
    wait_until(book_core(node, core, std::max(ready_s, now()), slice, last_core));
    left_s -= slice;
  }
}

double Platform::book_burst(ComputeNode& node, double ready_s, double reference_s, double idle_extra_s, bool on_irq_core, int* last_core) {
  double start = std::max(ready_s, now());
  const int core = pick_core(node, start, on_irq_core, last_core);
  const bool idle = idle_extra_s > 0 && core_idle_at(node, core, start);
  double work_s = reference_s + (idle ? idle_extra_s : 0.0);
  if (work_s <= 0) return start;
  if (work_s / node.core_speed > node.time_slice_s) return -1;
  idle_wakeup_charge(node, core, start, idle_extra_s);  // counted only once booked
  count_burst(node, work_s);
  return book_core(node, core, start, work_s / node.core_speed, last_core);
}

double Platform::idle_wakeup_charge(ComputeNode& node, int core, double at_s, double idle_extra_s) {
  if (idle_extra_s <= 0) return 0.0;
  node.idle_wakeup_offered_s += idle_extra_s;
  if (!core_idle_at(node, core, at_s)) return 0.0;
  node.idle_wakeup_charged_s += idle_extra_s;
  return idle_extra_s;
}

bool Platform::core_idle_at(const ComputeNode& node, int core, double t) {
  return core >= 0 ? node.cores->idle_at(t, static_cast<std::uint64_t>(core)) : node.cores->idle_at(t);
}

double Platform::book_core(ComputeNode& node, int core, double at_s, double service_s, int* last_core) {
  auto slot = core >= 0 ? node.cores->book_on(core, now(), at_s, service_s) : node.cores->book(now(), at_s, service_s);
  if (last_core && node.irq_core >= 0) *last_core = slot.server;
  return slot.end_s;
}

int Platform::pick_core(const ComputeNode& node, double t, bool on_irq_core, const int* last_core) {
  if (node.irq_core < 0) return -1;
  if (on_irq_core) return node.irq_core;
  if (!last_core || *last_core < 0) return -1;
  if (node.cores->idle_at(t, static_cast<std::uint64_t>(*last_core))) return *last_core;
  for (int c = 0; c < node.cores->servers(); ++c)
    if (node.cores->idle_at(t, static_cast<std::uint64_t>(c))) return c;
  return *last_core;
}

double Platform::book_cpu(ComputeNode& node, double ready_s, double reference_s) {
  if (reference_s <= 0) return ready_s;
  return node.cores->book(now(), ready_s, reference_s / node.core_speed).end_s;
}

double Platform::route_latency_s() const {
  return 2 * scenario_.fabric.nic_latency_s + scenario_.fabric.switch_latency_s;
}

double Platform::transfer(FabricLink& out, FabricLink& in, double ready_s, double bytes) const {
  double serialisation = bytes / out.rate_Bps();
  double sent = out.serialise(now(), ready_s, bytes);
  double received = in.serialise(now(), sent - serialisation, bytes);
  return received + route_latency_s();
}

void Platform::reset_counters(double now_s) {
  counters_since_s_ = now_s;
  for (auto& c : compute_) {
    // Work booked before the window and served in it counts in it.
    c.cores->reset_counters(now_s);
    c.bursts = 0;
    c.burst_sum_s = c.burst_sumsq_s = 0;
    c.idle_wakeup_offered_s = c.idle_wakeup_charged_s = 0;
    c.nic_tx.reset_counters(now_s);
    c.nic_rx.reset_counters(now_s);
    for (auto& d : c.local_devices) d->reset_counters(now_s);
  }
  for (auto& s : storage_) {
    s.cores->reset_counters(now_s);
    for (auto& d : s.devices) d->reset_counters(now_s);
    for (auto& l : s.port_tx) l.reset_counters(now_s);
    for (auto& l : s.port_rx) l.reset_counters(now_s);
  }
}

namespace {
nlohmann::ordered_json device_report(const std::string& name, const NvmeDevice& d, double elapsed, double now_s) {
  const auto& c = d.counters();
  double drain_Bps = d.drain_Bps();
  return {{"name", name},
          {"model", d.spec().name},
          // the work served in the window: booked work still queued at its end is not
          {"utilisation", (d.unit_busy_s() - d.backlog_s(now_s)) / (d.spec().units() * elapsed)},
          // Bytes written over what the write buffer drains to flash in the same time: near 1 the
          // buffer fills and writes wait, which the units' utilisation above does not count.
          {"write_drain_utilisation", drain_Bps > 0 ? c.write_bytes / (drain_Bps * elapsed) : 0.0},
          // The drain rate and the valid data that set it (garbage collection's write amplification).
          {"write_drain_MBps", drain_Bps / 1e6},
          {"valid_data_GB", d.valid_bytes() / 1e9},
          {"mean_queue_depth", c.response_s / elapsed},
          {"reads_per_s", c.reads / elapsed},
          {"writes_per_s", c.writes / elapsed},
          {"flushes_per_s", c.flushes / elapsed},
          {"read_MBps", c.read_bytes / elapsed / 1e6},
          {"write_MBps", c.write_bytes / elapsed / 1e6},
          // Mean response per request at the device (its queue and service; the fabric excluded):
          // what the block layer's r_await / w_await / flush await measure on a local device.
          {"read_await_us", c.reads ? c.read_response_s / c.reads * 1e6 : 0.0},
          {"write_await_us", c.writes ? c.write_response_s / c.writes * 1e6 : 0.0},
          {"flush_await_us", c.flushes ? c.flush_response_s / c.flushes * 1e6 : 0.0}};
}
double burst_scv_of(const ComputeNode& c) {
  if (c.bursts < 2 || c.burst_sum_s <= 0) return 0.0;
  double mean = c.burst_sum_s / c.bursts;
  return std::max(0.0, c.burst_sumsq_s / c.bursts / (mean * mean) - 1.0);
}
nlohmann::ordered_json link_report(const FabricLink& l, double elapsed, double now_s) {
  const double bytes = l.served_bytes(now_s);
  return {{"name", l.name()}, {"utilisation", bytes / (l.rate_Bps() * elapsed)}, {"MBps", bytes / elapsed / 1e6}};
}
}  // namespace

nlohmann::ordered_json Platform::report(double now_s) const {
  double elapsed = std::max(now_s - counters_since_s_, 1e-12);
  nlohmann::ordered_json devices = nlohmann::ordered_json::array(), links = nlohmann::ordered_json::array(),
                         cpus = nlohmann::ordered_json::array();
  for (const auto& c : compute_) {
    std::string name = c.host->get_name();
    for (size_t d = 0; d < c.local_devices.size(); ++d)
      devices.push_back(device_report(name + "/" + c.local_devices[d]->spec().name +
                                          (c.local_devices.size() > 1 ? "/dev" + std::to_string(d) : std::string()),
                                      *c.local_devices[d], elapsed, now_s));
    if (c.local_devices.empty()) {
      links.push_back(link_report(c.nic_tx, elapsed, now_s));
      links.push_back(link_report(c.nic_rx, elapsed, now_s));
    }
    cpus.push_back({{"host", name},
                    {"role", "compute"},
                    {"cores", c.host->get_core_count()},
                    // the cores' time served in the window (neighbour load included, as a host's busy
                    // share counts every process): booked work still queued at its end is not
                    {"utilisation", (c.cores->busy_s() - c.cores->backlog_s(now_s)) / (c.host->get_core_count() * elapsed)},
                    // The CPU bursts (one per run between two waits): what perf sched's run times
                    // measure on a real host, in microseconds on this node's cores.
                    {"bursts_per_s", c.bursts / elapsed},
                    {"burst_mean_us", c.bursts ? c.burst_sum_s / c.bursts / c.core_speed * 1e6 : 0.0},
                    {"burst_scv", burst_scv_of(c)}});
    if (c.idle_wakeup_offered_s > 0) {
      // The round trips' wake-ups that found their core idle, and the CPU they cost.
      cpus.back()["idle_wakeup_share"] = c.idle_wakeup_charged_s / c.idle_wakeup_offered_s;
      cpus.back()["idle_wakeup_cpu_us_per_s"] = c.idle_wakeup_charged_s / c.core_speed * 1e6 / elapsed;
    }
    if (c.irq_core >= 0) {
      // Per-core run queues: each core's busy share (the interrupt core runs the woken threads).
      nlohmann::ordered_json per_core = nlohmann::ordered_json::array();
      const auto& busy = c.cores->server_busy_s();
      for (size_t i = 0; i < busy.size(); ++i) per_core.push_back((busy[i] - c.cores->server_backlog_s(static_cast<int>(i), now_s)) / elapsed);
      cpus.back()["irq_core"] = c.irq_core;
      cpus.back()["core_utilisation"] = per_core;
    }
  }
  for (const auto& s : storage_) {
    for (size_t d = 0; d < s.devices.size(); ++d)
      devices.push_back(device_report(s.config.name + "/dev" + std::to_string(d), *s.devices[d], elapsed, now_s));
    for (size_t p = 0; p < s.port_tx.size(); ++p) {
      links.push_back(link_report(s.port_tx[p], elapsed, now_s));
      links.push_back(link_report(s.port_rx[p], elapsed, now_s));
    }
    cpus.push_back({{"host", s.config.name},
                    {"role", "storage"},
                    {"cores", s.config.cores},
                    {"utilisation", (s.cores->busy_s() - s.cores->backlog_s(now_s)) / (s.config.cores * elapsed)}});
  }
  return {{"devices", devices}, {"links", links}, {"cpus", cpus}};
}

}  // namespace poolsim
