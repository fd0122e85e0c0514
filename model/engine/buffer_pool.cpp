#include "engine/buffer_pool.h"

#include <algorithm>
#include <cassert>
#include <stdexcept>

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
      old_blocks_time_s_(old_blocks_time_s) {
  if (dataset_pages > kSkipTail) throw std::length_error("buffer pool: more than 2^30 pages in the data set");
}

std::uint32_t BufferPool::next_live(const PositionRing& ring, std::uint32_t pos, bool toward_head) const {
  // One step is -1 or +1 modulo 2^32; a mark jumps its length the same way.
  const std::uint32_t step = toward_head ? ~0u : 1u, mark = toward_head ? kSkipHead : kSkipTail;
  const std::uint32_t first = pos + step;
  for (pos = first; ring.holds(pos);) {
    const std::uint32_t entry = ring.at(pos);
    if (entry & mark) {
      pos += step * (entry & ~kSkipMarks);
    } else if (live(ring, pos)) {
      break;
    } else {
      pos += step;
    }
  }
  const std::uint32_t run = toward_head ? first - pos : pos - first;
  if (run >= 2) const_cast<PositionRing&>(ring).set(first, mark | std::min(run, kMaxSkip));
  return pos;
}

std::uint32_t BufferPool::neighbour(std::uint32_t page, bool toward_head) const {
  const Slot& slot = slots_[page];
  assert(slot.state & kLinked);  // an unlinked page's position is stale: it has no neighbours
  const bool old = slot.state & kOld;
  const PositionRing& ring = old ? old_ : young_;
  const std::uint32_t pos = next_live(ring, slot.pos, toward_head);
  if (ring.holds(pos)) return ring.at(pos);
  // Across the sublists' boundary: the young sublist's last page, or the old sublist's head (both live).
  if (toward_head) return old && !young_.empty() ? young_.back() : kNone;
  return !old && !old_.empty() ? old_.front() : kNone;
}

void BufferPool::trim_front(PositionRing& ring) {
  while (!ring.empty() && !live(ring, ring.begin())) ring.pop_front();
}

void BufferPool::trim_back(PositionRing& ring) {
  while (!ring.empty() && !live(ring, ring.end() - 1)) ring.pop_back();
}

std::uint32_t BufferPool::push(PositionRing& ring, std::uint32_t page, bool front) {
  // A full ring whose entries are mostly stale is rebuilt from its live ones instead of growing:
  // its memory stays within a few times the sublist's length, at a cost spread over the pushes
  // that filled it.
  if (ring.full() && ring.capacity() > 0) {
    const std::uint32_t live_entries = &ring == &old_ ? old_length_ : lru_length_ - old_length_;
    if (std::size_t{live_entries} * 4 <= ring.capacity()) compact(ring);
  }
  return front ? ring.push_front(page) : ring.push_back(page);
}

void BufferPool::compact(PositionRing& ring) {
  ++ring_compactions_;
  std::vector<std::uint32_t> pages;
  for (std::uint32_t pos = ring.begin(); pos != ring.end(); ++pos)
    if (live(ring, pos)) pages.push_back(ring.at(pos));
  ring.clear();
  for (auto page : pages) slots_[page].pos = ring.push_back(page);
}

void BufferPool::unlink(std::uint32_t page) {
  Slot& slot = slots_[page];
  if (slot.state & kTailScanned) {
    // Its neighbours close up, so the run stays contiguous from the tail.
    if (tail_scan_last_ == page) tail_scan_last_ = toward_tail(page);
    slot.state &= ~kTailScanned;
    --tail_scanned_;
  }
  const bool was_old = slot.state & kOld;
  if (was_old) --old_length_;
  slot.state &= ~(kLinked | kOld);
  --lru_length_;
  // Its entry is stale now: dropped at once if at an end (cheap: the ends are where pages leave).
  PositionRing& ring = was_old ? old_ : young_;
  ring.clear_flag(slot.pos);
  if (slot.pos == ring.begin()) trim_front(ring);
  if (ring.holds(slot.pos) && slot.pos == ring.end() - 1) trim_back(ring);
}

void BufferPool::link_head(std::uint32_t page) {
  slots_[page].pos = push(young_, page, /*front=*/true);
  slots_[page].state |= kLinked;
  ++lru_length_;
  note_linked(page);
}

void BufferPool::link_before_old(std::uint32_t page) {
  // At the old sublist's head; with no old sublist yet, that is the tail, where one starts.
  slots_[page].pos = push(old_, page, /*front=*/true);
  slots_[page].state |= kLinked | kOld;
  ++old_length_;
  ++lru_length_;
  note_linked(page);
}

void BufferPool::note_linked(std::uint32_t page) {
  if (tail_scanned_ == 0) return;
  // Inside the run: the new tail, or between two scanned pages.
  std::uint32_t toward_tail_page = toward_tail(page);
  bool inside = toward_tail_page == kNone || ((slots_[toward_tail_page].state & kTailScanned) && toward_tail_page != tail_scan_last_);
  if (!inside) return;
  if (slots_[page].state & kPinned) {
    slots_[page].state |= kTailScanned;
    ++tail_scanned_;
  } else {
    drop_scan_from(toward_head(page), toward_tail_page);
  }
}

