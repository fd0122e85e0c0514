#include "scenario/scenario.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <fstream>
#include <initializer_list>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "scenario/builtin_catalogue.h"  // generated: kBuiltinCatalogueYaml
#include "scenario/builtin_profiles.h"   // generated: kBuiltinProfiles
#include "engine/btree.h"                // DataLayout::pages_for (the data set's size check)
#include "workload/sysbench.h"           // SysbenchMix (a transaction with no statement)
#include "ndb/ndb_schema.h"               // ndb_spec(), custom_mix_spec(), check_ndb_scenario()
#include "core/input_file.h"             // read_input_text (read_file)
#include "core/utf8.h"                   // require_utf8 (parse_yaml, parse_override)

namespace poolsim {

using namespace schema;

namespace {

// A disk sector: direct IO (fio's libaio jobs) transfers whole ones.
constexpr double kSectorBytes = 512;

// Bounds on a device's figures, far above any device: what passes them is a typo's extra zeros or a unit slip.
// No device moves over 1 TB/s: PCIe 6.0 x16 carries 128 GB/s, tmpfs (kind ram) one socket's DDR5 614 GB/s.
constexpr double kMaxDeviceBandwidthBps = 1e12;
// One IO per nanosecond: no kernel IO path (a system call, ~100 ns) completes faster; ram-tmpfs does 100M/s.
constexpr double kMaxDeviceIops = 1e9;
// The largest SSD sold holds 122.88 TB (2024): 1 PiB is eight of it; a write buffer or raw flash is no larger.
constexpr double kMaxDeviceBytes = 1024.0 * 1024 * 1024 * 1024 * 1024;

SpecPtr device_spec() {
  return map({
      {"kind", required(one_of({"nvme", "sata", "pcie-flash", "ram", "virtual-disk"}, "Device class"))},
      {"description", string("What the entry models")},
      {"source", required(string("Where the figures come from: datasheet, review, fio trace (V: read in the source, U: commonly quoted)"))},
      {"capacity", required(whole_bytes(quantity(Dimension::Bytes, 0.0, kMaxDeviceBytes, "Usable capacity", true)))},
      {"reference_block", with_default(whole_bytes(quantity(Dimension::Bytes, 512.0, 16.0 * 1024 * 1024, "The IO size the latency and IOPS figures are quoted for")), "4KiB")},
      {"read_latency", required(quantity(Dimension::Seconds, 0.0, 1.0, "Random read latency of a reference block at queue depth 1, as fio measures it", true))},
      {"read_service", with_default(quantity(Dimension::Seconds, 0.0, 1.0, "Time a unit is busy per reference read (0: read_latency less the interface time; the rest of read_latency is a delay that occupies nothing)"), "0us")},
      {"read_transfer_rate", with_default(quantity(Dimension::BytesPerSecond, 0.0, kMaxDeviceBandwidthBps, "Per-unit transfer rate for the part of a read beyond the reference block (0: none)"), "0B/s")},
      {"read_iops", required(quantity(Dimension::PerSecond, 0.0, kMaxDeviceIops, "Random read ceiling in reference blocks", true))},
      {"parallel_units", with_default(integer(0.0, 1e6, "Internal parallel units (0: read_iops x unit service time)"), "0")},
      {"read_bandwidth", required(quantity(Dimension::BytesPerSecond, 0.0, kMaxDeviceBandwidthBps, "Interface bandwidth, device to host", true))},
      {"write_bandwidth", required(quantity(Dimension::BytesPerSecond, 0.0, kMaxDeviceBandwidthBps, "Interface bandwidth, host to device", true))},
      {"write_latency", required(quantity(Dimension::Seconds, 0.0, 1.0, "Write acknowledge latency of a reference block at queue depth 1", true))},
      {"write_iops", required(quantity(Dimension::PerSecond, 0.0, kMaxDeviceIops, "Steady-state random write rate in reference blocks over the full span (every block valid): the write buffer drains at this rate (with raw_capacity: at the rate the data held allows), and each write programs a unit for units / drain rate per reference block", true))},
      {"write_cache", with_default(whole_bytes(quantity(Dimension::Bytes, 0.0, kMaxDeviceBytes, "Write-back buffer")), "0B")},
      {"raw_capacity", with_default(whole_bytes(quantity(Dimension::Bytes, 0.0, kMaxDeviceBytes, "Flash behind the usable capacity (over-provisioning included). With it, write_iops is read as the full-span rate and the drain rate follows garbage collection's write amplification at the data the device holds (storage.valid_data); 0: unknown, the drain rate stays write_iops")), "0B")},
      {"flush_latency", required(quantity(Dimension::Seconds, 0.0, 10.0, "Flush (fsync) command latency on an empty buffer"))},
      {"power_loss_protection", with_default(boolean("A flush need not wait for the buffer to drain"), "false")},
      {"flush_blocks_io", with_default(boolean("A flush is not a queued command: it waits for the requests in flight and holds back those issued while it runs (SATA's non-NCQ FLUSH CACHE; a virtual disk whose host serves the flush)"), "false")},
      {"atomic_writes", with_default(boolean("The device writes 16 KiB pages atomically"), "false")},
      {"rotational", boolean("What the server finds rotational (innodb_flush_neighbors on MariaDB): a block device whose /sys/block/<dev>/queue/rotational is 1, or no block device at all (tmpfs); absent: true for kinds virtual-disk (a virtio-blk disk reports 1: /sys/block/vda/queue/rotational on the capture VM) and ram (tmpfs), false for SSDs")},
      {"service", with_default(one_of({"deterministic", "exponential"}, "Service time distribution around its mean"), "deterministic")},
      {"host_cpu_per_io", with_default(quantity(Dimension::Seconds, 0.0, 1.0, "Host CPU per IO in the kernel's path to this device (reference-core seconds)"), "0us")},
      {"host_cpu_per_write", quantity(Dimension::Seconds, 0.0, 1.0, "Host CPU per page written (data or doublewrite) when it differs from a read's (calibrate --background writes the background threads' CPU per page written, measured by thread); absent: host_cpu_per_io")},
      {"host_cpu_per_flush", with_default(quantity(Dimension::Seconds, 0.0, 1.0, "Host CPU per fsync on this device: file system journal, flush command, wake-ups (reference-core seconds)"), "0us")},
      {"completion_interrupts", with_default(one_of({"submitting-core", "one-core"}, "Where the host takes this device's completions: submitting-core (NVMe and multi-queue devices: a completion queue and interrupt vector per CPU), one-core (a single request queue whose interrupt vector is delivered to one CPU, as a one-queue virtio-blk disk: a thread woken by its page read's completion runs on that core until its statement ends)"), "submitting-core")},
      {"read_priority", with_default(boolean("Programs run only in a unit's idle time, so a read waits at most for one program; false: programs queue FCFS with reads"), "true")},
      {"program_suspend", quantity(Dimension::Seconds, 0.0, 0.1, "Program suspension (read_priority and queue: per-unit only): every program queues at its unit, and a read that meets one waits only this long, for the program's next suspend point; the program resumes after the read (Wu & He, FAST'12). Absent: programs are not suspended, a read that meets one waits for all of it")},
      {"queue", with_default(one_of({"per-unit", "shared"}, "per-unit: a request queues at the unit its address maps to (flash dies); shared: the first free unit takes it (M/M/c)"), "per-unit")},
  }, "A storage device model");
}

SpecPtr build_scenario_schema() {
  auto duration = [](const std::string& d, std::optional<double> min = 0.0) {
    return quantity(Dimension::Seconds, min, std::nullopt, d);
  };
  return map({
      {"name", string("Scenario name")},
      {"description", string("What the scenario is for")},
      {"catalogue", seq(string(), "Extra device catalogue files, relative to this file")},
      {"devices", dict(device_spec(), "Extra device models, by name")},
      {"compute", map({
           {"count", with_default(integer(1.0, 4096.0, "Number of compute nodes"), "1")},
           {"cores", with_default(integer(1.0, kMaxCoresPerNode, "Cores per compute node"), "2")},
           {"core_speed", with_default(real(0.0, 100.0, "Core speed relative to the calibration host's core", true), "1.0")},
           {"frequency", quantity(Dimension::Hertz, 0.0, std::nullopt, "Nominal clock (informative)", true)},
           {"memory", with_default(whole_bytes(quantity(Dimension::Bytes, 0.0, std::nullopt, "Memory per compute node", true)), "24GiB")},
           {"background_load", with_default(real(0.0, 4096.0, "Cores kept busy by other processes (a measured neighbour load)"), "0")},
       }, "Compute nodes (database servers, no local data disk in pool mode)")},
      {"storage", map({
           {"kind", with_default(one_of({"local", "pool"}, "local: a device in each compute node; pool: a striped volume on storage nodes over the fabric"), "local")},
           {"device", with_default(string("Device model (catalogue name) of the local case"), "pcie4-nvme-tlc")},
           {"devices", with_default(integer(1.0, 64.0, "Local devices per compute node, striped into one volume (RAID0) when more than one"), "1")},
           {"stripe", with_default(whole_bytes(quantity(Dimension::Bytes, 4096.0, std::nullopt, "Stripe unit (chunk) of the local devices (Linux md's default, U: mdadm 3.1+)")), "512KiB")},
           {"valid_data", with_default(one_of({"database", "full"}, "What the SSDs hold as valid data, which sets garbage collection's write amplification and so how fast their write buffers drain (devices with raw_capacity). database: only the database's files (a file system made on a discarded device: mkfs.xfs and mke2fs discard the whole device by default); full: every block (a device filled and never trimmed: the datasheets' steady state)"), "database")},
           {"nodes", seq(map({
                {"name", required(string("Storage node name"))},
                {"cores", with_default(integer(1.0, 4096.0, "Cores serving NVMe-oF"), "32")},
                {"core_speed", with_default(real(0.0, 100.0, "Relative core speed", true), "1.0")},
                {"device", with_default(string("Device model (catalogue name)"), "pcie4-nvme-tlc")},
                {"devices", with_default(integer(1.0, 1024.0, "Number of devices"), "8")},
                {"ports", with_default(integer(1.0, 64.0, "Fabric ports"), "1")},
            }), "Storage nodes")},
           {"volume", map({
                {"nodes", seq(string(), "Storage nodes the volume spans (default: all)")},
                {"devices_per_node", with_default(integer(0.0, 1024.0, "Devices used on each node (0: all)"), "0")},
                {"stripe", with_default(whole_bytes(quantity(Dimension::Bytes, 4096.0, std::nullopt, "Stripe unit")), "64KiB")},
            }, "The volume each compute node uses in pool mode")},
       }, "Where the data lives")},
      {"fabric", map({
           {"preset", with_default(one_of({"ib-fdr", "ib-edr", "ib-hdr100", "ib-hdr", "eth-10g", "eth-25g", "eth-100g"}, "Link preset (rate, latencies, transport)"), "ib-hdr100")},
           {"transport", one_of({"rdma", "tcp"}, "NVMe-oF transport (default: rdma on InfiniBand, tcp on Ethernet)")},
           {"rate", quantity(Dimension::BytesPerSecond, 0.0, std::nullopt, "Port rate per direction (overrides the preset)", true)},
           {"nic_latency", duration("Adapter latency per end (overrides the preset)")},
           {"switch_latency", duration("Switch port-to-port latency (overrides the preset)")},
           {"initiator_cpu", duration("NVMe-oF CPU per IO on the compute node (overrides the transport default)")},
           {"target_cpu", duration("NVMe-oF CPU per IO on the storage node (overrides the transport default)")},
       }, "The network between compute and storage nodes")},
      {"workload", map({
           {"kind", with_default(one_of({"fio", "sysbench", "ndb"}, "Workload generator (ndb: a custom mix on the `ndb:` cluster)"), "fio")},
           {"mix", custom_mix_spec()},
           {"test", with_default(one_of({"oltp_read_write", "oltp_read_only", "oltp_write_only", "oltp_point_select", "oltp_update_index", "oltp_update_non_index", "oltp_insert", "oltp"}, "sysbench test (oltp = 0.5's oltp.lua)"), "oltp_read_write")},
           {"version", with_default(one_of({"1.0.20", "0.5"}, "sysbench version (statement counting, key formulas)"), "1.0.20")},
           {"tables", with_default(integer(1.0, kMaxSysbenchTables, "--tables"), "1")},
           {"table_size", with_default(integer(1.0, 4e9, "--table-size (rows per table)"), "10000")},
           {"range_size", with_default(integer(1.0, 1e6, "--range_size"), "100")},
           {"point_selects", with_default(integer(0.0, 1000.0, "--point_selects"), "10")},
           {"simple_ranges", with_default(integer(0.0, 1000.0, "--simple_ranges"), "1")},
           {"sum_ranges", with_default(integer(0.0, 1000.0, "--sum_ranges"), "1")},
           {"order_ranges", with_default(integer(0.0, 1000.0, "--order_ranges"), "1")},
           {"distinct_ranges", with_default(integer(0.0, 1000.0, "--distinct_ranges"), "1")},
           {"index_updates", with_default(integer(0.0, 1000.0, "--index_updates"), "1")},
           {"non_index_updates", with_default(integer(0.0, 1000.0, "--non_index_updates"), "1")},
           {"delete_inserts", with_default(integer(0.0, 1000.0, "--delete_inserts"), "1")},
           {"skip_trx", with_default(boolean("--skip_trx"), "false")},
           {"rand_type", with_default(one_of({"uniform", "special", "gaussian", "pareto", "zipfian"}, "--rand-type (special is 1.0.20's default; zipfian is sysbench master's)"), "special")},
           {"rand_spec_pct", with_default(real(0.0, 100.0, "--rand-spec-pct", true), "1")},
           {"rand_spec_res", with_default(real(0.0, 100.0, "--rand-spec-res"), "75")},
           {"rand_spec_iter", with_default(integer(1.0, 1000.0, "--rand-spec-iter"), "12")},
           {"rand_pareto_h", with_default(real(0.0, 0.5, "--rand-pareto-h", true), "0.2")},
           {"rand_zipfian_exp", with_default(real(0.0, 10.0, "--rand-zipfian-exp", true), "0.8")},
           {"threads", with_default(integer(1.0, kMaxClientThreads, "Client threads per compute node (--threads)"), "1")},
           {"warmup_threads", integer(1.0, kMaxClientThreads, "Client threads during the warm-up, when the warm-up load differs from the measured one (capture.py warms the pool at 16 threads before every run); the threads beyond `threads` stop when the measurement starts. Absent: `threads`")},
           {"rate", with_default(quantity(Dimension::PerSecond, 0.0, std::nullopt, "--rate: transactions per second per compute node (0/s: closed loop)"), "0/s")},
           {"clients", map({
                {"location", with_default(one_of({"local", "remote"}, "local: sysbench on the database host, sharing its cores; remote: on client hosts"), "local")},
                {"round_trip", with_default(quantity(Dimension::Seconds, 0.0, 1.0, "Network round trip per statement for remote clients"), "50us")},
            }, "Where sysbench runs")},
           {"fio", map({
                {"rw", with_default(one_of({"randread", "randwrite", "randrw"}, "IO pattern"), "randread")},
                {"bs", with_default(whole_bytes(quantity(Dimension::Bytes, 512.0, 64.0 * 1024 * 1024, "Block size")), "16KiB")},
                {"iodepth", with_default(integer(1.0, 65536.0, "IOs in flight per job"), "1")},
                {"numjobs", with_default(integer(1.0, 4096.0, "Jobs (per compute node)"), "1")},
                {"rwmixread", with_default(quantity(Dimension::Ratio, 0.0, 1.0, "Read share for randrw"), "70%")},
                {"fsync", with_default(integer(0.0, 1e9, "fsync after this many writes (0: never)"), "0")},
                {"span", with_default(whole_bytes(quantity(Dimension::Bytes, 0.0, std::nullopt, "Address range (0B: whole device or volume)")), "0B")},
                {"rate", with_default(quantity(Dimension::PerSecond, 0.0, std::nullopt, "Open loop: Poisson arrivals per compute node (0/s: closed loop)"), "0/s")},
            }, "An fio-like job (libaio, direct IO)")},
       }, "What the clients do")},
      {"database", map({
           {"profile", with_default(string("Server profile: a name in scenarios/profiles/ or a path"), "mariadb-10.11")},
           {"buffer_pool", with_default(whole_bytes(quantity(Dimension::Bytes, 1024.0 * 1024, std::nullopt, "innodb_buffer_pool_size")), "128MiB")},
           {"page_size", with_default(whole_bytes(quantity(Dimension::Bytes, kInnodbPageBytes, kInnodbPageBytes, "innodb_page_size (16 KiB only)")), "16KiB")},
           {"old_blocks_pct", with_default(quantity(Dimension::Ratio, 0.05, 0.95, "innodb_old_blocks_pct"), "37%")},
           {"old_blocks_time", with_default(quantity(Dimension::Seconds, 0.0, 3600.0, "innodb_old_blocks_time"), "1s")},
           {"io_capacity", with_default(integer(100.0, 1e9, "innodb_io_capacity"), "200")},
           {"io_capacity_max", with_default(integer(0.0, 1e9, "innodb_io_capacity_max (0: max(2000, 2 x io_capacity))"), "0")},
           {"lru_scan_depth", with_default(integer(100.0, 1e9, "innodb_lru_scan_depth"), "1024")},
           {"max_dirty_pages_pct", with_default(quantity(Dimension::Ratio, 0.0, 0.999, "innodb_max_dirty_pages_pct"), "90%")},
           {"max_dirty_pages_pct_lwm", with_default(quantity(Dimension::Ratio, 0.0, 0.999, "innodb_max_dirty_pages_pct_lwm"), "10%")},
           {"adaptive_flushing_lwm", with_default(quantity(Dimension::Ratio, 0.0, 0.7, "innodb_adaptive_flushing_lwm"), "10%")},
           {"log_file_size", with_default(whole_bytes(quantity(Dimension::Bytes, 1024.0 * 1024, std::nullopt, "innodb_log_file_size")), "48MiB")},
           {"log_files_in_group", with_default(integer(1.0, 100.0, "innodb_log_files_in_group"), "2")},
           {"flush_log_at_trx_commit", with_default(integer(0.0, 2.0, "innodb_flush_log_at_trx_commit"), "1")},
           {"doublewrite", with_default(boolean("innodb_doublewrite"), "true")},
           {"atomic_writes", with_default(boolean("innodb_use_atomic_writes (effective only on devices with atomic writes)"), "false")},
           {"checksum", with_default(one_of({"crc32", "innodb", "none"}, "innodb_checksum_algorithm"), "crc32")},
           {"binlog", with_default(boolean("log_bin"), "false")},
           {"sync_binlog", with_default(integer(0.0, 1e9, "sync_binlog"), "0")},
           {"thread_concurrency", with_default(integer(0.0, 100000.0, "innodb_thread_concurrency (0: unlimited)"), "0")},
           {"write_io_slots", with_default(integer(1.0, 100000.0, "Page writes in flight per flush batch (innodb_write_io_threads x AIO slots)"), "64")},
           {"page_cleaners", with_default(integer(1.0, 64.0, "innodb_page_cleaners: page cleaner threads; in MySQL 5.6-8.x and MariaDB <= 10.4 each flushes its share of the LRU tail and then of the flush list in every pass, the next pass waiting for all (MySQL 5.7/8.0 default 4); MariaDB 10.5+ has one page cleaner, and this many LRU flush batches run beside it"), "1")},
           {"buffer_pool_instances", with_default(integer(1.0, 64.0, "innodb_buffer_pool_instances: the LRU flush keeps lru_scan_depth pages free per instance, in batches of one instance each. Applied as given, whatever the profile's product: MySQL 5.6-8.0 and MariaDB <= 10.4 divide the pool, MariaDB 10.5+ has one instance whatever the setting (leave it at 1 for such a server; validate sets it from a trace only where the server divides the pool)"), "1")},
           {"doublewrite_files", with_default(integer(0.0, 256.0, "Doublewrite batches in flight at once: MySQL 5.7 and MariaDB have one shared doublewrite buffer (1), MySQL 8.0.20+ innodb_doublewrite_files; 0: no limit"), "0")},
           {"flush_method", with_default(one_of({"O_DIRECT", "fsync"}, "innodb_flush_method: O_DIRECT opens the data files past the OS page cache (MariaDB 10.6+ default); fsync reads and writes them through it (MySQL 5.x and MariaDB <= 10.5 default), so a buffer-pool miss the page cache holds is a memory copy, not a device read"), "O_DIRECT")},
           {"page_cache", with_default(with_keywords(whole_bytes(quantity(Dimension::Bytes, 16384.0, std::nullopt, "With flush_method fsync: the OS page cache's capacity for the data files; auto: the compute node's memory less the buffer pool")), {"auto"}), "auto")},
           {"page_splits_per_row_change", with_default(with_keywords(real(0.0, 100.0, "B-tree page splits per row changed: the data set's age (a freshly loaded sysbench set splits its packed index k at most inserts; an aged one rarely), which sets the redo split pages add (the profile's redo_bytes_per_page_split); profile: the profile's figure. validate sets it from a trace's Innodb_buffer_pool_pages_split"), {"profile"}), "profile")},
           {"flush_neighbors", with_default(integer(0.0, 2.0, "innodb_flush_neighbors: a page flushed also writes the dirty pages of its 64-page area, 1 the contiguous run around it, 2 all of them (LRU flushes take only old pages, and free them too); 0: off. Defaults: MySQL 8.0 0, MySQL 5.7 and MariaDB 1 (MariaDB only on devices it finds rotational: the profile's flush_neighbors_devices)"), "0")},
       }, "The database server (InnoDB)")},
      {"simulation", map({
           {"seed", with_default(integer(0.0, 9.0e15, "Random seed"), "1")},
           {"warmup", with_default(with_keywords(duration("Simulated time discarded before measuring; auto: until MSER finds no transient in the batch series"), {"auto"}), "0.2s")},
           {"warmup_turnovers", with_default(real(0.0, 1000.0, "After `warmup`, warm up on until the buffer pool has read this many times its frames (a pool turned over a few times holds its steady share of dirty pages, and the page cleaner its steady rate); 0: off"), "0")},
           {"warmup_fast_forward", with_default(boolean("With warmup_turnovers > 0 (without, it does nothing): instead of `warmup`, run fast_forward_pace timed, reach the turnovers without timing (the transactions' page accesses and dirtying replayed through the pool at the throughput of fast_forward_pace's second half, the page cleaner's flush-list and LRU flushes run once per virtual second as in the timed loops, no IO), then run fast_forward_settle timed before measuring (both default to `warmup`): the flushing's steady state for a fraction of the timed warm-up's cost"), "false")},
           {"fast_forward_pace", with_default(with_keywords(duration("With warmup_fast_forward: the timed simulated time before the fast-forward, whose second half measures the throughput the replay's virtual clock runs at; warmup: the `warmup` value"), {"warmup"}), "warmup")},
           {"fast_forward_settle", with_default(with_keywords(duration("With warmup_fast_forward: the timed simulated time after the fast-forward, before measuring (or before the timed turnovers, if the replay stopped short of them), in which the page cleaner's and LRU flusher's timed loops take over from the replay's state; warmup: the `warmup` value"), {"warmup"}), "warmup")},
           {"fast_forward_steady", with_default(boolean("With warmup_fast_forward: end the replay once its flushing is steady, when that comes before warmup_turnovers: after each batch of 5 virtual seconds from the tenth batch, MSER (as `warmup: auto` uses it, here over 5-second means: MSER-5) truncates less than the first half of both the replay's pages written per second and its dirty pages; the turnovers not reached are then not run timed either. false: the replay runs to the turnovers"), "false")},
           {"max_warmup", with_default(quantity(Dimension::Seconds, 0.0, std::nullopt, "Cap on the whole warm-up when warmup_turnovers is set (a pool that holds the data set never turns over)", true), "900s")},
           {"batch", with_default(quantity(Dimension::Seconds, 0.0, std::nullopt, "Batch length for batch means", true), "0.1s")},
           {"min_batches", with_default(integer(2.0, 100000.0, "Batches before the stop rule may end a point"), "10")},
           {"target_ci", with_default(quantity(Dimension::Ratio, 0.0, 1.0, "Stop when the throughput's CI half-width is within this fraction of the mean", true), "2%")},
           {"confidence", with_default(quantity(Dimension::Ratio, 0.5, 0.999, "Confidence level"), "95%")},
           {"max_duration", with_default(quantity(Dimension::Seconds, 0.0, std::nullopt, "Cap on measured simulated time", true), "30s")},
       }, "Simulation control")},
      {"ndb", ndb_spec()},
      {"variants", dict(map({}, "{dotted.key: value}: any value the key takes, lists and mappings included (checked when the variant is applied)", true), "Named sets of settings: variant name -> {dotted.key: value}; `variant:` picks one, and a sweep over `variant` selects several keys per point")},
      {"variant", string("The entry of `variants` this point uses (its keys override the file's; sweeps and --set override it)")},
      {"sweep", dict(seq(string()), "Lists of values by dotted key; the cartesian product runs, one point each")},
      {"validation", map({
           {"columns", dict(map({
                {"key", string("The scenario key this column's value is written to (for example workload.threads)")},
                {"values", dict(dict(string()), "For each value of the column, the scenario keys it sets; rows with other values are skipped")},
            }), "How a published table's columns select a point: by column name")},
           {"measured", dict(string(), "The measured figures: figure name (tps, qps, p95_ms, p99_ms, mean_ms, ops_per_s) -> column")},
       }, "How `poolsim validate --scenario FILE --table CSV` reads a published table")},
  }, "A poolsim scenario");
}

struct FabricPreset {
  const char* name;
  const char* transport;
  double rate_bps;
  double nic_latency_s;
  double switch_latency_s;
  const char* source;
};

// Figures from ../shared/anchors/devices.md; V = read in the source, U = commonly quoted.
// NIC latency is per adapter: 2 x 0.35 us + 0.13 us switch = 0.83 us, the measured RC one-way
// latency at 32 B on ConnectX-6 (V).
const FabricPreset kFabricPresets[] = {
    {"ib-fdr", "rdma", 54.54e9, 0.45e-6, 0.20e-6, "FDR 4 x 14.0625 Gb/s 64b/66b = 54.5 Gb/s (V: SB7890 manual); ConnectX-3 sub-microsecond (V); switch ~200 ns (U)"},
    {"ib-edr", "rdma", 100e9, 0.35e-6, 0.09e-6, "EDR 4 x 25.78125 Gb/s 64b/66b (V); Switch-IB 2 ~90 ns (U)"},
    {"ib-hdr100", "rdma", 100e9, 0.35e-6, 0.13e-6, "HDR100 2 x 53.125 Gb/s PAM4, 100 Gb/s effective (V: ConnectX-6 manual); RC one-way 0.83 us at 32 B (V); Quantum ~130 ns (U)"},
    {"ib-hdr", "rdma", 200e9, 0.35e-6, 0.13e-6, "HDR 200 Gb/s (V: ConnectX-6 manual); Quantum ~130 ns (U)"},
    {"eth-10g", "tcp", 10e9, 2.5e-6, 0.3e-6, "10GbE; adapter ~2.5 us (U); cut-through switch 190-500 ns (V)"},
    {"eth-25g", "tcp", 25e9, 2.0e-6, 0.3e-6, "25GbE; adapter ~2 us (U); cut-through switch (V)"},
    {"eth-100g", "tcp", 100e9, 1.5e-6, 0.3e-6, "100GbE; adapter ~1.5 us (U); cut-through switch (V)"},
};

struct TransportCost {
  double initiator_cpu_s;
  double target_cpu_s;
};
// RDMA: kernel nvmet-rdma serves ~1/5 of SPDK's 1.35M IOPS per core -> 3.7 us per IO at the target
// (V: SPDK 24.05 report); the kernel initiator costs ~4.9 us more than SPDK's (V), taken as 4 us so
// that the added latency stays in the +6-12 us budget. TCP: +20-40 us added per IO (V: ReFlex +21 us
// user space; kernel higher), of which ~5 us per side is stack CPU (U).
TransportCost transport_cost(const std::string& transport) {
  if (transport == "tcp") return {5e-6, 5e-6};
  return {4e-6, 3.7e-6};
}

}  // namespace

std::string read_file(const std::string& path, const SourceLocation& referenced_from, const std::string& key) {
  return read_input_text(path, referenced_from, key);  // bounded: /dev/zero as a catalogue ran out of memory
}

namespace {

// The nodes a document may expand to through its aliases: far above any scenario or trace (the
// largest, a seed scenario, has a few hundred), far below what exhausts memory; a "billion laughs"
// document of nested aliases stops here instead of hanging.
constexpr std::size_t kMaxYamlNodes = 1000000;

struct YamlWalk {
  const std::string& origin_name;
  std::vector<YAML::Node> stack;  // the nodes being walked, to find an alias that contains itself
  std::size_t visited = 0;
};

// YAML forbids a key twice in one mapping, but yaml-cpp keeps both and a lookup returns one of them:
// the other value would be ignored without a word. Also rejects what every later walk of the tree
// would choke on: an alias that contains itself (endless recursion) and an expansion too large.
void check_yaml_node(const YAML::Node& node, const std::string& path, YamlWalk& walk) {
  const YAML::Mark at = node.Mark();
  const SourceLocation where{walk.origin_name, at.line + 1, at.column + 1};
  if (++walk.visited > kMaxYamlNodes)
    throw InputError(where, path, "the document expands to more than " + std::to_string(kMaxYamlNodes) +
                                      " nodes through its aliases");
  if (!node.IsMap() && !node.IsSequence()) return;
  for (const YAML::Node& open : walk.stack)
    if (open.is(node)) throw InputError(where, path, "an alias refers to a node that contains it (a recursive anchor)");
  walk.stack.push_back(node);
  if (node.IsMap()) {
    std::map<std::string, int> first_line;
    for (const auto& entry : node) {
      const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : std::string();
      const std::string key_path = path.empty() ? key : path + "." + key;
      // YAML 1.1's merge key (<<: *anchor) is not merged by yaml-cpp: it stays a key named "<<", and
      // where unknown keys are ignored (trace meta.yaml) its values would be dropped unseen.
      if (entry.first.IsScalar() && key == "<<")
        throw InputError({walk.origin_name, entry.first.Mark().line + 1, entry.first.Mark().column + 1}, key_path,
                         "a YAML merge key ('<<'), which poolsim does not merge: write the keys out");
      if (entry.first.IsScalar()) {
        auto [it, inserted] = first_line.emplace(key, entry.first.Mark().line + 1);
        if (!inserted)
          throw InputError({walk.origin_name, entry.first.Mark().line + 1, entry.first.Mark().column + 1}, key_path,
                           "duplicate key '" + key + "' (first at line " + std::to_string(it->second) +
                               "): a mapping may hold a key once");
      }
      check_yaml_node(entry.second, key_path, walk);
    }
  } else {
    for (std::size_t i = 0; i < node.size(); ++i)
      check_yaml_node(node[i], path + "[" + std::to_string(i) + "]", walk);
  }
  walk.stack.pop_back();
}

void check_yaml_tree(const YAML::Node& doc, const std::string& origin_name) {
  YamlWalk walk{origin_name, {}, 0};
  check_yaml_node(doc, "", walk);
}

}  // namespace

bool is_server_version(const std::string& version) {
  static const std::regex kVersion(R"(^\d+\.\d+(\.\d+)?([-+~].*)?$)");
  return std::regex_match(version, kVersion);
}

YAML::Node parse_yaml(const std::string& text, const std::string& origin_name) {
  require_utf8(text, origin_name);  // names and values reach the JSON outputs, which must be UTF-8
  // YAML allows no control character but tab, line feed and carriage return. yaml-cpp read a NUL
  // inside a plain scalar as something else ("name: a<NUL>b" became "a\bb ") or as a bogus escape.
  for (std::size_t i = 0, line = 1, line_start = 0; i < text.size(); ++i) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b == '\n') ++line, line_start = i + 1;
    if ((b < 0x20 && b != '\t' && b != '\n' && b != '\r') || b == 0x7F) {
      char byte[8];
      std::snprintf(byte, sizeof byte, "0x%02X", b);
      throw InputError({origin_name, static_cast<int>(line), static_cast<int>(i - line_start + 1)}, "",
                       std::string("a control character (byte ") + byte + "), which YAML does not allow in a file: remove it");
    }
  }
  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAll(text);
  } catch (const YAML::Exception& e) {
    throw InputError({origin_name, e.mark.line + 1, e.mark.column + 1}, "", "YAML syntax error: " + e.msg);
  }
  // Every input is one document: a second one (after `---` or `...`) would be ignored without a word.
  for (std::size_t i = 1; i < docs.size(); ++i)
    if (!docs[i].IsNull())
      throw InputError({origin_name, docs[i].Mark().line + 1, docs[i].Mark().column + 1}, "",
                       "a second YAML document: the file must hold one (remove the `---` or `...` before it)");
  YAML::Node doc = docs.empty() ? YAML::Node() : docs.front();
  check_yaml_tree(doc, origin_name);
  return doc;
}

