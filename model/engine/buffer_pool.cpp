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
    : slots_(dataset_pages),
      frames_(std::max<std::uint32_t>(frames, 1)), free_(frames_), old_ratio_(old_ratio),
      old_blocks_time_s_(old_blocks_time_s) {}

void BufferPool::unlink(std::uint32_t page) {
  if (slots_[page].state & kTailScanned) {
    // Its neighbours close up, so the run stays contiguous from the tail.
    if (tail_scan_last_ == page) tail_scan_last_ = slots_[page].next;
    slots_[page].state &= ~kTailScanned;
    --tail_scanned_;
  }
  if (slots_[page].state & kOld) {
    --old_length_;
    if (old_ == page) old_ = slots_[page].next;
  }
  Slot& slot = slots_[page];
  if (slot.prev != kNone) slots_[slot.prev].next = slot.next; else head_ = slot.next;
  if (slot.next != kNone) slots_[slot.next].prev = slot.prev; else tail_ = slot.prev;
  slots_[page].prev = slots_[page].next = kNone;
  slots_[page].state &= ~kOld;
  --lru_length_;
}

void BufferPool::link_head(std::uint32_t page) {
  slots_[page].prev = kNone;
  slots_[page].next = head_;
  if (head_ != kNone) slots_[head_].prev = page; else tail_ = page;
  head_ = page;
  ++lru_length_;
  note_linked(page);
}

void BufferPool::link_before_old(std::uint32_t page) {
  if (old_ == kNone) {
    // No old sublist yet: append at the tail and start one there.
    slots_[page].prev = tail_;
    slots_[page].next = kNone;
    if (tail_ != kNone) slots_[tail_].next = page; else head_ = page;
    tail_ = page;
  } else {
    std::uint32_t before = slots_[old_].prev;
    slots_[page].prev = before;
    slots_[page].next = old_;
    slots_[old_].prev = page;
    if (before != kNone) slots_[before].next = page; else head_ = page;
  }
  old_ = page;
  slots_[page].state |= kOld;
  ++old_length_;
  ++lru_length_;
  note_linked(page);
}

void BufferPool::note_linked(std::uint32_t page) {
  if (tail_scanned_ == 0) return;
  // Inside the run: the new tail, or between two scanned pages.
  std::uint32_t toward_tail = slots_[page].next;
  bool inside = toward_tail == kNone || ((slots_[toward_tail].state & kTailScanned) && toward_tail != tail_scan_last_);
  if (!inside) return;
  if (slots_[page].state & kPinned) {
    slots_[page].state |= kTailScanned;
    ++tail_scanned_;
  } else {
    drop_scan_from(slots_[page].prev, toward_tail);
  }
}

void BufferPool::drop_scan_from(std::uint32_t first_dropped, std::uint32_t new_last) {
  for (std::uint32_t p = first_dropped; p != kNone && (slots_[p].state & kTailScanned); p = slots_[p].prev) {
    slots_[p].state &= ~kTailScanned;
    --tail_scanned_;
  }
  tail_scan_last_ = new_last;
}

bool BufferPool::tail_scan_consistent() const {
  std::uint32_t page = tail_, last = kNone;
  for (std::uint32_t n = 0; n < tail_scanned_; ++n, last = page, page = slots_[page].prev)
    if (page == kNone || !(slots_[page].state & kTailScanned) || !(slots_[page].state & kPinned)) return false;
  if (last != tail_scan_last_) return false;
  for (; page != kNone; page = slots_[page].prev)
    if (slots_[page].state & kTailScanned) return false;
  return true;
}

bool BufferPool::list_consistent() const {
  std::uint32_t count = 0, old_count = 0, previous = kNone;
  bool in_old = false;
  for (std::uint32_t page = head_; page != kNone; previous = page, page = slots_[page].next) {
    if (++count > lru_length_ || slots_[page].prev != previous || !(slots_[page].state & kResident)) return false;
    if (page == old_) in_old = true;
    if (static_cast<bool>(slots_[page].state & kOld) != in_old) return false;
    old_count += in_old;
  }
  return previous == tail_ && count == lru_length_ && old_count == old_length_ && count + free_ == frames_;
}

void BufferPool::rebalance_old() {
  if (lru_length_ < kOldMinLength) return;
  auto target = static_cast<std::uint32_t>(lru_length_ * old_ratio_);
  const std::uint32_t was = old_;
  while (old_length_ > target + kOldTolerance && old_ != kNone) {
    slots_[old_].state &= ~kOld;
    old_ = slots_[old_].next;
    --old_length_;
  }
  while (old_length_ + kOldTolerance < target) {
    std::uint32_t candidate = old_ == kNone ? tail_ : slots_[old_].prev;
    if (candidate == kNone) break;
    old_ = candidate;
    slots_[old_].state |= kOld;
    ++old_length_;
  }
  // The boundary moves a page at a time, either way: its next steps' slots, fetched ahead.
  if (old_ != was && old_ != kNone) {
    if (slots_[old_].prev != kNone) __builtin_prefetch(&slots_[slots_[old_].prev]);
    if (slots_[old_].next != kNone) __builtin_prefetch(&slots_[slots_[old_].next]);
  }
}

bool BufferPool::touch(std::uint32_t page, double now_s) {
  std::uint8_t s = slots_[page].state;
  if (!(s & kResident)) {
    ++counters.misses;
    return false;
  }
  ++counters.hits;
  if (s & kOld) {
    // innodb_old_blocks_time: a page touched again soon after its first access (a scan) stays old.
    if (now_s - slots_[page].first_access_s >= old_blocks_time_s_) {
      unlink(page);
      link_head(page);
      slots_[page].young_clock = freed_page_clock_;
      ++counters.made_young;
      rebalance_old();
    } else {
      ++counters.not_made_young;
    }
  } else if (drifted_from_head(slots_[page])) {
    // Not counted as made young: InnoDB counts only pages leaving the old sublist
    // (buf_LRU_make_block_young, n_pages_made_young).
    unlink(page);
    link_head(page);
    slots_[page].young_clock = freed_page_clock_;
  }
  return true;
}

