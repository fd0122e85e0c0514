#include "engine/buffer_pool.h"

#include <algorithm>

namespace poolsim {

namespace {
// InnoDB keeps the old sublist within BUF_LRU_OLD_TOLERANCE pages of its target, and has no old
// sublist below BUF_LRU_OLD_MIN_LEN pages (storage/innobase/include/buf0lru.h).
constexpr std::uint32_t kOldTolerance = 20;
constexpr std::uint32_t kOldMinLength = 512;
}  // namespace

BufferPool::BufferPool(std::uint32_t dataset_pages, std::uint32_t frames, double old_ratio, double old_blocks_time_s)
    : prev_(dataset_pages, kNone), next_(dataset_pages, kNone), state_(dataset_pages, 0),
      first_access_s_(dataset_pages, 0.0f), young_clock_(dataset_pages, 0), dirty_generation_(dataset_pages, 0),
      frames_(std::max<std::uint32_t>(frames, 1)), free_(frames_), old_ratio_(old_ratio),
      old_blocks_time_s_(old_blocks_time_s) {}

void BufferPool::unlink(std::uint32_t page) {
  if (state_[page] & kTailScanned) {
    // Its neighbours close up, so the run stays contiguous from the tail.
    if (tail_scan_last_ == page) tail_scan_last_ = next_[page];
    state_[page] &= ~kTailScanned;
    --tail_scanned_;
  }
  if (state_[page] & kOld) {
    --old_length_;
    if (old_ == page) old_ = next_[page];
  }
  if (prev_[page] != kNone) next_[prev_[page]] = next_[page]; else head_ = next_[page];
  if (next_[page] != kNone) prev_[next_[page]] = prev_[page]; else tail_ = prev_[page];
  prev_[page] = next_[page] = kNone;
  state_[page] &= ~kOld;
  --lru_length_;
}

void BufferPool::link_head(std::uint32_t page) {
  prev_[page] = kNone;
  next_[page] = head_;
  if (head_ != kNone) prev_[head_] = page; else tail_ = page;
  head_ = page;
  ++lru_length_;
  note_linked(page);
}

void BufferPool::link_before_old(std::uint32_t page) {
  if (old_ == kNone) {
    // No old sublist yet: append at the tail and start one there.
    prev_[page] = tail_;
    next_[page] = kNone;
    if (tail_ != kNone) next_[tail_] = page; else head_ = page;
    tail_ = page;
  } else {
    std::uint32_t before = prev_[old_];
    prev_[page] = before;
    next_[page] = old_;
    prev_[old_] = page;
    if (before != kNone) next_[before] = page; else head_ = page;
  }
  old_ = page;
  state_[page] |= kOld;
  ++old_length_;
  ++lru_length_;
  note_linked(page);
}

void BufferPool::note_linked(std::uint32_t page) {
  if (tail_scanned_ == 0) return;
  // Inside the run: the new tail, or between two scanned pages.
  std::uint32_t toward_tail = next_[page];
  bool inside = toward_tail == kNone || ((state_[toward_tail] & kTailScanned) && toward_tail != tail_scan_last_);
  if (!inside) return;
  if (state_[page] & kPinned) {
    state_[page] |= kTailScanned;
    ++tail_scanned_;
  } else {
    drop_scan_from(prev_[page], toward_tail);
  }
}

void BufferPool::drop_scan_from(std::uint32_t first_dropped, std::uint32_t new_last) {
  for (std::uint32_t p = first_dropped; p != kNone && (state_[p] & kTailScanned); p = prev_[p]) {
    state_[p] &= ~kTailScanned;
    --tail_scanned_;
  }
  tail_scan_last_ = new_last;
}

bool BufferPool::tail_scan_consistent() const {
  std::uint32_t page = tail_, last = kNone;
  for (std::uint32_t n = 0; n < tail_scanned_; ++n, last = page, page = prev_[page])
    if (page == kNone || !(state_[page] & kTailScanned) || !(state_[page] & kPinned)) return false;
  if (last != tail_scan_last_) return false;
  for (; page != kNone; page = prev_[page])
    if (state_[page] & kTailScanned) return false;
  return true;
}

void BufferPool::rebalance_old() {
  if (lru_length_ < kOldMinLength) return;
  auto target = static_cast<std::uint32_t>(lru_length_ * old_ratio_);
  while (old_length_ > target + kOldTolerance && old_ != kNone) {
    state_[old_] &= ~kOld;
    old_ = next_[old_];
    --old_length_;
  }
  while (old_length_ + kOldTolerance < target) {
    std::uint32_t candidate = old_ == kNone ? tail_ : prev_[old_];
    if (candidate == kNone) break;
    old_ = candidate;
    state_[old_] |= kOld;
    ++old_length_;
  }
}

bool BufferPool::touch(std::uint32_t page, double now_s) {
  std::uint8_t s = state_[page];
  if (!(s & kResident)) {
    ++counters.misses;
    return false;
  }
  ++counters.hits;
  if (s & kOld) {
    // innodb_old_blocks_time: a page touched again soon after its first access (a scan) stays old.
    if (now_s - first_access_s_[page] >= old_blocks_time_s_) {
      unlink(page);
      link_head(page);
      young_clock_[page] = freed_page_clock_;
      ++counters.made_young;
      rebalance_old();
    } else {
      ++counters.not_made_young;
    }
  } else if (freed_page_clock_ - young_clock_[page] > static_cast<std::uint32_t>(lru_length_ * (1.0 - old_ratio_) / 4)) {
    // buf_page_peek_if_too_old: only pages that drifted past a quarter of the young sublist move.
    unlink(page);
    link_head(page);
    young_clock_[page] = freed_page_clock_;
    ++counters.made_young;
  }
  return true;
}

void BufferPool::insert_reading(std::uint32_t page, double now_s) {
  if (free_ > 0) --free_;
  state_[page] |= kResident | kInFlight;
  first_access_s_[page] = static_cast<float>(now_s);
  if (lru_length_ < kOldMinLength) {
    link_head(page);
  } else {
    link_before_old(page);
  }
  rebalance_old();
}

void BufferPool::preload(std::uint32_t page, double now_s) {
  if (resident(page)) {
    touch(page, now_s);
    return;
  }
  if (free_ == 0) {
    std::uint32_t victim = tail_;
    if (victim == kNone) return;
    evict(victim);
  }
  insert_reading(page, now_s);
  read_done(page);
}

void BufferPool::evict(std::uint32_t page) {
  if (!resident(page)) return;
  unlink(page);
  state_[page] &= ~(kResident | kDirty);
  ++free_;
  ++freed_page_clock_;
  ++counters.evictions;
  rebalance_old();
}

std::uint32_t BufferPool::find_clean_near_tail(std::uint32_t depth) {
  std::uint32_t page = tail_scan_last_ == kNone ? tail_ : prev_[tail_scan_last_];
  for (; tail_scanned_ < depth && page != kNone; page = prev_[page]) {
    if (!(state_[page] & kPinned)) return page;
    state_[page] |= kTailScanned;
    tail_scan_last_ = page;
    ++tail_scanned_;
  }
  return kNone;
}

void BufferPool::dirty_near_tail(std::uint32_t depth, std::vector<std::uint32_t>& out) const {
  std::uint32_t page = tail_;
  for (std::uint32_t i = 0; i < depth && page != kNone; ++i, page = prev_[page])
    if ((state_[page] & kDirty) && !(state_[page] & (kInFlight | kWriteFix))) out.push_back(page);
}

void BufferPool::mark_dirty(std::uint32_t page, std::uint64_t lsn) {
  if (state_[page] & kDirty) return;
  state_[page] |= kDirty;
  ++dirty_count_;
  flush_list_.push_back({page, ++dirty_generation_[page], lsn});
}

void BufferPool::mark_clean(std::uint32_t page) {
  if (!(state_[page] & kDirty)) return;
  state_[page] &= ~kDirty;
  --dirty_count_;
  forget_scan_if_evictable(page);
}

std::uint64_t BufferPool::oldest_modification() {
  while (!flush_list_.empty()) {
    const auto& e = flush_list_.front();
    if ((state_[e.page] & kDirty) && dirty_generation_[e.page] == e.generation) return e.lsn;
    flush_list_.pop_front();  // stale: flushed (or evicted) since
  }
  return kNoLsn;
}

void BufferPool::oldest_dirty(std::uint32_t n, std::uint64_t max_lsn, std::vector<std::uint32_t>& out) {
  oldest_modification();  // drops stale entries at the front
  for (const auto& e : flush_list_) {
    if (out.size() >= n || e.lsn > max_lsn) break;
    if ((state_[e.page] & kDirty) && !(state_[e.page] & (kInFlight | kWriteFix)) && dirty_generation_[e.page] == e.generation)
      out.push_back(e.page);
  }
}

std::uint32_t BufferPool::count_dirty_up_to(std::uint64_t lsn, std::uint32_t limit) {
  std::uint32_t n = 0;
  for (const auto& e : flush_list_) {
    if (n >= limit || e.lsn > lsn) break;
    if ((state_[e.page] & kDirty) && dirty_generation_[e.page] == e.generation) ++n;
  }
  return n;
}

}  // namespace poolsim