namespace {

// The first of `keys` the file itself writes under `section` (a null node when it writes none: the
// value came from a default or --set), for an error's file:line:column.
// The kernel's limit on a process's memory mappings (/proc/sys/vm/max_map_count; Linux's default
// 65530 where it cannot be read).
long max_map_count() {
  static const long limit = [] {
    std::ifstream in("/proc/sys/vm/max_map_count");
    long value = 0;
    return in >> value && value > 0 ? value : 65530L;
  }();
  return limit;
}

// The node the file writes at `path` (an undefined node where it writes none), for an error's location.
YAML::Node written_node(const YAML::Node& raw, std::initializer_list<const char*> path) {
  YAML::Node node;
  node.reset(raw);  // reset, not =: assigning a YAML::Node writes into the node it refers to
  for (const char* key : path) {
    const YAML::Node& view = node;  // const lookups: no keys are created
    if (!view || !view.IsMap() || !view[key]) return YAML::Node(YAML::NodeType::Undefined);
    node.reset(view[key]);
  }
  return node;
}

YAML::Node written_at(const YAML::Node& raw, const char* section, std::initializer_list<const char*> keys) {
  for (const char* key : keys)
    if (YAML::Node node = written_node(raw, {section, key}); node.IsDefined()) return node;
  return YAML::Node();
}

// Keys another workload generator reads would be ignored without a word: a fio job under another
// kind (always), and, when the point's kind is the file's own (`kind_as_written`: not a --set's, a
// variant's or a sweep's what-if), an NDB cluster or sysbench's keys under another kind: a scenario
// without `kind` runs fio (the default) whatever sysbench or NDB keys it has, and sysbench's threads
// or rate do not pace fio or the NDB load generators.
void refuse_keys_of_other_workloads(const YAML::Node& raw, const std::string& kind, const Origin& origin, bool kind_as_written) {
  if (kind != "fio") {
    const YAML::Node written = written_at(raw, "workload", {"fio"});
    if (written.IsDefined() && !written.IsNull())
      throw InputError(origin.locate("workload.fio", written), "workload.fio",
                       "a fio job under workload.kind " + kind + " would not run: remove it, or set kind: fio");
  }
  if (!kind_as_written) return;
  const bool kind_written = written_node(raw, {"workload", "kind"}).IsDefined();
  const std::string kind_said = "workload.kind is " + kind + (kind_written ? "" : " (the default)");
  if (kind != "ndb") {
    if (YAML::Node n = written_node(raw, {"ndb"}); n.IsDefined() && !n.IsNull())
      throw InputError(origin.locate("ndb", n), "ndb", "an NDB cluster runs with workload.kind ndb only (" + kind_said + "): set the kind, or remove the section");
    if (YAML::Node n = written_node(raw, {"workload", "mix"}); n.IsDefined() && !n.IsNull())
      throw InputError(origin.locate("workload.mix", n), "workload.mix", "a custom mix runs on an NDB cluster, with workload.kind ndb (" + kind_said + "): set the kind, or remove it");
  }
  if (kind == "sysbench") return;
  // Sections only some kinds read: InnoDB's for sysbench; the platform's for sysbench and fio (an NDB
  // cluster's nodes, CPUs and transporter are its own section's).
  std::vector<std::pair<const char*, std::string>> sections = {{"database", "InnoDB's settings, which only sysbench points run"}};
  if (kind == "ndb")
    for (const char* platform : {"compute", "storage", "fabric"})
      sections.push_back({platform, "the platform of sysbench and fio points; an NDB cluster's nodes and transporter are under ndb"});
  for (const auto& [section, what] : sections)
    if (YAML::Node n = written_node(raw, {section}); n.IsDefined() && !n.IsNull())
      throw InputError(origin.locate(section, n), section,
                       std::string(section) + " holds " + what + " (" + kind_said + "): it would be ignored; remove it, or set the kind");
  const std::string instead = kind == "fio" ? "the fio job's own keys are under workload.fio (numjobs, iodepth, rate)"
                                            : "the NDB load is ndb.load_generator (threads, think_time)";
  for (const auto& f : scenario_schema().field("workload")->fields) {
    if (f.name == "kind" || f.name == "mix" || f.name == "fio") continue;
    const YAML::Node n = written_node(raw, {"workload", f.name.c_str()});
    if (n.IsDefined())
      throw InputError(origin.locate("workload." + f.name, n), "workload." + f.name,
                       "sysbench's key, which " + kind + " would ignore (" + kind_said + "): " + instead);
  }
}

// Sets node[path] = value, creating maps along the way.
void set_path(YAML::Node root, const std::string& path, const YAML::Node& value, const std::string& origin_name) {
  std::vector<std::string> parts;
  std::stringstream in(path);
  std::string part;
  while (std::getline(in, part, '.')) parts.push_back(part);
  std::vector<YAML::Node> chain{root};
  std::string prefix;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    prefix += (i ? "." : "") + parts[i];
    YAML::Node next = chain.back()[parts[i]];
    // A section the file gives as a value: the --set must not replace it with a mapping unseen.
    if (next && !next.IsNull() && !next.IsMap())
      throw InputError({origin_name, next.Mark().line + 1, next.Mark().column + 1}, prefix,
                       "expected a mapping (--set " + path + " goes inside it)");
    if (!next || !next.IsMap()) {
      chain.back()[parts[i]] = YAML::Node(YAML::NodeType::Map);
      next = chain.back()[parts[i]];
    }
    chain.push_back(next);
  }
  chain.back()[parts.back()] = value;
}

