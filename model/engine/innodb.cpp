#include "engine/innodb.h"

#include <simgrid/kernel/Timer.hpp>

#include <algorithm>
#include <cmath>
#include <mutex>

#include "engine/warmup.h"

namespace poolsim {

namespace sg = simgrid::s4u;

namespace {
double now() { return sg::Engine::get_clock(); }

// InnoDB constants (storage/innobase): the doublewrite buffer takes batches of up to 120 pages
// (2 x 64-page blocks less 8 for single-page flushes); log_free_check forces a synchronous flush
// when the checkpoint age passes 15/16 of the usable redo ("max_modified_age_sync"), and the page
// cleaner flushes harder past 7/8 ("max_modified_age_async"); the usable redo is ~90 % of the files.
constexpr std::uint32_t kDoublewriteBatchPages = 120;
// The shared doublewrite buffer's other 8 pages are the single-page flushes' slots (buf_dblwr_t
// s_reserved, n_slots = 2 x TRX_SYS_DOUBLEWRITE_BLOCK_SIZE - srv_doublewrite_batch_size in MySQL 5.6-8.0.19
// and MariaDB <= 10.4): a thread holds one from its doublewrite copy to its tablespace's fsync, and
// waits for one when all are taken (buf_dblwr_write_single_page).
constexpr int kDoublewriteSinglePageSlots = 8;
constexpr double kRedoUsable = 0.9;
constexpr double kAgeAsync = 7.0 / 8.0;
constexpr double kAgeSync = 15.0 / 16.0;
constexpr double kCleanerInterval_s = 1.0;
// How often the background actor runs the committed transactions' background CPU: a modelling
// granularity (InnoDB's purge coordinator runs when undo accumulates, with no fixed period), short
// enough that each burst is small against a transaction.
constexpr double kBackgroundInterval_s = 0.01;
constexpr double kLogBlockBytes = 512;  // redo is written in 512-byte blocks
constexpr double kLruRetry_s = 100e-6;   // a short back-off of the LRU flusher when nothing was freed
// buf_LRU_get_free_block: the first look for a clean page covers the last BUF_LRU_SEARCH_SCAN_THRESHOLD
// pages of the LRU (MySQL 5.6-8.4 and MariaDB); with single-page flushing a thread that still has no
// page sleeps 10 ms per attempt from its third attempt (MySQL 5.6-8.4 buf0lru.cc).
constexpr std::uint32_t kLruSearchScanThreshold = 100;
// A page's flush area for innodb_flush_neighbors: buf_flush_area = min(read_ahead_area, pool / 16),
// read_ahead_area being 64 pages (one extent of 16 KiB pages) for any pool of 2,048 pages or more.
constexpr std::uint32_t kFlushAreaPages = 64;
constexpr double kFreePageRetrySleep_s = 10e-3;
}  // namespace

void WaitQueue::wait() {
  waiting_.push_back(sg::Actor::self());
  sg::this_actor::suspend();
}
void WaitQueue::wake_one() {
  if (waiting_.empty()) return;
  auto a = waiting_.front();
  waiting_.pop_front();
  a->resume();
}
void WaitQueue::wake_all() {
  auto all = std::move(waiting_);
  waiting_.clear();
  for (auto& a : all) a->resume();
}

void GroupCommitLog::write_and_flush(bool fsync) {
  busy_ = true;
  std::uint64_t target = lsn_;
  // A fast-forward during the write (skip) moves written_ past the target.
  double bytes = target > written_ ? std::ceil(static_cast<double>(target - written_) / kLogBlockBytes) * kLogBlockBytes : 0.0;
  if (bytes > 0) {
    path_.write(offset_ + static_cast<std::uint64_t>(std::fmod(static_cast<double>(written_), capacity_)), bytes, WriteQueue::Own);
    ++writes;
  }
  written_ = std::max(written_, target);
  if (fsync) {
    on_flush_();
    path_.flush();
    ++fsyncs;
    flushed_ = std::max(flushed_, target);
  }
  busy_ = false;
  waiters_.wake_all();
}

void GroupCommitLog::wait_durable(std::uint64_t lsn) {
  while (flushed_ < lsn) {
    if (!busy_) {
      write_and_flush(true);
    } else {
      waiters_.wait();
    }
  }
}

void GroupCommitLog::write_all(bool fsync) {
  while (busy_) waiters_.wait();
  if (written_ < lsn_ || (fsync && flushed_ < lsn_)) write_and_flush(fsync);
}

void ClientThread::settle() {
  if (pending_delay_s <= 0 && pending_cpu_s <= 0) return;
  // The delay, then the CPU burst queued from the end of the delay: one timer for both.
  double start = now(), ready = start + pending_delay_s;
  platform->compute_from(*node, ready, pending_cpu_s, pending_wakeup_s, on_irq_core, &core);
  close_pending(ready, now());
}

void ClientThread::close_pending(double ready_s, double burst_end_s) {
  breakdown.network_s += pending_delay_s - pending_serial_s;
  breakdown.serial_section_s += pending_serial_s;
  breakdown.cpu_s += burst_end_s - ready_s;
  pending_delay_s = pending_cpu_s = pending_wakeup_s = pending_serial_s = 0;
}

InnodbServer::InnodbServer(Platform& platform, ComputeNode& node, const DataLayout& layout, const DatabaseConfig& config,
                           const ServerProfile& profile, std::uint64_t seed)
    : platform_(platform), node_(node), layout_(layout), config_(config), profile_(profile),
      pool_(layout.total_pages(),
            static_cast<std::uint32_t>(std::lround(config.buffer_pool_bytes * profile.pool_frames_ratio / config.page_bytes)),
            config.old_blocks_ratio, config.old_blocks_time_s),
      rng_(seed) {
  const double splits = config.page_splits_per_row_change >= 0 ? config.page_splits_per_row_change : profile.page_splits_per_row_change;
  redo_bytes_per_row_change_ = profile.redo_bytes_per_row_change + splits * profile.redo_bytes_per_page_split;
  // A cache larger than the data holds all of it; past that its size changes nothing (and a size in
  // pages past 64 bits would not convert).
  const double cache_pages = std::min(std::floor(config.page_cache_bytes / config.page_bytes), static_cast<double>(layout.total_pages()));
  if (config.buffered_data_files && cache_pages >= 1)
    page_cache_ = std::make_unique<OsPageCache>(layout.total_pages(), static_cast<std::uint64_t>(cache_pages));
  cleaner_mutex_ = sg::Mutex::create();
  cleaner_wakeup_ = sg::ConditionVariable::create();
  if (config.doublewrite_files > 0) doublewrite_slots_ = sg::Semaphore::create(config.doublewrite_files);
  // The one shared buffer (doublewrite_files 1) has the single-page slots; MySQL 8.0.20+'s files have their own.
  if (config.doublewrite_files == 1) single_page_slots_ = sg::Semaphore::create(kDoublewriteSinglePageSlots);
  // Files on the volume: the tablespaces (page id x 16 KiB), then the doublewrite area, the redo
  // log and the binary log.
  std::uint64_t end = page_offset(layout.total_pages());
  doublewrite_offset_ = end;
  std::uint64_t redo_offset = doublewrite_offset_ + kDoublewriteBatchPages * 2 * 16384ull;
  auto fsync_cpu = [this] { platform_.compute(node_, node_.storage->host_cpu_per_flush_s()); };
  redo_ = std::make_unique<GroupCommitLog>(*node.storage, redo_offset, config.redo_capacity_bytes, fsync_cpu);
  binlog_ = std::make_unique<GroupCommitLog>(*node.storage, redo_offset + static_cast<std::uint64_t>(config.redo_capacity_bytes),
                                             1024.0 * 1024 * 1024, fsync_cpu);
}

double InnodbServer::sync_flush_age() const { return config_.redo_capacity_bytes * kRedoUsable * kAgeSync; }

double InnodbServer::checksum_cpu_s() const {
  if (config_.checksum == "crc32") return profile_.checksum_crc32_cpu_s;
  if (config_.checksum == "innodb") return profile_.checksum_innodb_cpu_s;
  return 0;
}

void InnodbServer::functional_warmup(const SysbenchMix& mix, std::mt19937_64& rng) {
  // The pool as replaying the workload's page accesses without timing leaves it once full and turned
  // over, so the timed warm-up starts from a steady LRU instead of an empty pool: built directly as
  // that replay's steady state where the keys are uniform, then a short replay (engine/warmup.cpp).
  poolsim::functional_warmup(pool_, layout_, mix, rng);
  if (page_cache_) page_cache_->warm_uniform([this](std::uint32_t p) { return pool_.resident(p); }, rng);
}

double InnodbServer::pool_now() const { return now() + pool_clock_offset_s_; }

void InnodbServer::mark_written(const std::vector<std::uint32_t>& pages, bool evict) {
  for (auto p : pages) {
    pool_.set_write_fix(p, false);
    pool_.mark_clean(p);
    if (page_cache_) page_cache_->write(p);  // written through the page cache: it stays there
    if (evict && !pool_.in_flight(p)) pool_.evict(p);
  }
}

InnodbServer::FastForward InnodbServer::fast_forward(const SysbenchMix& mix, std::mt19937_64& rng, double tps, double max_s,
                                                     std::uint64_t max_reads, const SteadyTest& steady) {
  FastForward ff;
  if (!(tps > 0) || !(max_s > 0)) return ff;
  const double start_s = pool_now(), txn_s = 1.0 / tps;
  // Whole virtual seconds, as the page cleaner passes once a second.
  const auto txn_per_second = static_cast<std::uint64_t>(std::max(1.0, std::round(tps)));
  std::vector<Statement> statements;
  std::vector<std::uint32_t> batch;
  // A transaction's pages, with the redo written before each (a statement's pages are dirtied at the
  // position before its own record, as execute() dirties them).
  struct ReplayedTransaction {
    std::vector<std::uint32_t> pages;
    std::vector<std::uint8_t> modified;
    std::vector<std::uint64_t> redo_before;
    double redo_bytes = 0;
  };
  auto draw = [&](ReplayedTransaction& txn, bool holds_data) {
    mix.next(rng, statements, /*writes_only=*/holds_data);
    txn.pages.clear();
    txn.modified.clear();
    txn.redo_before.clear();
    txn.redo_bytes = 0;
    // (A pool holding the whole data set with its free pages to spare evicts nothing: the LRU order
    // its touches keep changes no outcome, and only the pages writes modify matter, so only the
    // write statements are drawn.)
    for (const auto& s : statements) {
      statement_pages(layout_, s, txn.pages, &txn.modified);
      txn.redo_before.resize(txn.pages.size(), static_cast<std::uint64_t>(txn.redo_bytes));
      if (is_write(s.kind)) txn.redo_bytes += redo_bytes_per_row_change_;
    }
    for (auto page : txn.pages) pool_.prefetch(page);
  };
  auto write = [&](bool evict) {
    ff.page_writes += batch.size();
    mark_written(batch, evict);
    batch.clear();
  };
  auto lru_flush = [&] {
    const bool evict = choose_lru_batch(batch, /*wake=*/false);
    write(evict);
    if (!mariadb_lru_flushing())
      while (pool_.free_frames() < lru_free_target() && evict_clean_near_tail(lru_free_target())) {
      }
  };
  // The writes the timed run has under way complete within the virtual time: their pages are left
  // clean (still write-fixed: the writers free them when the timed run resumes). Left dirty, pages no
  // flush can take would hold the checkpoint age back for the whole fast-forward.
  pool_.dirty_write_fixed(batch);
  for (auto p : batch) pool_.mark_clean(p);
  batch.clear();
  bool stuck = false;  // every page pinned by the timed run: nothing to evict
  const bool holds_data = pool_.resident_pages() >= layout_.total_pages() && pool_.free_frames() >= lru_free_target();
  // The loop is bound by cache misses on the per-page slots, so it runs two transactions behind its
  // draws: the slots of the transaction after next are fetched at its draw, then, their positions
  // known, the next one's LRU entries, while this one's are used. The draws stay in order.
  constexpr int kPipeline = 3;
  ReplayedTransaction replayed[kPipeline];
  int current = 0;
  for (int i = 0; i + 1 < kPipeline; ++i) draw(replayed[i], holds_data);
  while (ff.virtual_s < max_s && ff.reads < max_reads && !stuck && !ff.steady) {
    const std::uint64_t writes_before = ff.page_writes;
    for (std::uint64_t n = 0; n < txn_per_second && !stuck; ++n) {
      const double t = start_s + ff.virtual_s + static_cast<double>(n) * txn_s;
      const auto& [pages, modified, redo_before, redo_bytes] = replayed[current];
      const int next = (current + 1) % kPipeline, after_next = (current + 2) % kPipeline;
      draw(replayed[after_next], holds_data);
      for (auto page : replayed[next].pages) pool_.prefetch_links(page);
      const std::uint64_t lsn = redo_->lsn();
      for (std::size_t i = 0; i < pages.size() && !stuck; ++i) {
        const std::uint32_t page = pages[i];
        if (holds_data && !modified[i]) continue;
        if (!pool_.touch(page, t)) {
          // A frame as get_free_frame finds one, the LRU flush standing in for the cleaner the
          // thread would wake (MariaDB's before the free list runs out).
          if (mariadb_lru_flushing() && pool_.free_frames() < lru_free_target() / 2) lru_flush();
          if (pool_.free_frames() == 0 && !evict_clean_near_tail(kLruSearchScanThreshold)) {
            lru_flush();
            stuck = pool_.free_frames() == 0 && !evict_clean_near_tail(pool_.resident_pages());
            if (stuck) break;
          }
          if (page_cache_) page_cache_->read(page);
          pool_.insert_reading(page, t);
          pool_.read_done(page);
          ++ff.reads;
        }
        // A page the timed run is reading or writing stays its own: dirtied now, it would be a dirty
        // page no flush can take until the timed run resumes, holding the checkpoint age back for the
        // whole fast-forward. (A thread waits for a read before it modifies the page; a write's
        // completion leaves the page clean in the timed run too.)
        if (modified[i] && !pool_.in_flight(page) && !pool_.write_fixed(page)) pool_.mark_dirty(page, lsn + redo_before[i]);
      }
      if (redo_bytes > 0) redo_->skip(redo_bytes + kCommitRedoBytes);
      ++ff.transactions;
      current = (current + 1) % kPipeline;
    }
    ff.virtual_s += static_cast<double>(txn_per_second) * txn_s;
    // The page cleaner's pass over the flush list, then the LRU flusher's once-a-second batch.
    double age = 0;
    const double n_pages = flush_list_recommendation(redo_->lsn(), kCleanerInterval_s, &age);
    pool_.oldest_dirty(static_cast<std::uint32_t>(std::max(0.0, n_pages)), BufferPool::kNoLsn, batch);
    add_flush_neighbors(batch, /*lru=*/false, batch.size());
    avg_page_rate_ = (avg_page_rate_ + batch.size() / kCleanerInterval_s) / 2;
    write(/*evict=*/false);
    if (pool_.free_frames() < lru_free_target()) lru_flush();
    if (steady)
      ff.steady = steady(static_cast<double>(ff.page_writes - writes_before) / (static_cast<double>(txn_per_second) * txn_s),
                         pool_.dirty_pages());
  }
  pool_clock_offset_s_ += ff.virtual_s;
  ++fast_forwards_;
  // The timed cleaner's next pass measures the redo rate since its last pass, which it made before
  // the fast-forward: the redo it would have seen since then at the rate the replay ran.
  const double since_pass_s = std::max(0.0, now() - cleaner_last_pass_s_);
  last_cleaner_lsn_ = redo_->lsn() - std::min<std::uint64_t>(redo_->lsn(), static_cast<std::uint64_t>(avg_lsn_rate_ * since_pass_s));
  counters.page_reads += ff.reads;  // the warm-up's turnovers count them
  // Threads waiting for a frame or for the checkpoint look again.
  free_frame_waiters_.wake_all();
  sync_flush_waiters_.wake_all();
  return ff;
}

void InnodbServer::start_background() {
  if (mariadb_lru_flushing()) {
    sg::Actor::create("page-cleaner-" + node_.host->get_name(), node_.host, [this] { page_cleaner_loop(); })->daemonize();
    for (int i = 0; i < config_.page_cleaners; ++i)
      sg::Actor::create("lru-flusher-" + std::to_string(i) + "-" + node_.host->get_name(), node_.host,
                        [this] { lru_flusher_loop(); })->daemonize();
  } else {
    pass_start_ = sg::Barrier::create(static_cast<unsigned>(config_.page_cleaners));
    pass_end_ = sg::Barrier::create(static_cast<unsigned>(config_.page_cleaners));
    for (int i = 0; i < config_.page_cleaners; ++i)
      sg::Actor::create("page-cleaner-" + std::to_string(i) + "-" + node_.host->get_name(), node_.host,
                        [this, i] { page_cleaner_slot_loop(i); })->daemonize();
  }
  if (profile_.background_cpu_per_txn_s > 0) {
    // Purge and the other background tasks: every interval, the CPU of the transactions committed
    // since, as one burst on the node (they run beside the connections, not in their path).
    sg::Actor::create("background-" + node_.host->get_name(), node_.host, [this] {
      std::uint64_t seen = commits_total_;
      while (true) {
        sg::this_actor::sleep_for(kBackgroundInterval_s);
        const std::uint64_t commits = commits_total_;  // never reset, unlike counters
        if (commits > seen) platform_.compute(node_, profile_.background_cpu_per_txn_s * static_cast<double>(commits - seen));
        seen = commits;
      }
    })->daemonize();
  }
  if (config_.flush_log_at_trx_commit != 1 || (config_.binlog && config_.sync_binlog != 1)) {
    // srv_master_thread: once a second the log is written and flushed whatever the commit setting.
    sg::Actor::create("log-flusher-" + node_.host->get_name(), node_.host, [this] {
      while (true) {
        sg::this_actor::sleep_for(kCleanerInterval_s);
        redo_->write_all(true);
        if (config_.binlog) binlog_->write_all(config_.sync_binlog != 0);
      }
    })->daemonize();
  }
}

void InnodbServer::enter_innodb(ClientThread& t) {
  if (config_.thread_concurrency <= 0 || t.inside_innodb) return;
  t.inside_innodb = true;
  // The work done so far runs first (it may yield, and a slot may free meanwhile): then take a free
  // slot or queue, with nothing in between that could let the last holder leave unnoticed.
  t.settle();
  if (inside_ < config_.thread_concurrency && concurrency_queue_.empty()) {
    count_slots();
    ++inside_;
    return;
  }
  double start = now();
  concurrency_queue_.push_back(&t);
  sg::this_actor::suspend();  // exit_innodb hands its slot over and resumes us
  t.breakdown.queue_s += now() - start;
}

void InnodbServer::exit_innodb(ClientThread& t) {
  if (config_.thread_concurrency <= 0 || !t.inside_innodb) return;
  // The statement's CPU runs while it holds its slot: without a limit it may merge with the next
  // wait's burst (one activity), with one it must be spent before the slot passes on.
  t.settle();
  t.inside_innodb = false;
  if (!concurrency_queue_.empty()) {
    ClientThread* next = concurrency_queue_.front();
    concurrency_queue_.pop_front();
    next->actor->resume();  // the slot passes to it: inside_ unchanged
  } else {
    count_slots();
    --inside_;
  }
}

void InnodbServer::count_slots() {
  slot_s_ += inside_ * (now() - slots_counted_to_s_);
  slots_counted_to_s_ = now();
}

bool InnodbServer::evict_clean_near_tail(std::uint32_t depth) {
  std::uint32_t victim = pool_.find_clean_near_tail(depth);
  if (victim == BufferPool::kNone) return false;
  pool_.evict(victim);
  return true;
}

void InnodbServer::get_free_frame(ClientThread& t) {
  // buf_LRU_get_free_block: the free list; else a clean page among the last 100 of the LRU on the
  // first attempt, anywhere in the LRU on the next ones; else wake the page cleaner and apply the
  // version's policy, and try again.
  if (pool_.free_frames() > 0 || evict_clean_near_tail(kLruSearchScanThreshold)) return;
  double start = now();
  ++counters.free_page_waits;
  for (int attempt = 0; pool_.free_frames() == 0; ++attempt) {
    if (attempt > 0 && evict_clean_near_tail(pool_.resident_pages())) break;
    cleaner_requested_ = true;
    cleaner_wakeup_->notify_all();
    ++counters.free_page_attempts;  // as InnoDB counts Innodb_buffer_pool_wait_free: once per attempt
    if (profile_.free_page_policy == ServerProfile::FreePagePolicy::SinglePageFlush) {
      if (attempt > 1) sg::this_actor::sleep_for(kFreePageRetrySleep_s);
      single_page_flush();
    } else {
      free_frame_waiters_.wait();
    }
  }
  t.breakdown.free_page_wait_s += now() - start;
}

void InnodbServer::fsync_data_file() {
  platform_.compute(node_, node_.storage->host_cpu_per_flush_s());  // the kernel's fsync path
  node_.storage->flush();
  ++counters.data_fsyncs;
}

void InnodbServer::single_page_flush() {
  // buf_flush_single_page_from_LRU: from the tail, free the first clean page or write the first dirty
  // one synchronously: through a single-page doublewrite slot (written and fsynced), then in place
  // and the tablespace fsynced (buf_flush_write_block_low with sync), then free it.
  const std::uint32_t page = pool_.first_not_io_fixed_near_tail();
  if (page == BufferPool::kNone) return;
  if (!pool_.dirty(page)) {
    pool_.evict(page);
    return;
  }
  ++counters.single_page_flushes;
  pool_.set_write_fix(page, true);
  platform_.compute(node_, profile_.page_write_cpu_s + checksum_cpu_s() + node_.storage->host_cpu_per_write_s());
  const bool slot = doublewrite_on() && single_page_slots_;
  if (slot) {
    double start = now();
    single_page_slots_->acquire();
    counters.single_page_slot_wait_s += now() - start;
  }
  if (doublewrite_on()) {
    platform_.compute(node_, node_.storage->host_cpu_per_write_s());  // the doublewrite copy's IO path
    node_.storage->write(doublewrite_offset_, config_.page_bytes, WriteQueue::Own);
    fsync_data_file();
    ++counters.doublewrite_pages;
  }
  node_.storage->write(page_offset(page), config_.page_bytes, WriteQueue::Own);
  fsync_data_file();
  if (slot) single_page_slots_->release();  // buf_page_io_complete -> buf_dblwr_update
  ++counters.page_writes;
  if (page_cache_) page_cache_->write(page);  // written through the page cache: it stays there
  pool_.set_write_fix(page, false);
  pool_.mark_clean(page);
  if (!pool_.in_flight(page)) pool_.evict(page);
  sync_flush_waiters_.wake_all();
}

void InnodbServer::access(ClientThread& t, std::uint32_t page, bool modify) {
  t.pending_cpu_s += profile_.page_hit_cpu_s;
  bool hit = pool_.touch(page, pool_now());
  if (!hit) {
    // MariaDB (10.6.17 / 10.11.7+, MDEV-33053): a free list under half of innodb_lru_scan_depth wakes
    // the page cleaner for an LRU batch (buf_pool_t::need_LRU_eviction), before a thread finds it empty.
    if (mariadb_lru_flushing() && !cleaner_requested_ &&
        pool_.free_frames() < lru_free_target() / 2) {
      cleaner_requested_ = true;
      cleaner_wakeup_->notify_all();
    }
    if (page_cache_ && page_cache_->read(page)) {
      read_from_page_cache(t, page, modify);
      return;
    }
    t.pending_cpu_s += node_.storage->issue_cpu_s();  // issuing the read, merged into this burst
    if (read_after_burst(t, page)) {
      if (modify) pool_.mark_dirty(page, redo_->lsn());
      return;
    }
    t.settle();
    get_free_frame(t);  // may block: another thread may have started reading the page meanwhile
    hit = pool_.resident(page);
  }
  if (hit) {
    if (pool_.in_flight(page)) wait_for_read(t, page);
  } else {
    pool_.insert_reading(page, pool_now());
    double start = now();
    node_.storage->read(page_offset(page), config_.page_bytes, /*issue_cpu_done=*/true);
    t.breakdown.read_io_s += now() - start;
    finish_read(t, page);
  }
  if (modify) pool_.mark_dirty(page, redo_->lsn());
}

bool InnodbServer::read_after_burst(ClientThread& t, std::uint32_t page) {
  // The common miss with one suspension of the thread instead of two. Its pending work (at most
  // one scheduler slice) is booked on the cores as settle() books it, and at the burst's end a timer
  // callback does what the thread would do on waking: get_free_frame's first look (the free list,
  // or a clean page among the last 100 of the LRU), the check that no other thread has started
  // reading the page, and the read, booked then as read() books it; the thread wakes at the read's
  // completion. When the frame is not at hand or the page is resident by then, the thread wakes at
  // the burst's end and the miss goes the general way, as after settle().
  double ready = now() + t.pending_delay_s;
  double burst_end = platform_.book_burst(*t.node, ready, t.pending_cpu_s, t.pending_wakeup_s, t.on_irq_core, &t.core);
  if (burst_end < 0) return false;  // sliced: settle() runs it
  t.close_pending(ready, burst_end);
  t.read_issued_s = -1;
  // The callbacks capture no more than SimGrid's task keeps in place (24 bytes: no allocation per
  // miss): the thread's actor is the calling one (t.actor), held by the thread as long as the
  // callbacks may run.
  ClientThread* thread = &t;
  auto at_burst_end = [this, thread, page] {
    bool frame = pool_.free_frames() > 0 || evict_clean_near_tail(kLruSearchScanThreshold);
    if (!frame || pool_.resident(page)) {
      thread->actor->resume();
      return;
    }
    pool_.insert_reading(page, pool_now());
    thread->read_issued_s = now();
    simgrid::kernel::timer::Timer::set(node_.storage->book_read(page_offset(page), config_.page_bytes),
                                       [thread] { thread->actor->resume(); });
  };
  static_assert(sizeof(at_burst_end) <= 24, "SimGrid's task would allocate the callback");
  if (burst_end <= now()) return false;  // nothing was pending: the general way
  simgrid::kernel::timer::Timer::set(burst_end, at_burst_end);
  sg::this_actor::suspend();
  if (t.read_issued_s < 0) return false;
  t.breakdown.read_io_s += now() - t.read_issued_s;
  finish_read(t, page);
  return true;
}

void InnodbServer::wait_for_read(ClientThread& t, std::uint32_t page) {
  // Another thread is reading the page: wait for that read (io_fix). The first waiter makes the
  // queue, so a read nobody waits for costs no allocation.
  t.settle();
  double start = now();
  if (pool_.in_flight(page)) {
    auto& queue = reading_[page];
    if (!queue) queue = std::make_unique<WaitQueue>();
    queue->wait();
  }
  t.breakdown.read_io_s += now() - start;
}

void InnodbServer::read_from_page_cache(ClientThread& t, std::uint32_t page, bool modify) {
  // A pread the kernel serves from its page cache: no IO wait, the copy's CPU joins the thread's
  // burst. The frame comes as for a device read; only when none is at hand does the thread wait.
  // Waking the page cleaner (a simcall) or waiting for a frame lets other threads run, and one of
  // them may have read the page meanwhile: then it is a hit, as in access() (the page cache has
  // counted a read it did not serve: only its LRU order feels that).
  if (!pool_.resident(page) && pool_.free_frames() == 0 && !evict_clean_near_tail(kLruSearchScanThreshold)) {
    t.settle();
    get_free_frame(t);
  }
  if (pool_.resident(page)) {
    if (pool_.in_flight(page)) wait_for_read(t, page);
    if (modify) pool_.mark_dirty(page, redo_->lsn());
    return;
  }
  pool_.insert_reading(page, pool_now());
  ++counters.page_cache_reads;
  finish_read(t, page, /*from_page_cache=*/true);
  if (modify) pool_.mark_dirty(page, redo_->lsn());
}

void InnodbServer::finish_read(ClientThread& t, std::uint32_t page, bool from_page_cache) {
  // The page is in: count it, release the threads that waited for this read (io_fix), and charge
  // the read's CPU to the next burst.
  ++counters.page_reads;
  pool_.read_done(page);
  auto waiting = reading_.find(page);
  if (waiting != reading_.end()) {
    auto queue = std::move(waiting->second);
    reading_.erase(waiting);
    queue->wake_all();
  }
  t.pending_cpu_s += profile_.page_read_cpu_s + checksum_cpu_s() + (from_page_cache ? 0.0 : node_.storage->host_cpu_per_io_s());
  t.on_irq_core = !from_page_cache && node_.irq_core >= 0;
}

void InnodbServer::touch_index_path(ClientThread& t, const IndexGeometry& index, std::uint64_t position, bool modify,
                                    std::uint32_t extra_leaves) {
  std::uint32_t path[IndexGeometry::kMaxHeight];  // no allocation per statement
  int height = index.path_to(position, path);
  for (int i = 0; i < height; ++i) access(t, path[i], modify && i + 1 == height);
  std::uint32_t leaf = path[height - 1], last_leaf = index.first_page + index.leaf_pages - 1;
  for (std::uint32_t l = 1; l <= extra_leaves && leaf + l <= last_leaf; ++l) access(t, leaf + l, false);
}

void InnodbServer::lock_row(ClientThread& t, std::uint64_t key) {
  bool gave_up_slot = false;
  while (true) {
    auto& lock = locks_[key];
    if (lock.holder == nullptr || lock.holder == &t) {
      if (lock.holder == nullptr) t.held_locks.push_back(key);
      lock.holder = &t;
      break;
    }
    // Deadlock detection: follow the chain of holders; reaching ourselves means a cycle.
    for (ClientThread* h = lock.holder; h != nullptr; h = h->waiting_for)
      if (h == &t) {
        ++counters.deadlocks;
        t.deadlocked = true;
        return;
      }
    if (t.pending_cpu_s > 0 || t.pending_delay_s > 0) {
      // Run the work done so far first; meanwhile the holder may release (and erase) the lock, so
      // look it up again afterwards.
      t.settle();
      continue;
    }
    if (t.inside_innodb) {
      // A thread about to wait for a row lock gives up its concurrency slot (lock_wait_suspend_thread
      // calls srv_conc_force_exit_innodb), or the holder could queue for the slot it holds. Passing
      // the slot on may run other actors, which may release the lock: look it up again.
      exit_innodb(t);
      gave_up_slot = true;
      continue;
    }
    ++counters.lock_waits;
    double start = now();
    t.waiting_for = lock.holder;
    lock.waiting.push_back(&t);
    sg::this_actor::suspend();  // release_locks hands the lock over and resumes us
    t.waiting_for = nullptr;
    t.breakdown.lock_wait_s += now() - start;
    break;
  }
  if (gave_up_slot) enter_innodb(t);
}

void InnodbServer::release_locks(ClientThread& t) {
  for (auto key : t.held_locks) {
    auto it = locks_.find(key);
    if (it == locks_.end()) continue;
    auto& lock = it->second;
    if (lock.waiting.empty()) {
      locks_.erase(it);
      continue;
    }
    ClientThread* next = lock.waiting.front();
    lock.waiting.pop_front();
    lock.holder = next;
    next->held_locks.push_back(key);
    next->actor->resume();
  }
  t.held_locks.clear();
}

void InnodbServer::log_free_check(ClientThread& t) {
  std::uint64_t oldest = pool_.oldest_modification();
  if (oldest == BufferPool::kNoLsn) return;
  double sync_age = sync_flush_age();
  if (static_cast<double>(redo_->lsn() - oldest) <= sync_age) return;
  // The redo log is nearly full: wait until the page cleaner has advanced the checkpoint.
  t.settle();
  ++counters.sync_flush_waits;
  double start = now();
  while (pool_.oldest_modification() != BufferPool::kNoLsn &&
         static_cast<double>(redo_->lsn() - pool_.oldest_modification()) > sync_age)
    sync_flush_waiters_.wait();
  t.breakdown.free_page_wait_s += now() - start;
}

double InnodbServer::statement_cpu(ClientThread& t, StatementKind kind) {
  const double mean_s = profile_.statement_cpu_s[static_cast<int>(kind)];
  const double scv = profile_.statement_cpu_scv;
  const double tail_share = profile_.statement_cpu_tail_mean_s > 0 ? profile_.statement_cpu_tail_share : 0.0;
  if (mean_s <= 0 || (scv <= 0 && tail_share <= 0)) return mean_s;  // no draw: the thread's random stream stays as it was
  // The body: gamma with the kind's mean less the tail's share, and the profile's SCV (shape 1/SCV,
  // scale mean x SCV).
  const double body_mean_s = mean_s * (1 - tail_share);
  double cpu_s = scv > 0 ? std::gamma_distribution<double>(1.0 / scv, body_mean_s * scv)(t.rng) : body_mean_s;
  // The tail: a long burst with the probability that keeps the mean (share x mean = p x burst mean).
  if (tail_share > 0) {
    const double p = tail_share * mean_s / profile_.statement_cpu_tail_mean_s;
    if (std::uniform_real_distribution<double>(0.0, 1.0)(t.rng) < p)
      cpu_s += std::exponential_distribution<double>(1.0 / profile_.statement_cpu_tail_mean_s)(t.rng);
  }
  return cpu_s;
}

bool InnodbServer::execute(const std::vector<Statement>& statements, ClientThread& t) {
  std::uint64_t txn_lsn = 0;
  double excess_threads = std::max(0, client_threads_ - node_.host->get_core_count());
  t.pending_cpu_s += profile_.oversubscription_cpu_s * excess_threads;
  bool wrote = false;
  for (const auto& s : statements) {
    ++counters.statements;
    if (t.on_irq_core) {
      // The statement that took the completion ends on the interrupt's core; the client's next
      // request wakes the thread wherever a core is free.
      t.settle();
      t.on_irq_core = false;
    }
    t.pending_wakeup_s += profile_.idle_wakeup_cpu_s;
    // One round trip per statement: client CPU and the network when clients are remote.
    if (t.client.remote) {
      t.pending_delay_s += t.client.round_trip_s + profile_.client_statement_cpu_s;
    } else {
      t.pending_cpu_s += profile_.client_statement_cpu_s;
    }
    // BEGIN and COMMIT cost their CPU here; a statement that enters InnoDB costs it inside (below),
    // where an innodb_thread_concurrency slot covers it.
    const bool enters = s.kind != StatementKind::Begin && s.kind != StatementKind::Commit;
    if (!enters) t.pending_cpu_s += statement_cpu(t, s.kind);
    if (profile_.serial_section_s > 0) {
      // A section one thread at a time (global latches): its queueing is a pure delay. The statement
      // reaches it once the work booked before it in this burst has run (uncontended), not at the
      // burst's start, so statements merged into one burst reach it one after the other; booked
      // ahead of now, it takes idle time work-conservingly so that no gap goes unused.
      double now_s = now();
      double arrival = now_s + t.pending_delay_s + t.pending_cpu_s / node_.core_speed;
      double end = serial_section_.book_work_conserving(now_s, arrival, profile_.serial_section_s);
      double wait = end - profile_.serial_section_s - arrival;
      t.pending_delay_s += wait;
      t.pending_serial_s += wait;
    }
    if (s.kind == StatementKind::Begin) continue;
    if (s.kind == StatementKind::Commit) break;
    // The next statement's leaf is far from this one's in memory: its slot is fetched now, so that
    // the next touch of a leaf does not wait for memory when this statement does not wait for IO.
    if (const Statement* next = &s + 1; next != statements.data() + statements.size() &&
                                        next->kind != StatementKind::Begin && next->kind != StatementKind::Commit)
      pool_.prefetch(layout_.table(static_cast<int>(next->table)).primary.leaf_of(next->id));
    enter_innodb(t);
    t.pending_cpu_s += statement_cpu(t, s.kind);
    const auto& table = layout_.table(static_cast<int>(s.table));
    if (is_write(s.kind)) {
      log_free_check(t);
      lock_row(t, (static_cast<std::uint64_t>(s.table) << 40) | s.id);
      if (t.deadlocked) {
        exit_innodb(t);
        break;
      }
    }
    switch (s.kind) {
      case StatementKind::PointSelect: touch_index_path(t, table.primary, s.id, false); break;
      case StatementKind::SimpleRange:
      case StatementKind::SumRange:
      case StatementKind::OrderRange:
      case StatementKind::DistinctRange: {
        touch_index_path(t, table.primary, s.id, false, table.primary.extra_leaves(s.id, s.rows));
        t.pending_cpu_s += profile_.range_row_cpu_s * s.rows;
        break;
      }
      case StatementKind::IndexUpdate:
        touch_index_path(t, table.primary, s.id, true);
        touch_index_path(t, table.secondary_k, s.k, true);  // delete-mark (k) and insert (k+1): one leaf
        break;
      case StatementKind::NonIndexUpdate: touch_index_path(t, table.primary, s.id, true); break;
      case StatementKind::Delete:
      case StatementKind::Insert:
        touch_index_path(t, table.primary, s.id, true);
        touch_index_path(t, table.secondary_k, s.k, true);
        break;
      default: break;
    }
    if (is_write(s.kind)) {
      wrote = true;
      txn_lsn = redo_->append(redo_bytes_per_row_change_);
    }
    exit_innodb(t);
  }
  if (t.deadlocked) {
    // Rolled back: sysbench retries the event (error 1213 is ignored by default).
    t.deadlocked = false;
    t.settle();
    t.on_irq_core = false;
    release_locks(t);
    return false;
  }
  t.settle();
  t.on_irq_core = false;
  if (wrote) {
    // The commit's own record is logged now, so a commit needs a flush that starts after it: only
    // commits that overlap share one (group commit).
    txn_lsn = redo_->append(kCommitRedoBytes);
    double start = now();
    // The binlog's row events carry row images, no page splits: sized from the split-free redo.
    if (config_.binlog && config_.sync_binlog == 1) {
      // Two-phase commit: the prepare record is made durable, then the binlog group is fsynced.
      redo_->wait_durable(txn_lsn);
      std::uint64_t binlog_pos = binlog_->append(profile_.redo_bytes_per_row_change * 2);
      binlog_->wait_durable(binlog_pos);
    } else if (config_.flush_log_at_trx_commit == 1) {
      redo_->wait_durable(txn_lsn);
    } else if (config_.binlog) {
      binlog_->append(profile_.redo_bytes_per_row_change * 2);
    }
    t.breakdown.log_fsync_s += now() - start;
  }
  release_locks(t);
  ++counters.commits;
  ++commits_total_;
  return true;
}

bool InnodbServer::flush_neighbors_on() const {
  if (config_.flush_neighbors == 0) return false;
  return profile_.flush_neighbors_devices == ServerProfile::FlushNeighborsDevices::All || node_.storage->rotational();
}

void InnodbServer::add_flush_neighbors(std::vector<std::uint32_t>& pages, bool lru, std::size_t cap) {
  if (pages.empty() || !flush_neighbors_on()) return;
  // The victims are write-fixed first: a page being written is not ready for flush, so a victim is
  // not also taken as another's neighbour, and a run stops at it.
  for (auto p : pages) pool_.set_write_fix(p, true);
  // An LRU flush takes only old neighbours where it frees what it writes (they would be freed too).
  const bool lru_old_only = lru && profile_.lru_written_pages == ServerProfile::LruWrittenPages::Freed;
  auto flushable = [&](std::uint32_t q) {
    return pool_.resident(q) && pool_.dirty(q) && !pool_.write_fixed(q) && !pool_.in_flight(q) && (!lru_old_only || pool_.old(q));
  };
  const std::uint32_t area = std::max<std::uint32_t>(1, std::min(kFlushAreaPages, pool_.frames() / 16));
  std::vector<std::uint32_t> out;
  out.reserve(pages.size());
  std::size_t i = 0;
  for (; i < pages.size() && out.size() < cap; ++i) {
    const std::uint32_t victim = pages[i];
    // Page numbers within the tablespace (one per table, tables laid out one after the other).
    const int t = layout_.table_of(victim);
    const std::uint32_t first = layout_.table(t).primary.first_page;
    const std::uint32_t end = t + 1 < layout_.tables() ? layout_.table(t + 1).primary.first_page : layout_.total_pages();
    std::uint32_t low = first + (victim - first) / area * area;
    std::uint32_t high = std::min(low + area, end);
    if (config_.flush_neighbors == 1) {
      std::uint32_t lo = victim, hi = victim + 1;
      while (lo > low && flushable(lo - 1)) --lo;
      while (hi < high && flushable(hi)) ++hi;
      low = lo;
      high = hi;
    }
    for (std::uint32_t q = low; q < high; ++q) {
      if (q == victim) {
        out.push_back(victim);  // the victim is written even past the cap
      } else if (out.size() >= cap) {
        if (q > victim) break;
      } else if (flushable(q)) {
        pool_.set_write_fix(q, true);
        out.push_back(q);
        ++counters.neighbor_pages;
      }
    }
  }
  for (; i < pages.size(); ++i) pool_.set_write_fix(pages[i], false);
  pages.swap(out);
}

void InnodbServer::flush_pages(const std::vector<std::uint32_t>& pages, bool evict) {
  if (pages.empty()) return;
  for (auto p : pages) pool_.set_write_fix(p, true);
  bool doublewrite = doublewrite_on();
  // With one shared doublewrite buffer a batch holds it until its pages are written in place and
  // synced (buf_dblwr batch_running), so batches of all flushing threads take turns.
  if (doublewrite && doublewrite_slots_) doublewrite_slots_->acquire();
  if (doublewrite) {
    // Pages go first to the doublewrite area in one sequential write per batch, which is fsynced
    // before the pages are written in place. Each page costs the storage path's CPU there too: the
    // calibration's per-IO CPU is fitted per page read, written and doublewritten
    // (calibrate/src/calibration.cpp), so the model charges the same count.
    platform_.compute(node_, node_.storage->host_cpu_per_write_s() * pages.size());
    for (size_t i = 0; i < pages.size(); i += kDoublewriteBatchPages) {
      size_t n = std::min<size_t>(kDoublewriteBatchPages, pages.size() - i);
      node_.storage->write(doublewrite_offset_, n * config_.page_bytes, WriteQueue::Flushing);
      fsync_data_file();
      counters.doublewrite_pages += n;
    }
  }
  // Page writes in place, asynchronous (native AIO): a few writer actors share the batch. The
  // writers persist between batches (creating and ending actors per batch cost ~9 % of a point's
  // CPU): idle ones are handed the batch and resumed, new ones made only when all are busy.
  size_t writers = std::min<size_t>(pages.size(), static_cast<size_t>(std::max(1, config_.write_io_slots)));
  double cpu = (profile_.page_write_cpu_s + checksum_cpu_s() + node_.storage->host_cpu_per_write_s()) * pages.size();
  platform_.compute(node_, cpu);
  // MariaDB 10.5+ frees each page of an LRU batch when its write completes (buf_page_write_complete
  // then buf_LRU_free_page), so a thread waiting for a free page need not wait for the whole batch;
  // older versions free the batch's pages after the tablespaces' fsync.
  const bool free_each = evict && mariadb_lru_flushing();
  if (writers == 1) {
    for (auto p : pages) {
      node_.storage->write(page_offset(p), config_.page_bytes, WriteQueue::Flushing);
      if (free_each) free_written_page(p);
    }
  } else {
    WriteBatch batch{&pages, 0, pages.size(), {}, free_each};
    for (size_t w = 0; w < writers; ++w) {
      if (idle_writers_.empty()) {
        auto writer = std::make_unique<PageWriter>();
        PageWriter* self = writer.get();
        self->batch = &batch;
        page_writers_.push_back(std::move(writer));
        self->actor = sg::Actor::create("page-writer", node_.host, [this, self] { page_writer_loop(*self); });
        self->actor->daemonize();
      } else {
        PageWriter* idle = idle_writers_.front();
        idle_writers_.pop_front();
        idle->batch = &batch;
        idle->actor->resume();
      }
    }
    while (batch.remaining > 0) batch.done.wait();
  }
  // Then every tablespace the batch wrote is fsynced, one file after the other (fil_flush_file_spaces).
  std::vector<bool> written(layout_.tables(), false);
  for (auto p : pages) written[layout_.table_of(p)] = true;
  for (bool file : written)
    if (file) fsync_data_file();
  if (doublewrite && doublewrite_slots_) doublewrite_slots_->release();
  counters.page_writes += pages.size();
  if (!free_each) {
    mark_written(pages, evict);
  } else if (page_cache_) {
    for (auto p : pages) page_cache_->write(p);  // written through the page cache: they stay there
  }
  sync_flush_waiters_.wake_all();
}

void InnodbServer::free_written_page(std::uint32_t page) {
  pool_.set_write_fix(page, false);
  pool_.mark_clean(page);
  if (!pool_.in_flight(page)) {
    pool_.evict(page);
    free_frame_waiters_.wake_one();
  }
}

void InnodbServer::page_writer_loop(PageWriter& self) {
  while (true) {
    WriteBatch& batch = *self.batch;
    bool last = false;
    while (!last && batch.next < batch.pages->size()) {
      std::uint32_t p = (*batch.pages)[batch.next++];
      node_.storage->write(page_offset(p), config_.page_bytes, WriteQueue::Flushing);
      if (batch.free_on_completion) free_written_page(p);
      last = --batch.remaining == 0;
    }
    self.batch = nullptr;
    // Waking the flusher lets it return and end the batch: the batch is not touched after that.
    if (last) batch.done.wake_all();
    idle_writers_.push_back(&self);
    sg::this_actor::suspend();
  }
}

std::uint32_t InnodbServer::lru_free_target() const {
  return static_cast<std::uint32_t>(config_.lru_scan_depth) * static_cast<std::uint32_t>(config_.buffer_pool_instances);
}

void InnodbServer::count_lru_batch(std::size_t pages) {
  if (pages == 0) return;
  ++counters.lru_batches;
  counters.lru_batch_pages += pages;
  counters.lru_batch_pages_max = std::max<std::uint64_t>(counters.lru_batch_pages_max, pages);
}

bool InnodbServer::choose_lru_batch(std::vector<std::uint32_t>& tail_dirty, bool wake) {
  // Keep lru_scan_depth free pages per instance: free the clean pages near the tail, write and free
  // the dirty ones. Each page cleaner takes its share of the tail's dirty pages (in InnoDB, its own
  // instances' LRU lists); pages another cleaner is writing are write-fixed and skipped.
  std::uint32_t want = lru_free_target();
  if (mariadb_lru_flushing()) {
    // MariaDB walks the tail once, in LRU order (buf_flush_LRU_list_batch), until the free list
    // holds lru_scan_depth, writing at most innodb_io_capacity_max pages (buf_flush_LRU(srv_max_io_capacity)):
    // each clean page it passes is freed at once, each dirty one written. A written page does not
    // count towards the free list, so the walk goes on past the dirty pages: eviction stays in LRU
    // order, and a dirty page at the tail is written, not passed over for a clean one further up.
    // The older code also stops once it has freed and written that many pages together.
    const bool kept = profile_.lru_written_pages == ServerProfile::LruWrittenPages::Kept;
    const auto max_pages = std::max(want, static_cast<std::uint32_t>(config_.io_capacity_max));
    std::uint32_t evicted = 0;
    for (std::uint32_t page = pool_.lru_tail(); page != BufferPool::kNone && pool_.free_frames() < want;) {
      if (tail_dirty.size() >= max_pages || (!kept && tail_dirty.size() + evicted >= max_pages)) break;
      pool_.prefetch_toward_head(page);
      const std::uint32_t previous = pool_.lru_previous(page);
      if (pool_.in_flight(page) || pool_.write_fixed(page)) {
        // being read or written: skipped
      } else if (pool_.dirty(page)) {
        tail_dirty.push_back(page);
        pool_.set_write_fix(page, true);  // taken: the walk's later pages see it as being written
      } else {
        pool_.evict(page);
        ++evicted;
      }
      page = previous;
    }
    if (wake) free_frame_waiters_.wake_all();
    // The victims stay write-fixed: the neighbour search skips them, and flush_pages writes them.
    // The later code flushes an LRU victim's neighbours only once the free list holds half its target.
    if (!kept || 2 * pool_.free_frames() >= want) add_flush_neighbors(tail_dirty, /*lru=*/true, max_pages);
    // Kept: the written pages stay in the list, clean, and the next walk frees them.
    return !kept;
  }
  // MySQL 5.6-8.x and MariaDB <= 10.4 (buf_flush_LRU_list_batch): each cleaner walks its instances'
  // tails, freeing the clean pages it passes and writing the dirty ones, and stops once the free list
  // holds lru_scan_depth or it has freed and written its lru_scan_depth per instance. So a pass finding
  // the free list full writes nothing from the LRU: its dirty pages wait for the flush list.
  const std::size_t share = (want + config_.page_cleaners - 1) / static_cast<std::uint32_t>(config_.page_cleaners);
  std::size_t evicted = 0;
  for (std::uint32_t page = pool_.lru_tail();
       page != BufferPool::kNone && pool_.free_frames() < want && tail_dirty.size() + evicted < share;) {
    pool_.prefetch_toward_head(page);
    const std::uint32_t previous = pool_.lru_previous(page);
    if (pool_.in_flight(page) || pool_.write_fixed(page)) {
      // being read or written: skipped
    } else if (pool_.dirty(page)) {
      tail_dirty.push_back(page);
      pool_.set_write_fix(page, true);  // taken: other flushers skip it
    } else {
      pool_.evict(page);
      ++evicted;
    }
    page = previous;
  }
  if (wake && evicted > 0) free_frame_waiters_.wake_all();
  // A cleaner's pages, neighbours included, count against its lru_scan_depth (buf_flush_page_and_try_neighbors).
  add_flush_neighbors(tail_dirty, /*lru=*/true, share - evicted);
  return true;
}

void InnodbServer::lru_flush_batch() {
  std::vector<std::uint32_t> tail_dirty;
  const bool evict = choose_lru_batch(tail_dirty, /*wake=*/true);
  if (mariadb_lru_flushing()) {
    count_lru_batch(tail_dirty.size());
    flush_pages(tail_dirty, evict);
    return;
  }
  // The share is flushed instance by instance (buf_flush_LRU_lists): each instance's batch of at most
  // lru_scan_depth pages goes through the doublewrite buffer and its tablespaces' fsync, and its
  // pages are free, before the next instance's batch starts.
  const std::size_t instance_batch = static_cast<std::size_t>(config_.lru_scan_depth);
  for (std::size_t i = 0; i < tail_dirty.size(); i += instance_batch) {
    std::vector<std::uint32_t> batch(tail_dirty.begin() + i, tail_dirty.begin() + std::min(tail_dirty.size(), i + instance_batch));
    count_lru_batch(batch.size());
    flush_pages(batch, evict);
    free_frame_waiters_.wake_all();
  }
  const std::uint32_t want = lru_free_target();
  while (pool_.free_frames() < want && evict_clean_near_tail(want)) {
  }
  free_frame_waiters_.wake_all();
}

double InnodbServer::flush_list_recommendation(std::uint64_t lsn, double elapsed_s, double* age_out) {
  // InnoDB's adaptive flushing (page_cleaner_flush_pages_recommendation).
  double lsn_rate = (lsn - last_cleaner_lsn_) / std::max(elapsed_s, 1e-9);
  last_cleaner_lsn_ = lsn;
  avg_lsn_rate_ = (avg_lsn_rate_ + lsn_rate) / 2;
  std::uint64_t oldest = pool_.oldest_modification();
  double age = oldest == BufferPool::kNoLsn ? 0.0 : static_cast<double>(lsn - oldest);
  *age_out = age;
  double usable = config_.redo_capacity_bytes * kRedoUsable;
  double async_age = usable * kAgeAsync;
  double dirty_pct = 100.0 * pool_.dirty_pages() / std::max<double>(1, pool_.frames());
  double max_dirty_pct = 100.0 * config_.max_dirty_pages_ratio;
  double lwm_pct = 100.0 * config_.dirty_pages_lwm_ratio;
  double pct_for_dirty = 0;
  if (lwm_pct == 0) {
    pct_for_dirty = dirty_pct >= max_dirty_pct ? 100 : 0;
  } else if (dirty_pct >= lwm_pct) {
    pct_for_dirty = dirty_pct * 100 / (max_dirty_pct + 1);
  }
  double pct_for_lsn = 0;
  if (age >= usable * config_.adaptive_flushing_lwm_ratio) {
    double age_factor = age * 100 / async_age;
    pct_for_lsn = (config_.io_capacity_max / config_.io_capacity) * (age_factor * std::sqrt(age_factor)) / 7.5;
  }
  double pct_total = std::max(pct_for_dirty, pct_for_lsn);
  // Pages to flush so the oldest modification keeps pace with the redo rate.
  std::uint64_t target_lsn = oldest == BufferPool::kNoLsn ? lsn : oldest + static_cast<std::uint64_t>(avg_lsn_rate_ * 3);
  double pages_for_lsn = pool_.count_dirty_up_to(target_lsn, static_cast<std::uint32_t>(config_.io_capacity_max * 3)) / 3.0;
  double n_pages = (config_.io_capacity * pct_total / 100 + avg_page_rate_ + pages_for_lsn) / 3;
  n_pages = std::min(n_pages, config_.io_capacity_max);
  // MariaDB 10.5.9+ with the low-water mark at 0: no flush-list flushing below the dirty pages'
  // maximum unless the checkpoint age nears the log capacity. buf_flush_page_cleaner would also
  // flush once the age passes innodb_adaptive_flushing_lwm (af_needed_for_redo), but the cleaner
  // idles without a timeout at lwm 0 until something wakes it: MariaDB 10.11.19 wrote 0 pages at
  // checkpoint ages of 62-158 MB, past 10 % of its 512 MiB log (traces/local-vm, 3 GiB runs).
  if (lwm_pct == 0 && profile_.zero_lwm_flushing == ServerProfile::ZeroLwmFlushing::AtMaxDirty &&
      dirty_pct < max_dirty_pct && age <= async_age)
    n_pages = 0;
  if (age > async_age) n_pages = std::max(n_pages, config_.io_capacity_max);  // flush harder near the sync point
  if (age > sync_flush_age()) n_pages = std::max(n_pages, pages_for_lsn * 3);  // sync flush: no cap
  return n_pages;
}

std::size_t InnodbServer::flush_list_batch(double n_pages) {
  // The oldest pages, taken a doublewrite-sized chunk at a time as InnoDB's walk of the flush list
  // dispatches them (buf_do_flush_list_batch): each chunk's pages are write-fixed as they are taken, so
  // another cleaner's batch or an LRU walk meanwhile takes other pages, and no page is written twice.
  const std::size_t want = static_cast<std::size_t>(std::max(0.0, n_pages));
  std::size_t written = 0;
  std::vector<std::uint32_t> chunk;
  while (written < want) {
    chunk.clear();
    const std::size_t n = std::min<std::size_t>(kDoublewriteBatchPages, want - written);
    pool_.oldest_dirty(static_cast<std::uint32_t>(n), BufferPool::kNoLsn, chunk);
    if (chunk.empty()) break;
    add_flush_neighbors(chunk, /*lru=*/false, chunk.size());  // neighbours count against the batch's pages
    flush_pages(chunk, /*evict=*/false);
    written += chunk.size();
  }
  return written;
}

void InnodbServer::page_cleaner_loop() {
  // MariaDB 10.5+: the flush list here, the LRU in lru_flusher_loop beside it.
  cleaner_last_pass_s_ = now();
  while (true) {
    double start = now();
    double age = 0;
    double n_pages = flush_list_recommendation(redo_->lsn(), now() - cleaner_last_pass_s_, &age);
    cleaner_last_pass_s_ = now();
    const std::uint64_t fast_forwards = fast_forwards_;
    const std::size_t written = flush_list_batch(n_pages);
    // A pass a fast-forward interrupted was sized for the state before it: the replay's own passes
    // have set the average since.
    if (fast_forwards == fast_forwards_) avg_page_rate_ = (avg_page_rate_ + written / kCleanerInterval_s) / 2;
    platform_.compute(node_, profile_.page_cleaner_batch_cpu_s);
    // Sleep the rest of the second, unless the redo log needs more flushing now.
    double spent = now() - start;
    if (age <= sync_flush_age() && spent < kCleanerInterval_s) sg::this_actor::sleep_for(kCleanerInterval_s - spent);
    else if (written == 0) sg::this_actor::sleep_for(1e-3);
  }
}

void InnodbServer::page_cleaner_slot_loop(int cleaner) {
  // MySQL 5.6-8.x and MariaDB <= 10.4 (buf_flush_page_cleaner_coordinator, pc_flush_slot): in each
  // pass every page cleaner thread flushes its instances' LRU tail and then their share of the
  // flush-list batch, and the coordinator (cleaner 0) waits for all before the next pass. So while a
  // large flush-list batch is written no LRU flushing frees pages, and threads that find none flush
  // single pages themselves. A thread without a free page sets buf_flush_event, which ends the
  // coordinator's sleep early: that pass flushes the LRU only (pc_request(0)).
  const int cleaners = config_.page_cleaners;
  double next_full_pass_s = now();
  if (cleaner == 0) cleaner_last_pass_s_ = now();
  while (true) {
    double age = 0;
    const double start = now();
    if (cleaner == 0) {
      cleaner_requested_ = false;
      pass_list_pages_ = 0;
      pass_pages_written_ = 0;
      pass_freed_ = false;
      pass_full_ = start >= next_full_pass_s - 1e-9;
      if (pass_full_) {
        next_full_pass_s = start + kCleanerInterval_s;
        const double n_pages = flush_list_recommendation(redo_->lsn(), start - cleaner_last_pass_s_, &age);
        cleaner_last_pass_s_ = start;
        pass_list_pages_ = std::max(0.0, n_pages) / cleaners;
      }
    }
    pass_start_->wait();
    const std::uint64_t fast_forwards = fast_forwards_;
    const std::uint32_t free_before = pool_.free_frames();
    lru_flush_batch();
    const std::size_t written = pass_full_ ? flush_list_batch(pass_list_pages_) : 0;
    pass_pages_written_ += written;
    // Any cleaner's LRU batch counts: the coordinator backs off only when the whole pass did nothing.
    if (pool_.free_frames() > free_before) pass_freed_ = true;
    pass_end_->wait();
    if (cleaner != 0) continue;
    if (pass_full_) {
      if (fast_forwards == fast_forwards_) avg_page_rate_ = (avg_page_rate_ + pass_pages_written_ / kCleanerInterval_s) / 2;
      platform_.compute(node_, profile_.page_cleaner_batch_cpu_s);
    }
    if (age > sync_flush_age()) {
      next_full_pass_s = now();  // the redo log needs more flushing now: another full pass
      if (pass_pages_written_ == 0 && !pass_freed_) sg::this_actor::sleep_for(1e-3);
    } else if (!cleaner_requested_ && now() < next_full_pass_s) {
      std::unique_lock<sg::Mutex> lock(*cleaner_mutex_);
      cleaner_wakeup_->wait_for(lock, next_full_pass_s - now());
    } else if (!pass_freed_ && pass_pages_written_ == 0) {
      sg::this_actor::sleep_for(kLruRetry_s);  // woken, but the tail is all in flight
    }
  }
}

void InnodbServer::lru_flusher_loop() {
  // LRU flushing runs beside flush-list flushing (as with several page cleaner threads): once a
  // second, and at once when a thread finds no free page, until threads have free pages again.
  // MariaDB (the WaitForPageCleaner policy) does not wait between LRU batches while the free list is
  // under half of innodb_lru_scan_depth (buf_pool_t::need_LRU_eviction in buf_flush_page_cleaner,
  // MDEV-33053: 10.6.17 / 10.11.7 and later; the model gives it to every version with that policy,
  // 10.5+, where earlier ones waited for the free list to run out), so threads seldom find it empty.
  auto need_eviction = [&] { return mariadb_lru_flushing() && pool_.free_frames() < lru_free_target() / 2; };
  while (true) {
    if (!cleaner_requested_ && !need_eviction()) {
      std::unique_lock<sg::Mutex> lock(*cleaner_mutex_);
      cleaner_wakeup_->wait_for(lock, kCleanerInterval_s);
    }
    cleaner_requested_ = false;
    if (need_eviction()) {
      std::uint32_t before = pool_.free_frames();
      lru_flush_batch();
      if (pool_.free_frames() <= before) sg::this_actor::sleep_for(kLruRetry_s);  // the tail is all in flight
      continue;
    }
    // Keep flushing while threads wait for a free page; when the tail is all being written by the
    // flush-list flush, let those writes finish first.
    do {
      std::uint32_t before = pool_.free_frames();
      if (before < lru_free_target()) lru_flush_batch();
      if (pool_.free_frames() <= before && !free_frame_waiters_.empty()) sg::this_actor::sleep_for(kLruRetry_s);
    } while (!free_frame_waiters_.empty());
  }
}

void InnodbServer::reset_counters() {
  counters = Counters{};
  pool_.counters = BufferPool::Counters{};
  redo_->writes = redo_->fsyncs = 0;
  lsn_at_reset_ = redo_->lsn();
  binlog_->writes = binlog_->fsyncs = 0;
  serial_section_.reset_counters(now());
  node_.storage->reset_read_totals();
  slot_s_ = 0;
  slots_counted_to_s_ = now();
}

nlohmann::ordered_json InnodbServer::report(double elapsed_s, double transactions, double window_end_s) {
  auto per_txn = [&](double v) { return transactions > 0 ? v / transactions : 0.0; };
  const auto& c = pool_.counters;
  double touches = static_cast<double>(c.hits + c.misses);
  nlohmann::ordered_json out = {{"host", node_.host->get_name()},
          {"hit_ratio", touches > 0 ? c.hits / touches : 1.0},
          {"misses_per_txn", per_txn(c.misses)},
          {"page_reads_per_txn", per_txn(counters.page_reads)},
          {"page_cache_reads_per_txn", per_txn(counters.page_cache_reads)},
          {"page_writes_per_txn", per_txn(counters.page_writes + counters.doublewrite_pages)},
          {"data_page_writes_per_txn", per_txn(counters.page_writes)},
          {"doublewrite_pages_per_txn", per_txn(counters.doublewrite_pages)},
          {"neighbor_pages_per_txn", per_txn(counters.neighbor_pages)},
          {"pages_dirtied_per_txn", per_txn(c.dirtied)},
          {"redo_fsyncs_per_txn", per_txn(redo_->fsyncs)},
          {"binlog_fsyncs_per_txn", per_txn(binlog_->fsyncs)},
          {"fsyncs_per_txn", per_txn(redo_->fsyncs + binlog_->fsyncs + counters.data_fsyncs)},
          {"redo_bytes_per_txn", per_txn(static_cast<double>(redo_->lsn() - lsn_at_reset_))},
          {"redo_writes_per_s", redo_->writes / elapsed_s},
          {"redo_writes_per_txn", per_txn(redo_->writes)},
          {"free_page_waits_per_s", counters.free_page_waits / elapsed_s},
          {"free_page_attempts_per_txn", per_txn(counters.free_page_attempts)},
          {"single_page_flushes_per_s", counters.single_page_flushes / elapsed_s},
          {"lru_batches_per_s", counters.lru_batches / elapsed_s},
          {"lru_batch_pages_mean", counters.lru_batches > 0 ? static_cast<double>(counters.lru_batch_pages) / counters.lru_batches : 0.0},
          {"lru_batch_pages_max", counters.lru_batch_pages_max},
          {"single_page_slot_wait_ms_per_txn", per_txn(counters.single_page_slot_wait_s * 1e3)},
          {"sync_flush_waits_per_s", counters.sync_flush_waits / elapsed_s},
          {"lock_waits_per_s", counters.lock_waits / elapsed_s},
          {"deadlocks_per_s", counters.deadlocks / elapsed_s},
          {"dirty_pages", pool_.dirty_pages()},
          {"frames", pool_.frames()},
          {"dataset_pages", layout_.total_pages()},
          {"young_per_txn", per_txn(c.made_young)}};
  // Where a read's time went (the reads booked in the window): with the pool, how much the fabric
  // and the NVMe-oF target add to the device's share.
  if (const auto& r = node_.storage->read_totals(); r.reads > 0) {
    const double us_per_read = 1e6 / static_cast<double>(r.reads);
    out["read_us"] = {{"mean", r.time.total() * us_per_read},
                      {"device", r.time.device_s * us_per_read},
                      {"fabric", r.time.network_s * us_per_read},
                      {"nvmeof_cpu", r.time.cpu_s * us_per_read}};
  }
  // InnoDB's own one-at-a-time resources, which can cap TPS while every device, link and core idles
  // (their utilisations name the bottleneck with the hardware's): the share of the window the serial
  // section served (the work booked in the window, less what is booked beyond its end), and the
  // innodb_thread_concurrency slots' mean occupancy. Both at the window's end, not at now(): the
  // clock passes it before the report (the engine winds down after the controller stops), and a
  // 20 ms section's backlog taken then put the share at 1.16.
  if (elapsed_s > 0 && profile_.serial_section_s > 0)
    out["serial_section_utilisation"] = (serial_section_.busy_s() - serial_section_.backlog_s(window_end_s)) / elapsed_s;
  if (elapsed_s > 0 && config_.thread_concurrency > 0) {
    const double slot_s = slot_s_ + inside_ * std::max(0.0, window_end_s - slots_counted_to_s_);
    out["thread_concurrency_utilisation"] = slot_s / (elapsed_s * config_.thread_concurrency);
  }
  return out;
}

}  // namespace poolsim