void BufferPool::insert_reading(std::uint32_t page, double now_s) {
  if (free_ > 0) --free_;
  slots_[page].state |= kResident | kInFlight;
  slots_[page].first_access_s = static_cast<float>(now_s);
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

void BufferPool::load_ordered(const std::vector<std::uint32_t>& pages, std::uint32_t young_count,
                              const std::vector<std::uint32_t>& young_clocks, std::uint32_t freed_page_clock,
                              double first_access_s) {
  // Only into an empty pool, and no more pages than frames.
  if (lru_length_ != 0 || pages.size() > frames_) return;
  std::uint32_t prev = kNone;
  for (std::uint32_t i = 0; i < pages.size(); ++i) {
    if (i + 16 < pages.size()) prefetch(pages[i + 16]);  // the slots are far apart: fetch ahead
    std::uint32_t page = pages[i];
    Slot& slot = slots_[page];
    slot.prev = prev;
    slot.next = kNone;
    slot.first_access_s = static_cast<float>(first_access_s);
    slot.young_clock = i < young_count ? young_clocks[i] : freed_page_clock;
    slot.state = kResident | (i >= young_count ? kOld : 0);
    if (prev != kNone) slots_[prev].next = page; else head_ = page;
    prev = page;
  }
  tail_ = prev;
  lru_length_ = static_cast<std::uint32_t>(pages.size());
  old_length_ = lru_length_ - std::min(young_count, lru_length_);
  old_ = old_length_ > 0 ? pages[lru_length_ - old_length_] : kNone;
  free_ = frames_ - lru_length_;
  freed_page_clock_ = freed_page_clock;
  if (lru_length_ < kOldMinLength) {
    // InnoDB has no old sublist in so short a list.
    for (std::uint32_t p = old_; p != kNone; p = slots_[p].next) slots_[p].state &= ~kOld;
    old_ = kNone;
    old_length_ = 0;
  }
  rebalance_old();
}

void BufferPool::evict(std::uint32_t page) {
  if (!resident(page)) return;
  unlink(page);
  slots_[page].state &= ~(kResident | kDirty);
  ++free_;
  ++freed_page_clock_;
  ++counters.evictions;
  rebalance_old();
}

std::uint32_t BufferPool::find_clean_near_tail(std::uint32_t depth) {
  std::uint32_t page = tail_scan_last_ == kNone ? tail_ : slots_[tail_scan_last_].prev;
  for (; tail_scanned_ < depth && page != kNone; page = slots_[page].prev) {
    if (!(slots_[page].state & kPinned)) return page;
    slots_[page].state |= kTailScanned;
    tail_scan_last_ = page;
    ++tail_scanned_;
  }
  return kNone;
}

void BufferPool::dirty_near_tail(std::uint32_t depth, std::size_t limit, std::vector<std::uint32_t>& out) const {
  std::uint32_t page = tail_;
  const std::size_t end = out.size() + limit;
  for (std::uint32_t i = 0; i < depth && page != kNone && out.size() < end; ++i, page = slots_[page].prev)
    if ((slots_[page].state & kDirty) && !(slots_[page].state & (kInFlight | kWriteFix))) out.push_back(page);
}

void BufferPool::mark_dirty(std::uint32_t page, std::uint64_t lsn) {
  if (slots_[page].state & kDirty) return;
  slots_[page].state |= kDirty;
  ++dirty_count_;
  ++counters.dirtied;
  flush_list_.push_back({page, ++slots_[page].dirty_generation, lsn});
}

void BufferPool::mark_clean(std::uint32_t page) {
  if (!(slots_[page].state & kDirty)) return;
  slots_[page].state &= ~kDirty;
  --dirty_count_;
  forget_scan_if_evictable(page);
}

std::uint64_t BufferPool::oldest_modification() {
  while (!flush_list_.empty()) {
    const auto& e = flush_list_.front();
    if ((slots_[e.page].state & kDirty) && slots_[e.page].dirty_generation == e.generation) return e.lsn;
    flush_list_.pop_front();  // stale: flushed (or evicted) since
  }
  return kNoLsn;
}

void BufferPool::oldest_dirty(std::uint32_t n, std::uint64_t max_lsn, std::vector<std::uint32_t>& out) {
  oldest_modification();  // drops stale entries at the front
  for (const auto& e : flush_list_) {
    if (out.size() >= n || e.lsn > max_lsn) break;
    if ((slots_[e.page].state & kDirty) && !(slots_[e.page].state & (kInFlight | kWriteFix)) && slots_[e.page].dirty_generation == e.generation)
      out.push_back(e.page);
  }
}

void BufferPool::dirty_write_fixed(std::vector<std::uint32_t>& out) const {
  for (const auto& e : flush_list_)
    if ((slots_[e.page].state & kDirty) && (slots_[e.page].state & kWriteFix) && slots_[e.page].dirty_generation == e.generation)
      out.push_back(e.page);
}

std::uint32_t BufferPool::count_dirty_up_to(std::uint64_t lsn, std::uint32_t limit) {
  std::uint32_t n = 0;
  for (const auto& e : flush_list_) {
    if (n >= limit || e.lsn > lsn) break;
    if ((slots_[e.page].state & kDirty) && slots_[e.page].dirty_generation == e.generation) ++n;
  }
  return n;
}

}  // namespace poolsim