// A mapping given for a section (`--set database={buffer_pool: 1GiB}`, or a variant's value of one)
// sets the keys it names and keeps the section's others, as the same keys given one by one
// would: replacing the section would drop its profile and every other key unseen. Only sections
// with named fields merge; a dictionary (whose keys are names or dotted paths) or any other value
// replaces what was there. `leaves` are the dotted paths the mapping sets, and their values.
bool is_section(const Spec* spec) { return spec && spec->kind == Kind::Map; }

void leaf_settings(const std::string& path, const YAML::Node& value, std::vector<std::pair<std::string, YAML::Node>>& leaves) {
  const Spec* spec = find(scenario_schema(), path);
  if (!is_section(spec) || !value.IsMap()) {
    leaves.emplace_back(path, value);
    return;
  }
  for (auto it = value.begin(); it != value.end(); ++it)
    leaf_settings(path + "." + it->first.Scalar(), it->second, leaves);
}

// A copy of `base` with `path` set to `value`, sharing every other node with `base`. Callers give
// leaf settings (leaf_settings): a sweep's values are single values, a variant's mappings are split.
YAML::Node with_value(const YAML::Node& base, const std::string& path, const YAML::Node& value) {
  auto dot = path.find('.');
  std::string head = path.substr(0, dot);
  YAML::Node out(YAML::NodeType::Map);
  if (base && base.IsMap())
    for (auto it = base.begin(); it != base.end(); ++it)
      if (it->first.Scalar() != head) out[it->first] = it->second;
  out[head] = dot == std::string::npos ? value : with_value(base && base.IsMap() ? base[head] : YAML::Node(), path.substr(dot + 1), value);
  return out;
}

