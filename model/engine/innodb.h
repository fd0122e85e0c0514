// One database server on a compute node: InnoDB's buffer pool, redo log with group commit, page
// cleaner, row locks and thread concurrency, executing sysbench statements for client threads.
#pragma once
#include <simgrid/s4u.hpp>

#include <deque>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <unordered_map>
#include <vector>

#include "engine/btree.h"
#include "engine/buffer_pool.h"
#include "engine/profile.h"
#include "platform/page_cache.h"
#include "platform/platform.h"
#include "workload/sysbench.h"

namespace poolsim {

// Where a transaction's time went (seconds), the latency breakdown of the results.
struct TxnBreakdown {
  double cpu_s = 0, read_io_s = 0, network_s = 0, log_fsync_s = 0, lock_wait_s = 0, free_page_wait_s = 0,
         queue_s = 0, serial_section_s = 0;
  void add(const TxnBreakdown& o) {
    cpu_s += o.cpu_s; read_io_s += o.read_io_s; network_s += o.network_s; log_fsync_s += o.log_fsync_s;
    lock_wait_s += o.lock_wait_s; free_page_wait_s += o.free_page_wait_s; queue_s += o.queue_s;
    serial_section_s += o.serial_section_s;
  }
};

struct ClientThread;

// Suspended actors waiting for something, woken in FIFO order.
class WaitQueue {
public:
  void wait();
  void wake_one();
  void wake_all();
  bool empty() const { return waiting_.empty(); }

private:
  std::deque<simgrid::s4u::ActorPtr> waiting_;
};

// Group commit on a log file: the first committer whose position is not yet durable becomes the
// leader, writes everything appended so far and fsyncs; those arriving meanwhile wait for the next
// group.
class GroupCommitLog {
public:
  // `on_flush` runs before each flush: the flushing thread's CPU in the kernel's fsync path.
  GroupCommitLog(StoragePath& path, std::uint64_t offset_bytes, double capacity_bytes, std::function<void()> on_flush)
      : path_(path), offset_(offset_bytes), capacity_(capacity_bytes), on_flush_(std::move(on_flush)) {}
  std::uint64_t append(double bytes) { return lsn_ += static_cast<std::uint64_t>(bytes); }
  std::uint64_t lsn() const { return lsn_; }
  // Moves the log on by `bytes`, written and flushed without IO (a fast-forward's transactions).
  void skip(double bytes) {
    const auto b = static_cast<std::uint64_t>(bytes);
    lsn_ += b;
    written_ += b;
    flushed_ += b;
  }
  // Blocks until everything up to `lsn` is written and flushed.
  void wait_durable(std::uint64_t lsn);
  // Writes (and optionally flushes) everything appended; used by the once-per-second flush.
  void write_all(bool fsync);
  std::uint64_t writes = 0, fsyncs = 0;

private:
  void write_and_flush(bool fsync);
  StoragePath& path_;
  std::uint64_t offset_;
  double capacity_;
  std::function<void()> on_flush_;
  std::uint64_t lsn_ = 0, written_ = 0, flushed_ = 0;
  bool busy_ = false;
  WaitQueue waiters_;
};

class InnodbServer {
public:
  InnodbServer(Platform& platform, ComputeNode& node, const DataLayout& layout, const DatabaseConfig& config,
               const ServerProfile& profile, std::uint64_t seed);

  // Fills the pool without timing by replaying the workload's page accesses (functional warm-up).
  void functional_warmup(const SysbenchMix& mix, std::mt19937_64& rng);
  // Starts the page cleaner and the once-per-second log flush.
  void start_background();