void BufferPool::drop_scan_from(std::uint32_t first_dropped, std::uint32_t new_last) {
  for (std::uint32_t p = first_dropped; p != kNone && (slots_[p].state & kTailScanned); p = toward_head(p)) {
    slots_[p].state &= ~kTailScanned;
    --tail_scanned_;
  }
  tail_scan_last_ = new_last;
}

bool BufferPool::tail_scan_consistent() const {
  std::uint32_t page = lru_tail(), last = kNone;
  for (std::uint32_t n = 0; n < tail_scanned_; ++n, last = page, page = toward_head(page))
    if (page == kNone || !(slots_[page].state & kTailScanned) || !(slots_[page].state & kPinned)) return false;
  if (last != tail_scan_last_) return false;
  for (; page != kNone; page = toward_head(page))
    if (slots_[page].state & kTailScanned) return false;
  return true;
}

bool BufferPool::list_consistent() const {
  std::uint32_t count = 0, old_count = 0;
  for (const PositionRing* ring : {&young_, &old_}) {
    if (!ring->empty() && (!live(*ring, ring->begin()) || !live(*ring, ring->end() - 1))) return false;
    for (std::uint32_t pos = ring->begin(); pos != ring->end(); ++pos) {
      if (live(*ring, pos) != slot_says_live(*ring, pos)) return false;
      if (!live(*ring, pos)) continue;
      if (!(slots_[ring->at(pos)].state & kResident)) return false;
      ++count;
      old_count += ring == &old_;
    }
  }
  // Each page has at most one live entry (its slot names one position), so the counts also say
  // that every linked page has one.
  std::uint32_t linked = 0;
  for (const Slot& slot : slots_) linked += (slot.state & kLinked) != 0;
  return count == lru_length_ && linked == lru_length_ && old_count == old_length_ && count + free_ == frames_;
}

void BufferPool::rebalance_old() {
  if (lru_length_ < kOldMinLength) return;
  auto target = static_cast<std::uint32_t>(lru_length_ * old_ratio_);
  // The boundary moves a page at a time, either way: the old sublist's head becomes the young
  // sublist's last page, or the other way round; the list's order does not change.
  while (old_length_ > target + kOldTolerance && !old_.empty()) {
    const std::uint32_t page = old_.front();
    old_.pop_front();
    trim_front(old_);
    slots_[page].pos = push(young_, page, /*front=*/false);
    slots_[page].state &= ~kOld;
    --old_length_;
  }
  while (old_length_ + kOldTolerance < target && !young_.empty()) {
    const std::uint32_t page = young_.back();
    young_.pop_back();
    trim_back(young_);
    slots_[page].pos = push(old_, page, /*front=*/true);
    slots_[page].state |= kOld;
    ++old_length_;
  }
  // The boundary moves by a page or two per insertion or made-young page, and the slot of the page
  // it moves next is far from the last one: fetched now, it is in the cache when that move comes.
  if (!young_.empty()) prefetch(young_.back());
  if (!old_.empty()) prefetch(old_.front());
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
    std::uint32_t victim = lru_tail();
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
  young_.clear();
  old_.clear();
  // InnoDB has no old sublist in so short a list.
  const bool with_old = pages.size() >= kOldMinLength;
  for (std::uint32_t i = 0; i < pages.size(); ++i) {
    if (i + 16 < pages.size()) prefetch(pages[i + 16]);  // the slots are far apart: fetch ahead
    const std::uint32_t page = pages[i];
    const bool old = with_old && i >= young_count;
    Slot& slot = slots_[page];
    slot.pos = old ? old_.push_back(page) : young_.push_back(page);
    slot.first_access_s = static_cast<float>(first_access_s);
    slot.young_clock = i < young_count ? young_clocks[i] : freed_page_clock;
    slot.state = kResident | kLinked | (old ? kOld : 0);
  }
  lru_length_ = static_cast<std::uint32_t>(pages.size());
  old_length_ = old_.size();
  free_ = frames_ - lru_length_;
  freed_page_clock_ = freed_page_clock;
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
  std::uint32_t page = tail_scan_last_ == kNone ? lru_tail() : toward_head(tail_scan_last_);
  for (; tail_scanned_ < depth && page != kNone; page = toward_head(page)) {
    // Once the free list is empty every miss comes here, to resume the walk one or two pages past
    // the last: later steps (this call's or the next ones') find their slots in the cache.
    prefetch_toward_head(page);
    if (!(slots_[page].state & kPinned)) return page;
    slots_[page].state |= kTailScanned;
    tail_scan_last_ = page;
    ++tail_scanned_;
  }
  return kNone;
}

std::uint32_t BufferPool::first_not_io_fixed_near_tail() const {
  std::uint32_t found = kNone;
  walk_from_tail([&](std::uint32_t page) {
    if (slots_[page].state & (kInFlight | kWriteFix)) return true;
    found = page;
    return false;
  });
  return found;
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