double q(const YAML::Node& node, Dimension dimension) { return to_quantity(node, dimension); }

void check_catalogue_entry(const std::map<std::string, DeviceSpec>& devices, const std::string& name,
                           const Origin& origin, const std::string& path, const YAML::Node& node) {
  if (devices.count(name)) return;
  std::vector<std::string> names;
  for (const auto& [n, d] : devices) names.push_back(n);
  std::string suggestion = did_you_mean(name, names);
  throw InputError(origin.locate(path, node), path,
                   "unknown device '" + name + "'" + (suggestion.empty() ? "" : " (did you mean '" + suggestion + "'?)") +
                       "; the catalogue has: " + [&] {
                         std::string all;
                         for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
                         return all;
                       }());
}

// `kind_as_written`: the point's workload kind is the file's own (not a --set's, a variant's or a
// sweep's), so keys of another kind in the file are a mistake rather than a what-if's leftovers.
Scenario build(const YAML::Node& raw, const Origin& origin, const std::string& base_dir, bool kind_as_written) {
  validate(raw, scenario_schema(), origin);
  YAML::Node doc = with_defaults(raw, scenario_schema());
  Scenario s;
  s.file = origin.file;
  s.name = doc["name"] ? doc["name"].Scalar() : std::filesystem::path(origin.file).stem().string();
  s.document = doc;
  check_ndb_scenario(doc, raw, origin);  // workload kind ndb: the cluster and the mix

  // Devices: built-in catalogue, extra files, inline entries.
  std::vector<std::string> extra;
  if (doc["catalogue"])
    for (const auto& f : doc["catalogue"]) {
      std::filesystem::path p(f.Scalar());
      extra.push_back(p.is_absolute() ? p.string() : (std::filesystem::path(base_dir) / p).string());
    }
  s.catalogue_files = extra;
  try {
    s.devices = load_device_catalogue(extra);
  } catch (const InputError& e) {
    // An error inside a catalogue file names that file; the scenario line that pulled it in is the
    // other half of the story (several scenarios may share a catalogue, or name the wrong one).
    for (std::size_t i = 0; i < extra.size(); ++i)
      if (e.where().file == extra[i]) {
        const SourceLocation named = origin.locate("catalogue[" + std::to_string(i) + "]", raw["catalogue"][i]);
        const std::string at = named.file + (named.line > 0 ? ":" + std::to_string(named.line) : std::string());
        throw InputError(e.where(), e.key(), e.detail() + " (catalogue named at " + at + ")");
      }
    throw;
  }
  if (doc["devices"])
    for (auto it = doc["devices"].begin(); it != doc["devices"].end(); ++it) {
      const std::string name = it->first.Scalar(), path = "devices." + name;
      if (s.devices.count(name))
        throw InputError(origin.locate(path, written_node(raw, {"devices", name.c_str()})), path,
                         "device '" + name + "' is already in the catalogue (built in or a `catalogue:` file): give the inline entry another name");
      s.devices[name] = device_from_yaml(name, it->second, origin, path);
    }

  const auto& c = doc["compute"];
  s.compute.count = c["count"].as<int>();
  s.compute.cores = c["cores"].as<int>();
  s.compute.core_speed = c["core_speed"].as<double>();
  if (c["frequency"]) s.compute.frequency_hz = q(c["frequency"], Dimension::Hertz);
  s.compute.memory_bytes = q(c["memory"], Dimension::Bytes);
  s.compute.background_cores = c["background_load"].as<double>();

  const auto& st = doc["storage"];
  s.storage.kind = st["kind"].Scalar();
  s.storage.device = st["device"].Scalar();
  s.storage.local_devices = st["devices"].as<int>();
  s.storage.local_stripe_bytes = q(st["stripe"], Dimension::Bytes);
  s.storage.valid_data = st["valid_data"].Scalar();
  if (s.storage.kind == "local")
    check_catalogue_entry(s.devices, s.storage.device, origin, "storage.device", raw["storage"] ? raw["storage"]["device"] : YAML::Node());
  std::map<std::string, int> node_index;
  for (size_t i = 0; i < st["nodes"].size(); ++i) {
    const auto& n = st["nodes"][i];
    StorageNodeConfig node{n["name"].Scalar(), n["cores"].as<int>(), n["core_speed"].as<double>(), n["device"].Scalar(),
                           n["devices"].as<int>(), n["ports"].as<int>()};
    std::string path = "storage.nodes[" + std::to_string(i) + "]";
    YAML::Node raw_node = raw["storage"]["nodes"][i];
    if (node_index.count(node.name))
      throw InputError(origin.locate(path + ".name", raw_node["name"]), path + ".name", "duplicate storage node name '" + node.name + "'");
    if (s.storage.kind == "pool")
      check_catalogue_entry(s.devices, node.device, origin, path + ".device", raw_node["device"] ? raw_node["device"] : raw_node);
    node_index[node.name] = static_cast<int>(i);
    s.storage.nodes.push_back(node);
  }
  const auto& vol = st["volume"];
  s.storage.volume_devices_per_node = vol["devices_per_node"].as<int>();
  s.storage.stripe_bytes = q(vol["stripe"], Dimension::Bytes);
  if (vol["nodes"] && vol["nodes"].size() > 0) {
    for (size_t i = 0; i < vol["nodes"].size(); ++i) {
      std::string name = vol["nodes"][i].Scalar();
      std::string path = "storage.volume.nodes[" + std::to_string(i) + "]";
      if (!node_index.count(name)) {
        std::vector<std::string> names;
        for (const auto& n : s.storage.nodes) names.push_back(n.name);
        std::string suggestion = did_you_mean(name, names);
        throw InputError(origin.locate(path, raw["storage"]["volume"]["nodes"][i]), path,
                         "the volume spans storage node '" + name + "', which does not exist" +
                             (suggestion.empty() ? "" : " (did you mean '" + suggestion + "'?)"));
      }
      s.storage.volume_nodes.push_back(name);
    }
  } else {
    for (const auto& n : s.storage.nodes) s.storage.volume_nodes.push_back(n.name);
  }
  if (s.storage.kind == "pool") {
    if (s.storage.nodes.empty())
      throw InputError(origin.locate("storage", raw["storage"]), "storage.nodes", "storage kind 'pool' needs at least one storage node");
    for (const auto& name : s.storage.volume_nodes) {
      const auto& node = s.storage.nodes[node_index[name]];
      if (s.storage.volume_devices_per_node > node.devices)
        throw InputError(origin.locate("storage.volume.devices_per_node", raw["storage"]["volume"]["devices_per_node"]),
                         "storage.volume.devices_per_node",
                         "the volume uses " + std::to_string(s.storage.volume_devices_per_node) + " devices per node but node '" +
                             name + "' has " + std::to_string(node.devices));
    }
  }

  const auto& f = doc["fabric"];
  s.fabric.preset = f["preset"].Scalar();
  for (const auto& preset : kFabricPresets)
    if (s.fabric.preset == preset.name) {
      s.fabric.transport = preset.transport;
      s.fabric.rate_Bps = preset.rate_bps / 8;
      s.fabric.nic_latency_s = preset.nic_latency_s;
      s.fabric.switch_latency_s = preset.switch_latency_s;
      s.fabric.source = preset.source;
    }
  if (f["transport"]) s.fabric.transport = f["transport"].Scalar();
  auto cost = transport_cost(s.fabric.transport);
  s.fabric.initiator_cpu_s = cost.initiator_cpu_s;
  s.fabric.target_cpu_s = cost.target_cpu_s;
  s.fabric.capsule_bytes = 64;  // NVMe submission queue entry (64 B); completions are 16 B
  if (f["rate"]) s.fabric.rate_Bps = q(f["rate"], Dimension::BytesPerSecond);
  if (f["nic_latency"]) s.fabric.nic_latency_s = q(f["nic_latency"], Dimension::Seconds);
  if (f["switch_latency"]) s.fabric.switch_latency_s = q(f["switch_latency"], Dimension::Seconds);
  if (f["initiator_cpu"]) s.fabric.initiator_cpu_s = q(f["initiator_cpu"], Dimension::Seconds);
  if (f["target_cpu"]) s.fabric.target_cpu_s = q(f["target_cpu"], Dimension::Seconds);

  const auto& w = doc["workload"];
  s.workload.kind = w["kind"].Scalar();
  refuse_keys_of_other_workloads(raw, s.workload.kind, origin, kind_as_written);
  const auto& fio = w["fio"];
  s.workload.fio.rw = fio["rw"].Scalar();
  s.workload.fio.block_bytes = q(fio["bs"], Dimension::Bytes);
  // The job is direct IO (libaio, O_DIRECT), whose transfers are whole 512-byte sectors: fio
  // refuses another block size (EINVAL), and the offsets would not be aligned either.
  if (s.workload.kind == "fio" && std::fmod(s.workload.fio.block_bytes, kSectorBytes) != 0)
    throw InputError(origin.locate("workload.fio.bs", written_node(raw, {"workload", "fio", "bs"})), "workload.fio.bs",
                     "a block of " + fio["bs"].Scalar() + " is not a whole number of 512-byte sectors, which direct IO transfers: give a multiple of 512B");
  s.workload.fio.iodepth = fio["iodepth"].as<int>();
  s.workload.fio.numjobs = fio["numjobs"].as<int>();
  s.workload.fio.read_fraction = q(fio["rwmixread"], Dimension::Ratio);
  s.workload.fio.fsync_every = fio["fsync"].as<int>();
  s.workload.fio.span_bytes = q(fio["span"], Dimension::Bytes);
  // A span shorter than one block was run as one block: fio refuses it (its size is below the block size).
  if (s.workload.kind == "fio" && s.workload.fio.span_bytes > 0 && s.workload.fio.span_bytes < s.workload.fio.block_bytes)
    throw InputError(origin.locate("workload.fio.span", written_node(raw, {"workload", "fio", "span"})), "workload.fio.span",
                     "a span of " + fio["span"].Scalar() + " is shorter than one block (bs " + fio["bs"].Scalar() + "): give at least one block, or 0B for the whole device");
  s.workload.fio.rate_iops = q(fio["rate"], Dimension::PerSecond);

  auto& sb = s.workload.sysbench;
  sb.test = w["test"].Scalar();
  sb.version = w["version"].Scalar();
  sb.tables = w["tables"].as<int>();
  sb.table_size = w["table_size"].as<std::uint64_t>();
  sb.range_size = w["range_size"].as<int>();
  sb.point_selects = w["point_selects"].as<int>();
  sb.simple_ranges = w["simple_ranges"].as<int>();
  sb.sum_ranges = w["sum_ranges"].as<int>();
  sb.order_ranges = w["order_ranges"].as<int>();
  sb.distinct_ranges = w["distinct_ranges"].as<int>();
  sb.index_updates = w["index_updates"].as<int>();
  sb.non_index_updates = w["non_index_updates"].as<int>();
  sb.delete_inserts = w["delete_inserts"].as<int>();
  sb.skip_trx = w["skip_trx"].as<bool>();
  sb.rand_type = w["rand_type"].Scalar();
  sb.rand_spec_pct = w["rand_spec_pct"].as<double>();
  sb.rand_spec_res = w["rand_spec_res"].as<double>();
  sb.rand_iter = w["rand_spec_iter"].as<int>();
  sb.rand_pareto_h = w["rand_pareto_h"].as<double>();
  sb.rand_zipfian_exp = w["rand_zipfian_exp"].as<double>();
  // A transaction with no statement would take no time: the closed loop would never move the clock on.
  if (s.workload.kind == "sysbench") {
    const SysbenchMix mix(sb);
    if (mix.reads() + mix.writes() + mix.others() == 0)
      throw InputError(origin.locate("workload.test", written_node(raw, {"workload", "test"})), "workload.test",
                       sb.test + (sb.skip_trx ? " with skip_trx" : "") +
                           " and every statement count of its mix at 0 gives transactions of no statement: set one count above 0");
  }
  s.workload.threads = w["threads"].as<int>();
  s.workload.warmup_threads = w["warmup_threads"] ? w["warmup_threads"].as<int>() : s.workload.threads;
  s.workload.rate_tps = q(w["rate"], Dimension::PerSecond);
  s.workload.clients.remote = w["clients"]["location"].Scalar() == "remote";
  s.workload.clients.round_trip_s = q(w["clients"]["round_trip"], Dimension::Seconds);
  // Each client thread of a sysbench run, each IO slot of a closed-loop fio job and each NDB load
  // generator thread is a SimGrid actor with its own stack: about two memory mappings each (the
  // stack and its guard page). Past the kernel's vm.max_map_count the simulation cannot create them
  // and aborts, so say so here, with the key.
  auto check_actor_stacks = [&](long actors, const std::string& key, const YAML::Node& written, const std::string& what) {
    const long limit = max_map_count();
    constexpr long kMappingsPerActor = 2, kMappingsReserved = 2000;  // the process's own libraries, heap, pool
    if (actors * kMappingsPerActor + kMappingsReserved > limit)
      throw InputError(origin.locate(key, written), key,
                       std::to_string(actors) + " " + what + " need about " + std::to_string(actors * kMappingsPerActor) +
                           " memory mappings for their stacks, more than this system allows (vm.max_map_count = " + std::to_string(limit) +
                           "): use fewer, or raise it (sysctl vm.max_map_count)");
  };
  if (s.workload.kind == "sysbench") {
    const bool warmup = s.workload.warmup_threads > s.workload.threads;
    const std::string key = warmup ? "workload.warmup_threads" : "workload.threads";
    check_actor_stacks(static_cast<long>(s.compute.count) * std::max(s.workload.threads, s.workload.warmup_threads), key,
                       written_node(raw, {"workload", warmup ? "warmup_threads" : "threads"}), "client threads (x compute.count)");
  } else if (s.workload.kind == "fio" && s.workload.fio.rate_iops <= 0) {
    const YAML::Node jobs = written_node(raw, {"workload", "fio", "numjobs"});
    const bool by_jobs = jobs.IsDefined() && s.workload.fio.numjobs > 1;
    check_actor_stacks(static_cast<long>(s.compute.count) * s.workload.fio.numjobs * s.workload.fio.iodepth,
                       by_jobs ? "workload.fio.numjobs" : "workload.fio.iodepth",
                       by_jobs ? jobs : written_node(raw, {"workload", "fio", "iodepth"}), "IOs in flight (numjobs x iodepth x compute.count)");
  } else if (s.workload.kind == "ndb") {
    const auto& ndb = doc["ndb"];
    check_actor_stacks(ndb["load_generators"].as<long>() * ndb["load_generator"]["threads"].as<long>(), "ndb.load_generator.threads",
                       written_node(raw, {"ndb", "load_generator", "threads"}), "load generator threads (x ndb.load_generators)");
  }

  const auto& db = doc["database"];
  auto& d = s.database;
  d.profile = db["profile"].Scalar();
  s.profile_file = profile_file_of(d.profile, base_dir);  // named, whether or not this workload reads it
  d.buffer_pool_bytes = q(db["buffer_pool"], Dimension::Bytes);
  d.page_bytes = q(db["page_size"], Dimension::Bytes);
  d.old_blocks_ratio = q(db["old_blocks_pct"], Dimension::Ratio);
  d.old_blocks_time_s = q(db["old_blocks_time"], Dimension::Seconds);
  d.io_capacity = db["io_capacity"].as<double>();
  d.io_capacity_max = db["io_capacity_max"].as<double>();
  if (d.io_capacity_max <= 0) d.io_capacity_max = std::max(2000.0, 2 * d.io_capacity);  // InnoDB's default
  d.lru_scan_depth = db["lru_scan_depth"].as<int>();
  d.max_dirty_pages_ratio = q(db["max_dirty_pages_pct"], Dimension::Ratio);
  d.dirty_pages_lwm_ratio = q(db["max_dirty_pages_pct_lwm"], Dimension::Ratio);
  d.adaptive_flushing_lwm_ratio = q(db["adaptive_flushing_lwm"], Dimension::Ratio);
  // Settings InnoDB refuses together (it warns and adjusts one of them; the simulator does not guess which).
  if (d.io_capacity > d.io_capacity_max)
    throw InputError(origin.locate("database.io_capacity", written_at(raw, "database", {"io_capacity", "io_capacity_max"})), "database.io_capacity",
                     "io_capacity " + std::to_string(static_cast<long long>(d.io_capacity)) + " is above io_capacity_max " +
                         std::to_string(static_cast<long long>(d.io_capacity_max)) + " (InnoDB does not allow it)");
  if (d.dirty_pages_lwm_ratio > d.max_dirty_pages_ratio)
    throw InputError(origin.locate("database.max_dirty_pages_pct_lwm", written_at(raw, "database", {"max_dirty_pages_pct_lwm", "max_dirty_pages_pct"})),
                     "database.max_dirty_pages_pct_lwm", "the low-water mark is above max_dirty_pages_pct (InnoDB does not allow it)");
  d.redo_capacity_bytes = q(db["log_file_size"], Dimension::Bytes) * db["log_files_in_group"].as<int>();
  d.flush_log_at_trx_commit = db["flush_log_at_trx_commit"].as<int>();
  d.doublewrite = db["doublewrite"].as<bool>();
  d.atomic_writes = db["atomic_writes"].as<bool>();
  d.checksum = db["checksum"].Scalar();
  d.binlog = db["binlog"].as<bool>();
  d.sync_binlog = db["sync_binlog"].as<int>();
  d.thread_concurrency = db["thread_concurrency"].as<int>();
  d.write_io_slots = db["write_io_slots"].as<int>();
  d.page_cleaners = db["page_cleaners"].as<int>();
  d.buffer_pool_instances = db["buffer_pool_instances"].as<int>();
  if (db["page_splits_per_row_change"].Scalar() != "profile") d.page_splits_per_row_change = db["page_splits_per_row_change"].as<double>();
  d.doublewrite_files = db["doublewrite_files"].as<int>();
  d.flush_neighbors = db["flush_neighbors"].as<int>();
  d.buffered_data_files = db["flush_method"].Scalar() == "fsync";
  d.page_cache_bytes = db["page_cache"].Scalar() == "auto" ? std::max(0.0, s.compute.memory_bytes - d.buffer_pool_bytes)
                                                           : q(db["page_cache"], Dimension::Bytes);
  if (s.workload.kind == "sysbench") {
    // The pool lives in the compute node's memory: a larger one is a typo (and would make a run
    // allocate or replay for a pool no host has), not a what-if.
    if (d.buffer_pool_bytes > s.compute.memory_bytes) {
      throw InputError(origin.locate("database.buffer_pool", written_at(raw, "database", {"buffer_pool"})), "database.buffer_pool",
                       "the buffer pool (" + format_quantity(d.buffer_pool_bytes, Dimension::Bytes) +
                           ") does not fit in the compute node's memory (compute.memory = " +
                           format_quantity(s.compute.memory_bytes, Dimension::Bytes) + ")");
    }
    // Every page of the data set has a slot in the model's buffer pool: a data set past what it
    // tracks is refused here rather than exhausting the host's memory mid-run.
    const std::uint64_t pages = DataLayout::pages_for(sb.tables, sysbench_table_shape(sb.table_size, d.page_bytes));
    if (pages > DataLayout::kMaxPages) {
      throw InputError(origin.locate("workload.table_size", written_at(raw, "workload", {"table_size", "tables"})), "workload.table_size",
                       std::to_string(sb.tables) + " tables x " + std::to_string(sb.table_size) + " rows take " +
                           std::to_string(pages) + " pages; poolsim tracks every page and at most " +
                           std::to_string(DataLayout::kMaxPages) + " (8 TiB of 16 KiB pages)");
    }
    if (d.buffered_data_files) {
      const YAML::Node at = written_at(raw, "database", {"page_cache", "flush_method"});
      const double spare_bytes = s.compute.memory_bytes - d.buffer_pool_bytes;
      if (d.page_cache_bytes > spare_bytes)
        throw InputError(origin.locate("database.page_cache", at), "database.page_cache",
                         "the page cache (" + format_quantity(d.page_cache_bytes, Dimension::Bytes) +
                             ") does not fit beside the buffer pool in the compute node's memory (" +
                             format_quantity(s.compute.memory_bytes, Dimension::Bytes) + " less " +
                             format_quantity(d.buffer_pool_bytes, Dimension::Bytes) + ")");
      // A cache smaller than the data starts from the steady state of uniform keys (OsPageCache::
      // warm_uniform); for skewed keys that state is not known, so the case is refused, not guessed.
      if (d.page_cache_bytes / d.page_bytes < static_cast<double>(pages) && sb.rand_type != "uniform")
        throw InputError(origin.locate("database.page_cache", at), "database.page_cache",
                         "flush_method fsync with a page cache smaller than the data set (" +
                             format_quantity(d.page_cache_bytes, Dimension::Bytes) + " for " +
                             std::to_string(pages) + " pages) is modelled for uniform keys only (rand_type is " +
                             sb.rand_type + ")");
    }
    try {
      s.profile = load_profile(d.profile, base_dir);
    } catch (const InputError& e) {
      if (e.where().line > 0) throw;
      throw InputError(origin.locate("database.profile", written_at(raw, "database", {"profile"})), "database.profile", e.detail());
    }
  }

  const auto& sim = doc["simulation"];
  s.simulation.seed = sim["seed"].as<std::uint64_t>();
  s.simulation.warmup_auto = sim["warmup"].Scalar() == "auto";
  s.simulation.warmup_s = s.simulation.warmup_auto ? 0.0 : q(sim["warmup"], Dimension::Seconds);
  // A timed warm-up runs every simulated second like the measurement: one longer than a simulated day
  // is a mistake (hours of wall time per simulated hour at high throughput), not a setting.
  constexpr double kMaxTimedWarmup_s = 86400;
  for (const char* key : {"warmup", "fast_forward_pace", "fast_forward_settle"}) {
    const std::string text = sim[key].Scalar();
    if (text == "auto" || text == "warmup") continue;
    if (q(sim[key], Dimension::Seconds) > kMaxTimedWarmup_s)
      throw InputError(origin.locate(std::string("simulation.") + key, written_at(raw, "simulation", {key})), std::string("simulation.") + key,
                       "a timed warm-up of " + text + " is longer than a simulated day (" + format_quantity(kMaxTimedWarmup_s, Dimension::Seconds) +
                           "): use simulation.warmup_turnovers with warmup_fast_forward for long warm-ups");
  }
  // Warm-up threads need a closed loop and a warm-up of known length: an open loop (rate) has no
  // per-thread loop to stop, and a detected warm-up would end while they still run.
  if (doc["workload"]["warmup_threads"] && (s.workload.rate_tps > 0 || s.simulation.warmup_auto))
    throw InputError(origin.locate("workload.warmup_threads", raw["workload"]["warmup_threads"]), "workload.warmup_threads",
                     s.workload.rate_tps > 0 ? "warmup_threads needs a closed loop (no workload.rate)"
                                             : "warmup_threads needs a configured simulation.warmup (not auto)");
  s.simulation.warmup_turnovers = sim["warmup_turnovers"].as<double>();
  s.simulation.max_warmup_s = q(sim["max_warmup"], Dimension::Seconds);
  // A turnover warm-up needs a buffer pool (a sysbench run) and has no known length: warm-up threads
  // would not know when to stop, and a detected warm-up already runs until its own end.
  if (s.simulation.warmup_turnovers > 0 &&
      (s.simulation.warmup_auto || doc["workload"]["warmup_threads"] || s.workload.kind != "sysbench"))
    throw InputError(origin.locate("simulation.warmup_turnovers", raw["simulation"]["warmup_turnovers"]), "simulation.warmup_turnovers",
                     s.workload.kind != "sysbench" ? "warmup_turnovers needs a buffer pool (workload.kind: sysbench)"
                     : s.simulation.warmup_auto    ? "warmup_turnovers needs a configured simulation.warmup (not auto)"
                                                   : "warmup_turnovers cannot be combined with workload.warmup_threads");
  s.simulation.warmup_fast_forward = sim["warmup_fast_forward"].as<bool>();
  s.simulation.fast_forward_steady = sim["fast_forward_steady"].as<bool>();
  // Without turnovers it has nothing to do (a scenario may switch them off and keep it).
  // The fast-forward's two timed stretches: `warmup` unless set (a scenario without turnovers keeps
  // `warmup` as its whole warm-up, so they are separate keys). Like warmup_fast_forward itself, they
  // do nothing without it (a sweep may switch it off).
  const bool pace_is_warmup = sim["fast_forward_pace"].Scalar() == "warmup";
  s.simulation.fast_forward_pace_s = pace_is_warmup ? s.simulation.warmup_s : q(sim["fast_forward_pace"], Dimension::Seconds);
  s.simulation.fast_forward_settle_s =
      sim["fast_forward_settle"].Scalar() == "warmup" ? s.simulation.warmup_s : q(sim["fast_forward_settle"], Dimension::Seconds);
  if (s.simulation.warmup_fast_forward && s.simulation.warmup_turnovers > 0 && !(s.simulation.fast_forward_pace_s > 0)) {
    if (pace_is_warmup)
      throw InputError(origin.locate("simulation.warmup_fast_forward", raw["simulation"]["warmup_fast_forward"]), "simulation.warmup_fast_forward",
                       "warmup_fast_forward needs a timed warm-up before it, whose second half measures the pace: simulation.warmup > 0 "
                       "or simulation.fast_forward_pace > 0");
    throw InputError(origin.locate("simulation.fast_forward_pace", raw["simulation"]["fast_forward_pace"]), "simulation.fast_forward_pace",
                     "fast_forward_pace must be > 0 (its second half measures the pace)");
  }
  s.simulation.batch_s = q(sim["batch"], Dimension::Seconds);
  s.simulation.min_batches = sim["min_batches"].as<int>();
  s.simulation.target_rel_ci = q(sim["target_ci"], Dimension::Ratio);
  s.simulation.confidence = q(sim["confidence"], Dimension::Ratio);
  s.simulation.max_duration_s = q(sim["max_duration"], Dimension::Seconds);
  // The stop rule re-estimates over all batches after each one: a batch far shorter than the run
  // (1 ns in a 1 s run: 1e9 batches) would spin for hours, not measure better.
  constexpr int kMaxBatches = 100000;
  if (s.simulation.max_duration_s / s.simulation.batch_s > kMaxBatches) {
    char batches[32];
    std::snprintf(batches, sizeof batches, "%.3g", s.simulation.max_duration_s / s.simulation.batch_s);
    throw InputError(origin.locate("simulation.batch", written_at(raw, "simulation", {"batch"})), "simulation.batch",
                     "a batch of " + format_quantity(s.simulation.batch_s, Dimension::Seconds) + " makes " + batches +
                         " batches in simulation.max_duration (" + format_quantity(s.simulation.max_duration_s, Dimension::Seconds) +
                         "); at most " + std::to_string(kMaxBatches) + ": lengthen the batch");
  }
  // max_duration caps the measurement: min_batches batches that do not fit in it are as many as fit,
  // and a confidence interval needs two at least (a batch of an hour in a 1-s cap ran for hours).
  const int fitting = static_cast<int>(std::floor(s.simulation.max_duration_s / s.simulation.batch_s + 1e-9));
  if (fitting < 2)
    throw InputError(origin.locate("simulation.batch", written_at(raw, "simulation", {"batch", "max_duration"})), "simulation.batch",
                     "a batch of " + format_quantity(s.simulation.batch_s, Dimension::Seconds) + " leaves fewer than the 2 batches an interval needs in "
                         "simulation.max_duration (" + format_quantity(s.simulation.max_duration_s, Dimension::Seconds) +
                         "): shorten the batch or raise max_duration");
  s.simulation.min_batches = std::min(s.simulation.min_batches, fitting);
  return s;
}