  // The flushing's steady state reached without timing (simulation.warmup_fast_forward): the
  // workload's transactions replayed through the pool as execute() touches pages, `tps` of them per
  // second of virtual time, dirtying what their writes modify at the redo positions they would have;
  // every virtual second the page cleaner's flush-list recommendation runs as in the timed loop,
  // and a miss that finds no free frame runs the LRU flush, their pages left clean (and freed) as
  // their writes would leave them, with no IO and no CPU. Pages being read or written by the timed
  // run are left alone. Stops after `max_s` virtual seconds or `max_reads` misses, or when
  // `steady` (called after each virtual second with its pages written per second and the dirty
  // pages) says the flushing is steady (`steady` in the result). Called from an
  // actor between events: nothing else runs meanwhile, and the timed run resumes from that state
  // with its clock for the pool's LRU and the redo log moved on by the virtual time.
  struct FastForward {
    double virtual_s = 0;
    std::uint64_t transactions = 0, reads = 0, page_writes = 0;
    bool steady = false;  // ended by the `steady` test
  };
  using SteadyTest = std::function<bool(double page_writes_per_s, std::uint32_t dirty_pages)>;
  FastForward fast_forward(const SysbenchMix& mix, std::mt19937_64& rng, double tps, double max_s, std::uint64_t max_reads,
                           const SteadyTest& steady = {});

  // Runs one transaction in the calling actor; returns false when it was rolled back (deadlock).
  bool execute(const std::vector<Statement>& statements, ClientThread& thread);
  // Client threads on this server (for the oversubscription cost).
  void set_client_threads(int threads) { client_threads_ = threads; }

  void reset_counters();
  // The measured window's figures; it ended at `window_end_s` (`elapsed_s` long).
  nlohmann::ordered_json report(double elapsed_s, double transactions, double window_end_s);
  BufferPool& pool() { return pool_; }

