// A server version profile: the CPU costs and contention figures of one product and version
// (MySQL 5.7/8.0, MariaDB 10.x, GreatSQL 5.7/8.0). The numbers come from calibration against
// measured traces (calibrate/), written to scenarios/profiles/*.yaml with their provenance.
#pragma once
#include <array>
#include <string>

#include "engine/btree.h"
#include "workload/sysbench.h"

namespace poolsim {

// The redo of a commit's own mini-transaction (the undo log header set to committed,
// trx_undo_set_state_at_finish): a few header fields; U, not measured separately. The model logs it
// once per writing transaction, and calibrate takes it out of the measured redo before its fit.
inline constexpr double kCommitRedoBytes = 64;
// Bounds of a profile's measured figures (the schema's, and calibrate's check of each trace): a row
// change logs its record, its undo's and its index entries', each well under a 16 KiB page; a pool's
// frames are most of its pages, the rest holding their descriptors.
inline constexpr double kMaxRedoPerRowChange_bytes = 1048576;
inline constexpr double kMinPoolFramesRatio = 0.5, kMaxPoolFramesRatio = 1.0;

struct ServerProfile {
  std::string name;
  std::string source;  // which traces or documents the figures come from
  std::string product, version;  // the server the profile is of, as it names it ("" when it does not)
  // CPU per statement on the server, in seconds of a reference core (parse, optimise, execute,
  // protocol), by statement kind; ranges add per-row costs.
  std::array<double, kStatementKinds> statement_cpu_s{};
  // The variability of one statement's server CPU about its kind's mean (squared coefficient of
  // variation; 0: every statement costs its mean). Drawn from a gamma distribution per statement.
  // calibrate measures it from the server's CPU bursts in cached runs (perf sched).
  double statement_cpu_scv = 0;
  // The long bursts beside that body (perf sched: bursts over 1 ms, ~4 % of the connection threads'
  // CPU on the VM, up to tens of ms, holding a core): a share of each statement's mean CPU moved into
  // rare exponential bursts of mean `statement_cpu_tail_mean_s`, so the mean is kept. 0: none.
  double statement_cpu_tail_share = 0;
  double statement_cpu_tail_mean_s = 0;
  double range_row_cpu_s = 0;
  double page_hit_cpu_s = 0;     // buffer pool lookup and latch per page touched
  double page_read_cpu_s = 0;    // issuing and completing a read, excluding the checksum
  double page_write_cpu_s = 0;   // per page written by the page cleaner, excluding the checksum
  double checksum_crc32_cpu_s = 0;   // per 16 KiB page, innodb_checksum_algorithm=crc32
  double checksum_innodb_cpu_s = 0;  // per 16 KiB page, the legacy "innodb" algorithm
  double client_statement_cpu_s = 0; // sysbench and the client library per statement
  // Redo per row changed, without page splits, and per B-tree page split (a split logs about a page:
  // the records it moves and the new page). How often pages split is the data set's state, not the
  // server's: a freshly loaded sysbench index k is packed full and splits at most inserts, an aged one
  // rarely (traces/local-vm: 0.46 splits per transaction right after the copy, 0.04-0.05 aged).
  double redo_bytes_per_row_change = 0;
  double redo_bytes_per_page_split = 0;
  double page_splits_per_row_change = 0;  // the data set the profile assumes (database.page_splits_per_row_change overrides)
  double serial_section_s = 0;   // per statement, in a section one thread at a time (global latches)
  // CPU per transaction for each client thread beyond the cores: context switches and spin-waits
  // grow when runnable threads outnumber cores (fitted contention coefficient).
  double oversubscription_cpu_s = 0;
  double idle_wakeup_cpu_s = 0;  // per statement round trip whose thread wakes on an idle core
  double page_cleaner_batch_cpu_s = 0;
  // CPU InnoDB's background threads spend per committed transaction beyond the page writes (purge,
  // the tpool's task queue), run off the transactions' path by a background actor.
  double background_cpu_per_txn_s = 0;
  // What a thread does when it finds no free page and no clean page in the whole LRU
  // (buf_LRU_get_free_block), a feature of the version, not a cost:
  //  - WaitForPageCleaner: wake the page cleaner and wait for its LRU batch (MariaDB 10.5+);
  //  - SinglePageFlush: from the third attempt sleep 10 ms, and each time write one dirty page from
  //    the LRU tail itself, synchronously (buf_flush_single_page_from_LRU: MySQL 5.6-8.4, MariaDB <= 10.4).
  enum class FreePagePolicy { WaitForPageCleaner, SinglePageFlush };
  FreePagePolicy free_page_policy = FreePagePolicy::WaitForPageCleaner;
  // What innodb_max_dirty_pages_pct_lwm = 0 means for flush-list flushing, a feature of the version:
  //  - Adaptive: the low-water mark is off and adaptive flushing follows the checkpoint age
  //    (MySQL 5.6-8.4, MariaDB <= 10.4: page_cleaner_flush_pages_recommendation);
  //  - AtMaxDirty: no flush-list flushing until the dirty pages reach innodb_max_dirty_pages_pct or
  //    the checkpoint age nears the log capacity (MariaDB 10.5.9+, MDEV-24537: "refer to
  //    innodb_max_dirty_pages_pct"; the MariaDB KB's "InnoDB Page Flushing").
  enum class ZeroLwmFlushing { Adaptive, AtMaxDirty };
  ZeroLwmFlushing zero_lwm_flushing = ZeroLwmFlushing::Adaptive;
  // Which tablespaces innodb_flush_neighbors applies to: all (MySQL 5.6-8.4 check only the setting)
  // or only those the server finds on a rotational device (MariaDB: fil_space_t::is_rotational, true
  // unless the file's block device reports queue/rotational = 0, so also for tmpfs).
  enum class FlushNeighborsDevices { All, Rotational };
  FlushNeighborsDevices flush_neighbors_devices = FlushNeighborsDevices::All;
  // What an LRU flush does with the pages it writes (MariaDB, the WaitForPageCleaner policy):
  //  - Freed: each is freed when its write completes, and neighbours are taken only from the old
  //    sublist ("the flushed blocks are soon freed"; buf_page_write_complete, buf_flush_check_neighbor
  //    in the 10.5-10.6 sources; MySQL 5.6-8.4 alike).
  //  - Kept: written pages stay in the LRU list, clean, for a later walk to free; the walk goes on
  //    past them until it has freed lru_scan_depth clean pages, and neighbours are any dirty pages of
  //    the area, young ones too, flushed only once the free list holds half its target (the 10.11
  //    branch's later source; MariaDB 10.11.19 measured so: traces/local-vm, calibrate sets it).
  enum class LruWrittenPages { Freed, Kept };
  LruWrittenPages lru_written_pages = LruWrittenPages::Freed;
  // Buffer pool frames per page of innodb_buffer_pool_size (the rest holds the pages' descriptors).
  double pool_frames_ratio = 1.0;
};

// Where the clients run: on the database host (sharing its cores) or on client hosts across a
// network with a round trip per statement.
struct ClientConfig {
  bool remote = false;
  double round_trip_s = 0;
};

// InnoDB and server settings of a scenario (the `database:` section).
struct DatabaseConfig {
  std::string profile;
  double buffer_pool_bytes = 128.0 * 1024 * 1024;
  double page_bytes = kInnodbPageBytes;
  double old_blocks_ratio = 0.37;
  double old_blocks_time_s = 1.0;
  double io_capacity = 200;
  double io_capacity_max = 2000;
  int lru_scan_depth = 1024;
  double max_dirty_pages_ratio = 0.90;
  double dirty_pages_lwm_ratio = 0.10;
  double adaptive_flushing_lwm_ratio = 0.10;
  double redo_capacity_bytes = 2.0 * 48 * 1024 * 1024;
  int flush_log_at_trx_commit = 1;
  bool doublewrite = true;
  bool atomic_writes = false;
  std::string checksum = "crc32";
  bool binlog = false;
  int sync_binlog = 0;
  int thread_concurrency = 0;
  int write_io_slots = 64;
  int page_cleaners = 1;          // innodb_page_cleaners: LRU flushes running in parallel
  int buffer_pool_instances = 1;  // innodb_buffer_pool_instances: the LRU flush keeps lru_scan_depth free per instance
  int doublewrite_files = 0;      // doublewrite batches in flight at once (MySQL 5.7: 1 shared buffer); 0: no limit
  int flush_neighbors = 0;        // innodb_flush_neighbors: 0 off, 1 the contiguous dirty run, 2 the whole area
  // innodb_flush_method: O_DIRECT bypasses the OS page cache; fsync reads and writes the data files
  // through it, so a buffer-pool miss the page cache holds is a memory copy, not a device read.
  bool buffered_data_files = false;
  double page_cache_bytes = 0;    // with buffered_data_files: the OS page cache's capacity
  // B-tree page splits per row changed, the data set's age (negative: the profile's).
  double page_splits_per_row_change = -1;
};

}  // namespace poolsim