SpecPtr build_profile_schema() {
  auto us = [](const std::string& d) { return required(quantity(Dimension::Seconds, 0.0, 1.0, d)); };
  return map({
      {"name", required(string("Profile name"))},
      {"product", one_of({"mysql", "mariadb", "greatsql", "percona"}, "Product")},
      {"version", string("Version")},
      {"source", required(string("Where the figures come from: the traces and the fit, or the document"))},
      {"cpu", required(map({
           {"statement", required(map({
                {"begin", us("BEGIN")}, {"commit", us("COMMIT, excluding the log flush")},
                {"point_select", us("SELECT c WHERE id=?")}, {"simple_range", us("SELECT c WHERE id BETWEEN, per statement")},
                {"sum_range", us("SELECT SUM(k), per statement")}, {"order_range", us("ORDER BY c, per statement (filesort)")},
                {"distinct_range", us("DISTINCT c ORDER BY c, per statement (temporary table)")},
                {"index_update", us("UPDATE SET k=k+1")}, {"non_index_update", us("UPDATE SET c=?")},
                {"delete", us("DELETE WHERE id=?")}, {"insert", us("INSERT")},
            }, "Server CPU per statement, excluding page accesses"))},
           {"range_row", us("Per row read by a range statement")},
           {"page_hit", us("Per page touched (lookup, latch)")},
           {"page_read", us("Per page read (IO submission and completion), excluding the checksum")},
           {"page_write", us("Per page written, excluding the checksum")},
           {"checksum_crc32", us("Per 16 KiB page, crc32")},
           {"checksum_innodb", us("Per 16 KiB page, the legacy innodb algorithm")},
           {"client_statement", us("sysbench and client library per statement (on the client's host)")},
           {"page_cleaner_batch", us("Page cleaner bookkeeping per second")},
           {"background_per_txn", with_default(quantity(Dimension::Seconds, 0.0, 1.0, "Per committed transaction, CPU of InnoDB's background threads beyond the page writes (purge, the task pool), run beside the connections rather than in their path"), "0us")},
       }, "CPU costs in seconds of a reference core"))},
      {"oversubscription_cpu", with_default(quantity(Dimension::Seconds, 0.0, 1.0, "CPU per transaction per client thread beyond the cores (context switches, spin-waits)"), "0us")},
      {"idle_wakeup_cpu", with_default(quantity(Dimension::Seconds, 0.0, 1.0, "CPU per statement round trip when the thread wakes on an idle core (idle exit, inter-processor interrupt; large on VMs)"), "0us")},
      {"statement_cpu_scv", with_default(real(0.0, 100.0, "Squared coefficient of variation of one statement's server CPU about its kind's mean (gamma draws; 0: each costs the mean). calibrate measures it from the server's CPU bursts in cached runs (perf sched)"), "0")},
      {"statement_cpu_tail", map({
           {"share", with_default(real(0.0, 0.5, "Share of a statement's mean server CPU spent in rare long bursts (perf sched: the connection threads' bursts over 1 ms, calibrate/long_bursts.py); the body's mean is reduced by it"), "0")},
           {"mean", with_default(quantity(Dimension::Seconds, 0.0, 1.0, "Mean length of one long burst (exponential), holding a core"), "0us")},
       }, "Rare long CPU bursts in the statements' path (the tail the gamma body of statement_cpu_scv leaves out)")},
      {"serial_section", with_default(quantity(Dimension::Seconds, 0.0, 1.0, "Per statement, time in a one-thread-at-a-time section"), "0us")},
      {"server_cpu_scale", with_default(real(0.01, 100.0, "Multiplies every server CPU cost above (not the client's): a version's CPU per unit of work relative to the profile it was derived from"), "1.0")},
      {"free_page_policy", with_default(one_of({"wait_for_page_cleaner", "single_page_flush"}, "A thread finding no free and no clean page: waits for the page cleaner's LRU batch (MariaDB 10.5+), or writes one LRU page itself, sleeping 10 ms from the third attempt (buf_flush_single_page_from_LRU: MySQL 5.6-8.4, MariaDB <= 10.4)"), "wait_for_page_cleaner")},
      {"zero_lwm_flushing", with_default(one_of({"adaptive", "at_max_dirty"}, "What max_dirty_pages_pct_lwm = 0 means for flush-list flushing: adaptive (MySQL, MariaDB <= 10.4: adaptive flushing from the checkpoint age) or at_max_dirty (MariaDB 10.5.9+, MDEV-24537: none until the dirty pages reach max_dirty_pages_pct or the checkpoint age nears the log capacity)"), "adaptive")},
      {"pool_frames_ratio", with_default(real(kMinPoolFramesRatio, kMaxPoolFramesRatio, "Buffer pool frames per page of innodb_buffer_pool_size: the rest holds the pages' descriptors (measured as Innodb_buffer_pool_pages_total over the pool's pages; calibrate writes it)"), "1.0")},
      {"flush_neighbors_devices", with_default(one_of({"all", "rotational"}, "Where innodb_flush_neighbors applies: all tablespaces (MySQL 5.6-8.4) or those on a device the server finds rotational (MariaDB 10.3+ fil_space_t::is_rotational: every file except those on a block device whose queue/rotational is 0; tmpfs counts as rotational)"), "all")},
      {"lru_written_pages", with_default(one_of({"freed", "kept"}, "What MariaDB's LRU flush does with the pages it writes: freed when each write completes, neighbours from the old sublist only (10.5-10.6 source; MySQL alike), or kept in the LRU clean for the next walk, neighbours young or old (the 10.11 branch's later source; calibrate measures it: Innodb_buffer_pool_pages_LRU_freed against the pages read)"), "freed")},
      {"redo_bytes_per_row_change", required(quantity(Dimension::Bytes, 0.0, kMaxRedoPerRowChange_bytes, "Redo generated per row changed, page splits apart (a row change logs its record, its undo's and its index entries': at most 1 MiB)"))},
      {"redo_bytes_per_page_split", with_default(quantity(Dimension::Bytes, 0.0, 1048576.0, "Redo logged per B-tree page split (calibrate fits it where the traces count splits: Innodb_buffer_pool_pages_split)"), "0B")},
      {"page_splits_per_row_change", with_default(real(0.0, 100.0, "B-tree page splits per row changed on the data set the profile assumes (the calibration traces' median; database.page_splits_per_row_change overrides it)"), "0")},
      {"cpu_probe_eps", real(kMinCpuProbeEps, kMaxCpuProbeEps, "The reference core's speed: `sysbench cpu` events per second on one thread, the mean over the calibration traces (capture.py --cpu-probe); validate sets a trace's core_speed from its own probe against it")},
      {"fit", dict(string(), "Fit diagnostics (residuals, uncertainties), informative")},
  }, "A server version profile");
}

}  // namespace