  struct Counters {
    std::uint64_t page_reads = 0, page_writes = 0, doublewrite_pages = 0, neighbor_pages = 0, single_page_flushes = 0, deadlocks = 0,
                  lock_waits = 0, free_page_waits = 0, free_page_attempts = 0, sync_flush_waits = 0, statements = 0, data_fsyncs = 0,
                  commits = 0, page_cache_reads = 0;  // page_cache_reads: page_reads served by the OS page cache
    // The LRU flush's batches (one per instance where the version flushes instance by instance).
    std::uint64_t lru_batches = 0, lru_batch_pages = 0, lru_batch_pages_max = 0;
    double single_page_slot_wait_s = 0;  // time threads waited for a single-page doublewrite slot
  };
  Counters counters;

private:
  friend struct ClientThread;
  void access(ClientThread& t, std::uint32_t page, bool modify);
  // A miss as one wait (burst booked ahead, read issued at its end); false when it does not apply.
  bool read_after_burst(ClientThread& t, std::uint32_t page);
  // A miss's read has completed; `from_page_cache`: it was a copy from the OS page cache, which
  // takes no path to the device.
  void finish_read(ClientThread& t, std::uint32_t page, bool from_page_cache = false);
  // A page another thread is reading (in flight): wait for that read.
  void wait_for_read(ClientThread& t, std::uint32_t page);
  // A miss the OS page cache holds: a frame, then the copy as CPU merged into the thread's burst.
  void read_from_page_cache(ClientThread& t, std::uint32_t page, bool modify);
  void touch_index_path(ClientThread& t, const IndexGeometry& index, std::uint64_t position, bool modify,
                        std::uint32_t extra_leaves = 0);
  void get_free_frame(ClientThread& t);
  bool evict_clean_near_tail(std::uint32_t depth);
  // A user thread writes one page from the LRU tail itself (SinglePageFlush policy).
  void single_page_flush();
  // An fsync of a data file (doublewrite area or tablespace): the thread's CPU, then the device flush.
  void fsync_data_file();
  std::uint32_t lru_free_target() const;
  // MariaDB's page cleaner (the wait_for_page_cleaner versions): LRU batches on demand, each written
  // page freed as its write completes.
  bool mariadb_lru_flushing() const { return profile_.free_page_policy == ServerProfile::FreePagePolicy::WaitForPageCleaner; }
  bool doublewrite_on() const { return config_.doublewrite && !(config_.atomic_writes && node_.storage->atomic_writes()); }
  // One statement's server CPU: its kind's mean, or a draw about it (profile statement_cpu_scv).
  double statement_cpu(ClientThread& t, StatementKind kind);
  void lock_row(ClientThread& t, std::uint64_t key);
  void release_locks(ClientThread& t);
  void log_free_check(ClientThread& t);
  void enter_innodb(ClientThread& t);
  void exit_innodb(ClientThread& t);
  // innodb_flush_neighbors applies to this server's files: set, and for MariaDB on a device it finds
  // rotational.
  bool flush_neighbors_on() const;
  // InnoDB's buf_flush_try_neighbors: each victim of a batch, in order, brings along the dirty pages of
  // its flush area (the 64-page extent of its tablespace holding it; with flush_neighbors = 1 only the
  // unbroken run around it), until the batch holds `cap` pages; an LRU batch takes only old pages. The
  // pages of the batch are write-fixed on return; victims left over by the cap stay for a later batch.
  void add_flush_neighbors(std::vector<std::uint32_t>& pages, bool lru, std::size_t cap);
  // Writes `pages` (doublewrite first when enabled), then marks them clean; `evict` frees them.
  void flush_pages(const std::vector<std::uint32_t>& pages, bool evict);
  // The page writers of flush_pages: persistent actors, each given a batch to share and resumed.
  struct WriteBatch {
    const std::vector<std::uint32_t>* pages;
    size_t next, remaining;
    WaitQueue done;
    bool free_on_completion = false;  // an LRU batch of MariaDB 10.5+: each page is freed as its write completes
  };
  std::uint64_t commits_total_ = 0;  // transactions committed since the start (counters.commits is reset)
  // A page of an evicting batch whose write completed: clean, freed, and a waiting thread woken.
  void free_written_page(std::uint32_t page);
  struct PageWriter {
    simgrid::s4u::ActorPtr actor;
    WriteBatch* batch = nullptr;
  };
  void page_writer_loop(PageWriter& self);
  std::vector<std::unique_ptr<PageWriter>> page_writers_;
  std::deque<PageWriter*> idle_writers_;
  // One LRU flush batch: dirty pages near the tail written and freed, clean ones freed.
  void lru_flush_batch();
  // The pages an LRU flush writes, write-fixed, neighbours included (MariaDB's walk frees the clean
  // pages it passes, and then wakes the threads waiting for a frame when `wake`). Returns whether
  // the written pages are freed once written.
  bool choose_lru_batch(std::vector<std::uint32_t>& pages, bool wake);
  // Pages the page cleaner recommends for this pass of the flush list (page_cleaner_flush_pages_recommendation),
  // `elapsed_s` after the last pass at redo position `lsn`; updates the averages it keeps. `age`
  // gets the checkpoint age.
  double flush_list_recommendation(std::uint64_t lsn, double elapsed_s, double* age);
  // Pages whose writes are done (a flush's, or a fast-forward's): clean, in the OS page cache when
  // there is one, freed when `evict` (unless being read).
  void mark_written(const std::vector<std::uint32_t>& pages, bool evict);
  // The pool's clock: the simulation's, moved on by the fast-forwards' virtual time.
  double pool_now() const;
  double pool_clock_offset_s_ = 0;
  void count_lru_batch(std::size_t pages);  // an LRU batch of `pages` dirty pages (neighbours included) is written
  void page_cleaner_loop();
  void lru_flusher_loop();
  // MySQL 5.6-8.x and MariaDB <= 10.4: page cleaner `cleaner` of page_cleaners, LRU then flush list.
  void page_cleaner_slot_loop(int cleaner);
  // One flush-list batch of `n_pages` from the oldest modifications; returns the pages written.
  std::size_t flush_list_batch(double n_pages);
  double checksum_cpu_s() const;
  // The checkpoint age past which InnoDB flushes synchronously (the redo log nearly full).
  double sync_flush_age() const;
  std::uint64_t page_offset(std::uint32_t page) const { return static_cast<std::uint64_t>(page) * kInnodbPageBytes; }