const schema::Spec& profile_schema() {
  static const SpecPtr spec = build_profile_schema();
  return *spec;
}

std::string profile_file_of(const std::string& name_or_path, const std::string& base_dir) {
  if (kBuiltinProfiles.count(name_or_path)) return "";
  if (name_or_path.find('/') == std::string::npos && name_or_path.find(".yaml") == std::string::npos) return "";
  std::filesystem::path p(name_or_path);
  return p.is_absolute() ? p.string() : (std::filesystem::path(base_dir) / p).string();
}

ServerProfile load_profile(const std::string& name_or_path, const std::string& base_dir) {
  std::string text, origin_name;
  auto builtin = kBuiltinProfiles.find(name_or_path);
  if (builtin != kBuiltinProfiles.end()) {
    text = builtin->second;
    origin_name = "scenarios/profiles/" + name_or_path + ".yaml";
  } else if (const std::string file = profile_file_of(name_or_path, base_dir); !file.empty()) {
    origin_name = file;
    text = read_file(origin_name, {origin_name, 0, 0}, "database.profile");
  } else {
    std::vector<std::string> names;
    for (const auto& [n, t] : kBuiltinProfiles) names.push_back(n);
    std::string suggestion = did_you_mean(name_or_path, names);
    std::string all;
    for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
    throw InputError({}, "database.profile", "unknown profile '" + name_or_path + "'" +
                                                 (suggestion.empty() ? "" : " (did you mean '" + suggestion + "'?)") + "; known: " + all);
  }
  YAML::Node doc = parse_yaml(text, origin_name);
  // Named at its own first line: an error without a line would be reported at the scenario's key.
  if (!doc.IsMap()) throw InputError({origin_name, 1, 1}, "", doc.IsNull() ? "the profile is empty" : "a profile must be a YAML mapping");
  validate(doc, profile_schema(), Origin{origin_name, {}});
  doc = with_defaults(doc, profile_schema());
  ServerProfile p;
  p.name = doc["name"].Scalar();
  p.source = doc["source"].Scalar();
  if (doc["product"] && doc["product"].IsScalar()) p.product = doc["product"].Scalar();
  if (doc["version"] && doc["version"].IsScalar()) p.version = doc["version"].Scalar();
  const auto& cpu = doc["cpu"];
  for (int k = 0; k < kStatementKinds; ++k)
    p.statement_cpu_s[k] = q(cpu["statement"][statement_name(static_cast<StatementKind>(k))], Dimension::Seconds);
  p.range_row_cpu_s = q(cpu["range_row"], Dimension::Seconds);
  p.page_hit_cpu_s = q(cpu["page_hit"], Dimension::Seconds);
  p.page_read_cpu_s = q(cpu["page_read"], Dimension::Seconds);
  p.page_write_cpu_s = q(cpu["page_write"], Dimension::Seconds);
  p.checksum_crc32_cpu_s = q(cpu["checksum_crc32"], Dimension::Seconds);
  p.checksum_innodb_cpu_s = q(cpu["checksum_innodb"], Dimension::Seconds);
  p.client_statement_cpu_s = q(cpu["client_statement"], Dimension::Seconds);
  // A statement that costs no CPU on either side takes no time: transactions would complete without
  // the clock moving, and the run would measure nothing (or infinite throughput).
  double statement_cpu_s = p.client_statement_cpu_s;
  for (double c : p.statement_cpu_s) statement_cpu_s += c;
  if (!(statement_cpu_s > 0)) {
    const YAML::Node at = parse_yaml(text, origin_name)["cpu"]["statement"];  // the file's own marks (doc has its defaults)
    throw InputError({origin_name, at && at.Mark().line >= 0 ? at.Mark().line + 1 : 1, at && at.Mark().column >= 0 ? at.Mark().column + 1 : 1},
                     "cpu.statement", "every statement costs 0 CPU, and so does the client: a profile needs CPU per statement");
  }
  p.page_cleaner_batch_cpu_s = q(cpu["page_cleaner_batch"], Dimension::Seconds);
  p.background_cpu_per_txn_s = q(cpu["background_per_txn"], Dimension::Seconds);
  p.serial_section_s = q(doc["serial_section"], Dimension::Seconds);
  p.statement_cpu_scv = doc["statement_cpu_scv"].as<double>();
  p.statement_cpu_tail_share = doc["statement_cpu_tail"]["share"].as<double>();
  p.statement_cpu_tail_mean_s = q(doc["statement_cpu_tail"]["mean"], Dimension::Seconds);
  p.oversubscription_cpu_s = q(doc["oversubscription_cpu"], Dimension::Seconds);
  p.idle_wakeup_cpu_s = q(doc["idle_wakeup_cpu"], Dimension::Seconds);
  p.redo_bytes_per_row_change = q(doc["redo_bytes_per_row_change"], Dimension::Bytes);
  p.redo_bytes_per_page_split = q(doc["redo_bytes_per_page_split"], Dimension::Bytes);
  p.page_splits_per_row_change = doc["page_splits_per_row_change"].as<double>();
  const double scale = doc["server_cpu_scale"].as<double>();
  for (auto& c : p.statement_cpu_s) c *= scale;
  for (double* c : {&p.range_row_cpu_s, &p.page_hit_cpu_s, &p.page_read_cpu_s, &p.page_write_cpu_s, &p.checksum_crc32_cpu_s,
                    &p.checksum_innodb_cpu_s, &p.page_cleaner_batch_cpu_s, &p.oversubscription_cpu_s, &p.idle_wakeup_cpu_s,
                    &p.background_cpu_per_txn_s})
    *c *= scale;
  p.free_page_policy = doc["free_page_policy"].Scalar() == "single_page_flush" ? ServerProfile::FreePagePolicy::SinglePageFlush
                                                                               : ServerProfile::FreePagePolicy::WaitForPageCleaner;
  p.zero_lwm_flushing = doc["zero_lwm_flushing"].Scalar() == "at_max_dirty" ? ServerProfile::ZeroLwmFlushing::AtMaxDirty
                                                                           : ServerProfile::ZeroLwmFlushing::Adaptive;
  p.pool_frames_ratio = doc["pool_frames_ratio"].as<double>();
  p.lru_written_pages = doc["lru_written_pages"].Scalar() == "kept" ? ServerProfile::LruWrittenPages::Kept
                                                                    : ServerProfile::LruWrittenPages::Freed;
  p.flush_neighbors_devices = doc["flush_neighbors_devices"].Scalar() == "rotational"
                                  ? ServerProfile::FlushNeighborsDevices::Rotational
                                  : ServerProfile::FlushNeighborsDevices::All;
  return p;
}

const schema::Spec& scenario_schema() {
  static const SpecPtr spec = build_scenario_schema();
  return *spec;
}

const schema::Spec& device_catalogue_schema() {
  static const SpecPtr spec = dict(device_spec(), "A device catalogue: models by name");
  return *spec;
}

DeviceSpec device_from_yaml(const std::string& name, const YAML::Node& raw, const Origin& origin, const std::string& path) {
  YAML::Node n = with_defaults(raw, *device_spec());
  DeviceSpec d;
  d.name = name;
  d.kind = n["kind"].Scalar();
  d.description = n["description"] ? n["description"].Scalar() : "";
  d.source = n["source"].Scalar();
  d.capacity_bytes = q(n["capacity"], Dimension::Bytes);
  d.reference_block_bytes = q(n["reference_block"], Dimension::Bytes);
  d.read_latency_s = q(n["read_latency"], Dimension::Seconds);
  d.read_service_s = q(n["read_service"], Dimension::Seconds);
  d.read_transfer_Bps = q(n["read_transfer_rate"], Dimension::BytesPerSecond);
  d.read_iops = q(n["read_iops"], Dimension::PerSecond);
  d.parallel_units = n["parallel_units"].as<int>();
  d.read_bandwidth_Bps = q(n["read_bandwidth"], Dimension::BytesPerSecond);
  d.write_bandwidth_Bps = q(n["write_bandwidth"], Dimension::BytesPerSecond);
  d.write_latency_s = q(n["write_latency"], Dimension::Seconds);
  d.write_iops = q(n["write_iops"], Dimension::PerSecond);
  d.write_cache_bytes = q(n["write_cache"], Dimension::Bytes);
  d.raw_capacity_bytes = q(n["raw_capacity"], Dimension::Bytes);
  d.flush_latency_s = q(n["flush_latency"], Dimension::Seconds);
  d.power_loss_protection = n["power_loss_protection"].as<bool>();
  d.flush_blocks_io = n["flush_blocks_io"].as<bool>();
  d.atomic_writes = n["atomic_writes"].as<bool>();
  d.rotational = n["rotational"] ? n["rotational"].as<bool>() : (d.kind == "virtual-disk" || d.kind == "ram");
  d.exponential_service = n["service"].Scalar() == "exponential";
  d.shared_queue = n["queue"].Scalar() == "shared";
  d.read_priority = n["read_priority"].as<bool>();
  if (n["program_suspend"]) {
    if (!d.read_priority || d.shared_queue)
      throw InputError(origin.locate(path + ".program_suspend", raw["program_suspend"]), path + ".program_suspend",
                       "program suspension needs read_priority: true and queue: per-unit (a program is suspended on its own "
                       "unit, for the reads queued there; a unit that serves programs FCFS with reads never suspends one)");
    d.program_suspend_s = q(n["program_suspend"], Dimension::Seconds);
  }
  d.completions_on_one_core = n["completion_interrupts"].Scalar() == "one-core";
  d.host_cpu_per_io_s = q(n["host_cpu_per_io"], Dimension::Seconds);
  d.host_cpu_per_flush_s = q(n["host_cpu_per_flush"], Dimension::Seconds);
  if (n["host_cpu_per_write"]) d.host_cpu_per_write_s = q(n["host_cpu_per_write"], Dimension::Seconds);
  return d;
}

std::map<std::string, DeviceSpec> load_device_catalogue(const std::vector<std::string>& extra_files) {
  std::map<std::string, DeviceSpec> devices;
  std::map<std::string, std::string> defined_in;
  auto add = [&](const std::string& text, const std::string& origin_name) {
    YAML::Node doc = parse_yaml(text, origin_name);
    // An empty file is a mistake (a wrong path, a file cut short); `{}` says "no devices" on purpose.
    if (doc.IsNull()) throw InputError({origin_name, 1, 1}, "catalogue", "the catalogue file is empty (write {} for no devices)");
    validate(doc, device_catalogue_schema(), Origin{origin_name, {}});
    for (auto it = doc.begin(); it != doc.end(); ++it) {
      const std::string name = it->first.Scalar();
      // A second definition would replace the first unseen (which one a run used would depend on
      // the order of the files): a changed device is a new name.
      auto [first, inserted] = defined_in.emplace(name, origin_name);
      if (!inserted)
        throw InputError({origin_name, it->first.Mark().line + 1, it->first.Mark().column + 1}, name,
                         "device '" + name + "' is already defined in " + first->second + ": give this one another name");
      devices[name] = device_from_yaml(name, it->second, Origin{origin_name, {}}, name);
    }
  };
  add(kBuiltinCatalogueYaml, "scenarios/catalogue/devices.yaml");
  for (const auto& file : extra_files) add(read_file(file, {file, 0, 0}, "catalogue"), file);
  return devices;
}

namespace {
// Where a YAML comment starts in `text` (a '#' at its start or after a blank, outside quoted
// scalars), or npos. A --set value is read as YAML, which drops the comment: "4 # four" would set 4.
std::size_t yaml_comment_at(const std::string& text) {
  char quote = 0;
  char before = 0;  // the last character outside blanks and quoted scalars (0: none yet)
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote == '"' && c == '\\') {
      ++i;  // an escaped character, the quote included
    } else if (quote) {
      if (c == quote) quote = 0;  // a single-quoted '' closes and reopens: the same state after both
    } else if ((c == '"' || c == '\'') && (before == 0 || std::strchr("[{,:", before))) {
      quote = c;  // a quote opens a scalar only where one starts ("it's" is plain text)
    } else if (c == '#' && (i == 0 || text[i - 1] == ' ' || text[i - 1] == '\t')) {
      return i;
    } else if (c != ' ' && c != '\t') {
      before = c;
    }
  }
  return std::string::npos;
}
}  // namespace

std::vector<std::string> leaf_paths(const std::string& path, const YAML::Node& value) {
  std::vector<std::pair<std::string, YAML::Node>> leaves;
  leaf_settings(path, value, leaves);
  std::vector<std::string> paths;
  for (const auto& leaf : leaves) paths.push_back(leaf.first);
  return paths;
}

bool keys_overlap(const std::string& a, const std::string& b) {
  const std::string& shorter = a.size() <= b.size() ? a : b;
  const std::string& longer = a.size() <= b.size() ? b : a;
  return longer.compare(0, shorter.size(), shorter) == 0 && (longer.size() == shorter.size() || longer[shorter.size()] == '.');
}

bool has_empty_step(const std::string& path) {
  return path.empty() || path.front() == '.' || path.back() == '.' || path.find("..") != std::string::npos;
}

Override parse_override(const std::string& text) {
  // Its value reaches the JSON output, which must be UTF-8 (the CLI's --set and the Python bindings'
  // overrides both come here).
  const std::string path = text.substr(0, text.find('='));
  require_utf8(text, "--set", invalid_utf8_at(path) == std::string::npos ? path : "", 0);
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError({"--set " + text, 0, 0}, "", "expected --set path.to.key=value");
  Override o{text.substr(0, eq), text.substr(eq + 1)};
  if (const std::size_t comment = yaml_comment_at(o.value); comment != std::string::npos)
    throw InputError({"--set " + text, 0, 0}, o.path,
                     "the value has a comment ('" + o.value.substr(comment) + "'), which YAML would drop: give the value alone, or quote it");
  // An empty step ("a..b", "a.", ".a") names no key: found here, not as a path that happens to load.
  if (has_empty_step(o.path))
    throw InputError({"--set " + text, 0, 0}, o.path, "a key path has an empty step (a dot too many)");
  std::string suggestion;
  std::string target = o.path.rfind("sweep.", 0) == 0 ? o.path.substr(6) : o.path;
  if (!find(scenario_schema(), target, &suggestion) || target.rfind("sweep", 0) == 0)
    throw InputError({"--set " + text, 0, 0}, o.path,
                     "unknown key" + (suggestion.empty() ? std::string() : " (did you mean '" + suggestion + "'?)"));
  return o;
}