  Platform& platform_;
  ComputeNode& node_;
  const DataLayout& layout_;
  DatabaseConfig config_;
  ServerProfile profile_;
  double redo_bytes_per_row_change_ = 0;  // the profile's, with the data set's page splits
  BufferPool pool_;
  std::unique_ptr<OsPageCache> page_cache_;  // the OS page cache in front of the data files (flush_method fsync), or null
  std::unique_ptr<GroupCommitLog> redo_, binlog_;
  std::uint64_t doublewrite_offset_;
  std::unordered_map<std::uint32_t, std::unique_ptr<WaitQueue>> reading_;  // pages being read
  struct RowLock {
    ClientThread* holder = nullptr;
    std::deque<ClientThread*> waiting;
  };
  std::unordered_map<std::uint64_t, RowLock> locks_;
  int inside_ = 0;  // threads inside InnoDB (innodb_thread_concurrency)
  // The slots' occupancy over the measured window: slot-seconds held up to slots_counted_to_s_.
  double slot_s_ = 0, slots_counted_to_s_ = 0;
  void count_slots();  // brings slot_s_ to now, before inside_ changes
  std::deque<ClientThread*> concurrency_queue_;
  WaitQueue sync_flush_waiters_;
  WaitQueue free_frame_waiters_;                  // threads waiting for the LRU flush to free a page
  simgrid::s4u::MutexPtr cleaner_mutex_;
  simgrid::s4u::ConditionVariablePtr cleaner_wakeup_;  // user threads short of free pages wake the cleaner
  // The page cleaner threads' pass (MySQL 5.6-8.x, MariaDB <= 10.4): all start it together and the
  // coordinator waits for all to finish it (pc_request / pc_wait_finished).
  simgrid::s4u::BarrierPtr pass_start_, pass_end_;
  bool pass_full_ = false;            // this pass flushes the flush list too (else the LRU only)
  double pass_list_pages_ = 0;        // this pass's flush-list pages per cleaner
  std::size_t pass_pages_written_ = 0;  // flush-list pages the cleaners wrote in this pass
  bool pass_freed_ = false;             // some cleaner's LRU batch freed frames in this pass
  bool cleaner_requested_ = false;
  simgrid::s4u::SemaphorePtr doublewrite_slots_;  // null: doublewrite batches not limited
  simgrid::s4u::SemaphorePtr single_page_slots_;  // the shared buffer's single-page slots; null: none
  GapServer serial_section_;  // booked at each statement's own arrival, which may lie ahead of now
  double avg_lsn_rate_ = 0, avg_page_rate_ = 0;
  std::uint64_t lsn_at_reset_ = 0;
  int client_threads_ = 1;
  std::uint64_t last_cleaner_lsn_ = 0;
  double cleaner_last_pass_s_ = 0;  // when the timed page cleaner last passed over the flush list
  std::uint64_t fast_forwards_ = 0;
  std::mt19937_64 rng_;
};

// A client thread (one sysbench thread): its actor, its random stream and its pending work.
struct ClientThread {
  ComputeNode* node = nullptr;
  Platform* platform = nullptr;
  ClientConfig client;
  simgrid::s4u::ActorPtr actor;
  std::mt19937_64 rng;
  double pending_cpu_s = 0;    // CPU work accumulated since the last wait
  double pending_delay_s = 0;  // pure delays (round trips, client think) since the last wait
  double pending_serial_s = 0; // of which queueing for the serial section (breakdown apart)
  double pending_wakeup_s = 0; // CPU the pending round trips cost if they wake on an idle core
  bool on_irq_core = false;    // woken by its read's completion: on the interrupt's core until the statement ends
  int core = -1;               // the core it last ran on (per-core queues only)
  TxnBreakdown breakdown;
  std::vector<std::uint64_t> held_locks;
  ClientThread* waiting_for = nullptr;  // holder of the lock this thread waits for (deadlock detection)
  bool deadlocked = false;
  bool inside_innodb = false;  // holds an innodb_thread_concurrency slot
  double read_issued_s = -1;  // a read booked for this thread by a timer callback (InnodbServer::read_after_burst)
  // Runs the pending delay and CPU work: one timer and one execution, whatever the statements.
  void settle();
  // Books the pending delays and the CPU burst (ready at ready_s, done at burst_end_s) into the
  // breakdown and clears them.
  void close_pending(double ready_s, double burst_end_s);
};

}  // namespace poolsim