std::vector<Scenario> load_scenarios_from_text(const std::string& yaml_text, const std::string& origin_name,
                                               const std::vector<Override>& overrides, const std::string& base_dir,
                                               bool expand_sweep) {
  YAML::Node root = parse_yaml(yaml_text, origin_name);
  // An empty file (or one of comments) would run the schema's defaults, a fio job nobody asked for.
  if (root.IsNull()) throw InputError({origin_name, 1, 1}, "", "the scenario is empty: a scenario must be a YAML mapping");
  if (!root.IsMap()) throw InputError({origin_name, 1, 1}, "", "a scenario must be a YAML mapping");
  Origin origin{origin_name, {}};
  nlohmann::json fixed_params = nlohmann::json::object();
  for (const auto& o : overrides) {
    YAML::Node value;
    try {
      value = YAML::Load(o.value);
    } catch (const YAML::Exception& e) {
      throw InputError({"--set " + o.path + "=" + o.value, 0, 0}, o.path, "cannot parse value: " + e.msg);
    }
    check_yaml_tree(value, "--set " + o.path + "=" + o.value);
    if (o.path.rfind("sweep.", 0) != 0) {
      std::vector<std::pair<std::string, YAML::Node>> leaves;
      leaf_settings(o.path, value, leaves);
      for (const auto& [path, leaf] : leaves) {
        set_path(root, path, leaf, origin_name);
        origin.overridden[path] = "--set " + o.path + "=" + o.value;
        fixed_params[path] = scalar_to_json(leaf);
      }
    } else {
      // An axis given by --set runs after the file's axes, in the order of the --sets (the last
      // varies fastest), also when it replaces an axis the file sweeps: removed, then appended.
      const std::string axis = o.path.substr(6);
      if (root["sweep"] && root["sweep"].IsMap()) root["sweep"].remove(axis);
      root["sweep"][axis] = value;
      origin.overridden["sweep." + axis] = "--set " + o.path + "=" + o.value;
    }
  }
  // The sweep: validate its keys against the schema, then expand the cartesian product.
  std::vector<std::pair<std::string, std::vector<YAML::Node>>> axes;
  if (root["sweep"] && expand_sweep) {
    validate(root["sweep"], *scenario_schema().field("sweep"), origin, "sweep");
    for (auto it = root["sweep"].begin(); it != root["sweep"].end(); ++it) {
      std::string key = it->first.Scalar();
      std::string suggestion;
      const Spec* target = has_empty_step(key) ? nullptr : find(scenario_schema(), key, &suggestion);
      if (!target || key.rfind("sweep", 0) == 0)
        throw InputError(origin.locate("sweep." + key, it->first), "sweep." + key,
                         "sweeps a key the scenario does not have" +
                             (suggestion.empty() ? std::string() : " (did you mean '" + suggestion + "'?)"));
      if (it->second.size() == 0)
        throw InputError(origin.locate("sweep." + key, it->second), "sweep." + key, "a sweep needs at least one value");
      std::vector<YAML::Node> values;
      for (const auto& v : it->second) values.push_back(v);
      axes.emplace_back(key, values);
    }
    // --set wins over a swept key (file < variant < sweep < --set): the axis goes, the --set's value
    // runs in every point. Both `--set X=` and `--set sweep.X=` contradict each other.
    axes.erase(std::remove_if(axes.begin(), axes.end(), [&](const auto& axis) {
      for (const auto& [key, value] : fixed_params.items()) {
        if (axis.first != key && axis.first.rfind(key + ".", 0) != 0 && key.rfind(axis.first + ".", 0) != 0) continue;
        // A sweep given by --set too must agree (a single value equal to the --set's, as the Python
        // bindings' pinned points give): two different values are a contradiction.
        auto swept = origin.overridden.find("sweep." + axis.first);
        const bool agrees = axis.first == key && axis.second.size() == 1 && axis.second.front().IsScalar() &&
                            scalar_to_json(axis.second.front()) == value;
        if (swept != origin.overridden.end() && !agrees)
          throw InputError({swept->second, 0, 0}, "sweep." + axis.first,
                           "the key is also given by " + origin.overridden.at(key) + ": give one value or one sweep");
        return true;
      }
      return false;
    }), axes.end());
    // Every point is a scenario held in memory and a child process to run: a product this large is a
    // mistake (a list meant for one axis written on several), found before it fills the memory.
    constexpr double kMaxSweepPoints = 100000;
    double points = 1;
    for (const auto& axis : axes) points *= static_cast<double>(axis.second.size());
    if (points > kMaxSweepPoints)
      throw InputError(origin.locate("sweep", root["sweep"]), "sweep",
                       "the sweep's product has " + std::to_string(static_cast<long long>(points)) + " points, more than " +
                           std::to_string(static_cast<long long>(kMaxSweepPoints)) + ": split it into several runs");
  }
  // Variants: each key of each variant must be a scenario key other than the variant machinery.
  if (root["variants"]) {
    validate(root["variants"], *scenario_schema().field("variants"), origin, "variants");
    for (auto v = root["variants"].begin(); v != root["variants"].end(); ++v)
      for (auto k = v->second.begin(); k != v->second.end(); ++k) {
        std::string key = k->first.Scalar(), path = "variants." + v->first.Scalar() + "." + key, suggestion;
        const Spec* target = has_empty_step(key) ? nullptr : find(scenario_schema(), key, &suggestion);
        if (!target || key.rfind("sweep", 0) == 0 || key.rfind("variant", 0) == 0 || key.rfind("validation", 0) == 0)
          throw InputError(origin.locate(path, k->first), path,
                           "a variant sets a key the scenario does not have" +
                               (suggestion.empty() ? std::string() : " (did you mean '" + suggestion + "'?)"));
      }
  }
  // The point's variant (from the file, --set, or the sweep) writes its keys, except those a sweep
  // axis or --set gives explicitly: file < variant < sweep < --set.
  // `at`: the point's origin, which names a variant a --set sweep gives at that --set.
  auto apply_variant = [&](YAML::Node point, const Origin& at, const std::set<std::string>& explicit_keys, nlohmann::json& params) {
    const YAML::Node& view = point;  // const lookups: no keys are created
    const YAML::Node chosen = view["variant"];
    if (!chosen) return point;
    if (!chosen.IsScalar())
      throw InputError(at.locate("variant", chosen), "variant", "expected the name of one entry of `variants:` (a sweep over several is `sweep: {variant: [...]}`)");
    std::string name = chosen.Scalar();
    const YAML::Node variants = view["variants"];
    const YAML::Node settings = variants && variants.IsMap() ? variants[name] : YAML::Node(YAML::NodeType::Undefined);
    // A variant that is there but sets nothing (`a: ~`) is named as such, not as unknown.
    if (settings.IsDefined() && !settings.IsMap())
      throw InputError(at.locate("variants." + name, settings), "variants." + name,
                       "expected a mapping of {dotted.key: value} (an empty one is `{}`)");
    if (!settings.IsDefined() || !settings.IsMap()) {
      std::vector<std::string> names;
      if (variants && variants.IsMap())
        for (auto v = variants.begin(); v != variants.end(); ++v) names.push_back(v->first.Scalar());
      std::string suggestion = did_you_mean(name, names), all;
      for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
      throw InputError(at.locate("variant", chosen), "variant",
                       "unknown variant '" + name + "'" + (suggestion.empty() ? "" : " (did you mean '" + suggestion + "'?)") +
                           (all.empty() ? "; the scenario has no `variants:`" : "; the scenario has: " + all));
    }
    // A key given explicitly, or a section's key inside one given explicitly, is not the variant's.
    auto is_explicit = [&](const std::string& path) {
      for (const auto& key : explicit_keys)
        if (path == key || path.rfind(key + ".", 0) == 0) return true;
      return false;
    };
    for (auto k = settings.begin(); k != settings.end(); ++k) {
      std::vector<std::pair<std::string, YAML::Node>> leaves;
      leaf_settings(k->first.Scalar(), k->second, leaves);
      for (const auto& [path, leaf] : leaves)
        if (!is_explicit(path)) point = with_value(point, path, leaf);
    }
    params["variant"] = name;
    return point;
  };
  // Points share the file's nodes (YAML::Clone would drop their marks, and with them the line and
  // column of errors); only the maps along a swept path are new.
  YAML::Node base(YAML::NodeType::Map);
  for (auto it = root.begin(); it != root.end(); ++it)
    if (it->first.Scalar() != "sweep") base[it->first] = it->second;
  auto workload_kind_of = [](const YAML::Node& doc) {
    const YAML::Node kind = written_node(doc, {"workload", "kind"});
    return kind.IsDefined() && kind.IsScalar() ? kind.Scalar() : *scenario_schema().field("workload")->field("kind")->default_value;
  };
  const std::string file_kind = workload_kind_of(base);  // before the points are made (they share its nodes)
  std::vector<Scenario> points;
  std::vector<size_t> index(axes.size(), 0);
  while (true) {
    YAML::Node point = base;
    Origin point_origin = origin;
    nlohmann::json params = fixed_params;
    std::set<std::string> explicit_keys;
    for (const auto& [key, value] : fixed_params.items()) explicit_keys.insert(key);
    for (size_t a = 0; a < axes.size(); ++a) {
      const std::string& key = axes[a].first;
      explicit_keys.insert(key);
      // A key a --set sweeps is that --set's in this point (a file's sweep gives its own lines).
      auto swept = origin.overridden.find("sweep." + key);
      if (swept != origin.overridden.end()) point_origin.overridden[key] = swept->second;
      else point_origin.overridden.erase(key);
      if (key == "variant") point = with_value(point, "variant", axes[a].second[index[a]]);
    }
    point = apply_variant(point, point_origin, explicit_keys, params);
    for (size_t a = 0; a < axes.size(); ++a) {
      const auto& [key, values] = axes[a];
      point = with_value(point, key, values[index[a]]);
      params[key] = scalar_to_json(values[index[a]]);
    }
    const bool kind_as_written = workload_kind_of(point) == file_kind && origin.overridden.count("workload.kind") == 0;
    Scenario s = build(point, point_origin, base_dir, kind_as_written);
    s.params = params;
    points.push_back(std::move(s));
    // Next combination: the last axis varies fastest.
    bool advanced = false;
    for (size_t axis = axes.size(); axis-- > 0;) {
      if (++index[axis] < axes[axis].second.size()) {
        advanced = true;
        break;
      }
      index[axis] = 0;
    }
    if (!advanced) break;
  }
  return points;
}

std::vector<Scenario> load_scenarios(const std::string& file, const std::vector<Override>& overrides, bool expand_sweep) {
  std::string text = read_file(file, {file, 0, 0}, "");
  auto base_dir = std::filesystem::path(file).parent_path().string();
  return load_scenarios_from_text(text, file, overrides, base_dir.empty() ? "." : base_dir, expand_sweep);
}

std::string refused_with_the_scenarios_settings(const InputError& error) {
  return "with the scenario's own settings this value is refused: " + std::string(error.what());
}

namespace {
// override_behind with the scenario's origin and a loader of the scenario with some overrides.
std::optional<size_t> override_behind(const InputError& error, const std::string& origin_name, const std::vector<Override>& overrides,
                                      const std::function<void(const std::vector<Override>&)>& load_with) {
  if (error.where().file != origin_name || error.key().empty() || overrides.empty()) return std::nullopt;
  const auto fails_with = [&](const std::vector<Override>& some) {
    try {
      load_with(some);
    } catch (const InputError&) {
      return true;
    }
    return false;
  };
  if (fails_with({})) return std::nullopt;
  const std::string section = error.key().substr(0, error.key().find('.'));
  for (size_t k = 0; k < overrides.size(); ++k)
    if (keys_overlap(overrides[k].path, section)) return k;
  // A check across sections (workload.kind decides whether a database section may be given,
  // compute.memory bounds database.buffer_pool): the first override that alone makes it fail.
  for (size_t k = 0; k < overrides.size(); ++k)
    if (fails_with({overrides[k]})) return k;
  return std::nullopt;
}
}  // namespace

std::optional<size_t> override_behind(const InputError& error, const std::string& file, const std::vector<Override>& overrides,
                                      bool expand_sweep) {
  return override_behind(error, file, overrides,
                         [&](const std::vector<Override>& some) { load_scenarios(file, some, expand_sweep); });
}

std::optional<size_t> override_behind(const InputError& error, const std::string& yaml_text, const std::string& origin_name,
                                      const std::string& base_dir, const std::vector<Override>& overrides) {
  return override_behind(error, origin_name, overrides, [&](const std::vector<Override>& some) {
    load_scenarios_from_text(yaml_text, origin_name, some, base_dir);
  });
}

}  // namespace poolsim
