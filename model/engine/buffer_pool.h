// The InnoDB buffer pool at page level: a free list, the LRU list with InnoDB's midpoint insertion
// (new pages enter at the head of the "old" sublist, innodb_old_blocks_pct = 37 % of the list; a page
// in the old sublist moves to the young head only when touched again after innodb_old_blocks_time;
// a young page moves to the head only when it has drifted into the older part of the young sublist,
// InnoDB's buf_page_peek_if_too_old), dirty pages and the flush list ordered by first modification.
//
// Every page of the data set has a slot (16 bytes): 12M pages (the 186 GB seed) take ~190 MB, so the
// LRU is exact, not sampled. A hit is a few array operations and no simulation event.
//
// The LRU list is two position rings (core/position_ring.h), the young sublist (front = the list's
// head) and the old one (front = InnoDB's LRU_old, back = the tail); a page's slot holds its position.
// Moving a page leaves its old entry behind, stale: an entry is the page's only while the slot's
// position and sublist still name it. Stale entries at a ring's ends are dropped at once, so both
// ends are always pages; a walk from the tail skips the stale ones between. A move thus writes the
// page's own slot and one entry at a ring's end, where a linked list rewrote three slots at random.
#pragma once
#include <cstdint>
#include <deque>
#include <vector>

#include "core/huge_pages.h"
#include "core/position_ring.h"
#include "core/prefetch.h"

namespace poolsim {

class BufferPool {
public:
  static constexpr std::uint32_t kNone = 0xffffffffu;

  BufferPool(std::uint32_t dataset_pages, std::uint32_t frames, double old_ratio, double old_blocks_time_s);

  // Looks the page up; on a hit updates the LRU and returns true.
  bool touch(std::uint32_t page, double now_s);
  // Starts loading a page's slot into the cache (for loops that know their next pages).
  void prefetch(std::uint32_t page) const { prefetch_line(&slots_[page]); }
  // Starts loading what moving a page in the LRU list touches besides its slot (its ring entry's
  // flag word), for loops that know their next pages; the slot itself should be in the cache
  // (prefetch() some time before), as its position is read here.
  void prefetch_links(std::uint32_t page) const {
    const Slot& slot = slots_[page];
    if (slot.state & kLinked) ((slot.state & kOld) ? old_ : young_).prefetch_flag(slot.pos);
  }
  // For walks from the tail toward the head (lru_previous): starts loading the slot of the page a
  // few entries toward the head of `page` (linked). Each step of such a walk lands on a slot far
  // from the last one; fetched ahead, the walk waits for memory once instead of once per page.
  void prefetch_toward_head(std::uint32_t page) const {
    constexpr std::uint32_t kAhead = 4;
    const Slot& slot = slots_[page];
    prefetch_entry((slot.state & kOld) ? old_ : young_, slot.pos - kAhead);
  }
  bool resident(std::uint32_t page) const { return slots_[page].state & kResident; }
  bool in_flight(std::uint32_t page) const { return slots_[page].state & kInFlight; }
  bool dirty(std::uint32_t page) const { return slots_[page].state & kDirty; }
  // In the old sublist (InnoDB's buf_page_is_old).
  bool old(std::uint32_t page) const { return slots_[page].state & kOld; }

  // Frames.
  std::uint32_t frames() const { return frames_; }
  std::uint32_t free_frames() const { return free_; }
  std::uint32_t resident_pages() const { return lru_length_; }
  // Places a page that is being read at the head of the old sublist (takes a free frame).
  void insert_reading(std::uint32_t page, double now_s);
  void read_done(std::uint32_t page) {
    slots_[page].state &= ~kInFlight;
    forget_scan_if_evictable(page);
  }
  // Removes a clean page from the LRU and frees its frame.
  void evict(std::uint32_t page);
  // The LRU tail, and walking towards the head (kNone past the end).
  std::uint32_t lru_tail() const {
    return !old_.empty() ? old_.back() : !young_.empty() ? young_.back() : kNone;
  }
  std::uint32_t lru_previous(std::uint32_t page) const { return toward_head(page); }
  // A clean, evictable page within `depth` pages of the tail, or kNone. Called on every miss once
  // the free list is empty, while the tail is often all dirty: the pages already found not evictable
  // are remembered (see tail_scanned_), so a call does not walk them again.
  std::uint32_t find_clean_near_tail(std::uint32_t depth);
  // The page nearest the tail that is neither being read nor written (kNone: none).
  std::uint32_t first_not_io_fixed_near_tail() const;

  // Dirty pages. `lsn` is the redo position of the first modification since the page was clean.
  void mark_dirty(std::uint32_t page, std::uint64_t lsn);
  void mark_clean(std::uint32_t page);
  // A page being written stays readable but cannot be evicted or written again.
  void set_write_fix(std::uint32_t page, bool on) {
    if (on) {
      slots_[page].state |= kWriteFix;
    } else {
      slots_[page].state &= ~kWriteFix;
      forget_scan_if_evictable(page);
    }
  }
  bool write_fixed(std::uint32_t page) const { return slots_[page].state & kWriteFix; }
  std::uint32_t dirty_pages() const { return dirty_count_; }
  // Oldest modification among dirty pages (kNoLsn when none).
  static constexpr std::uint64_t kNoLsn = ~0ull;
  std::uint64_t oldest_modification();
  // Up to `n` dirty pages in flush-list order whose first modification is at or below `max_lsn`.
  void oldest_dirty(std::uint32_t n, std::uint64_t max_lsn, std::vector<std::uint32_t>& out);
  // The dirty pages being written (write-fixed), in flush-list order.
  void dirty_write_fixed(std::vector<std::uint32_t>& out) const;
  // Dirty pages with first modification at or below `lsn`, counted up to `limit`.
  std::uint32_t count_dirty_up_to(std::uint64_t lsn, std::uint32_t limit);

  // Counters.
  struct Counters {
    std::uint64_t hits = 0, misses = 0, made_young = 0, not_made_young = 0, evictions = 0;
    std::uint64_t dirtied = 0;  // clean pages made dirty: each is one page write to come
  };
  Counters counters;

  // Pre-loads pages without timing (functional warm-up), oldest first.
  void preload(std::uint32_t page, double now_s);
  // Fills an empty pool with `pages` in LRU order, head first: the first `young_count` form the
  // young sublist (with their freed_page_clock values when last made young), the rest the old one;
  // all clean, first accessed at `first_access_s`. Then the old sublist is brought to its length as
  // insertions do. (The steady-state warm-up, engine/warmup.h.)
  void load_ordered(const std::vector<std::uint32_t>& pages, std::uint32_t young_count,
                    const std::vector<std::uint32_t>& young_clocks, std::uint32_t freed_page_clock, double first_access_s);
  double old_ratio() const { return old_ratio_; }
  std::uint32_t old_pages() const { return old_length_; }

  // Whether the remembered tail scan matches the LRU list (a check for tests; walks the list).
  bool tail_scan_consistent() const;
  // The LRU list's own invariants: every live entry a resident page in the sublist its slot says,
  // each page in one live entry, live entries at both ends of both rings, the counts, and the
  // frames: resident + free = frames.
  bool list_consistent() const;
  // Entries held by the two rings, stale ones included (tests).
  std::size_t ring_entries() const { return young_.size() + old_.size(); }
  // How often a ring was rebuilt from its live entries (tests).
  std::uint64_t ring_compactions() const { return ring_compactions_; }

private:
  // kTailScanned: the page is in the run of pages at the LRU tail known not to be evictable.
  // kLinked: the page has a live entry in a ring (in the young one, or the old one when kOld).
  enum : std::uint8_t { kResident = 1, kOld = 2, kDirty = 4, kInFlight = 8, kWriteFix = 16, kTailScanned = 32, kLinked = 64 };
  static constexpr std::uint8_t kPinned = kDirty | kInFlight | kWriteFix;  // not evictable
  void unlink(std::uint32_t page);
  // Keeps the tail scan exact when `page` was linked into the list or became evictable.
  void note_linked(std::uint32_t page);
  void forget_scan_if_evictable(std::uint32_t page) {
    if ((slots_[page].state & kTailScanned) && !(slots_[page].state & kPinned)) drop_scan_from(page, toward_tail(page));
  }
  // Ends the scanned run before `first_dropped` (which is scanned), at `new_last` (kNone: empty).
  void drop_scan_from(std::uint32_t first_dropped, std::uint32_t new_last);
  void link_head(std::uint32_t page);
  void link_before_old(std::uint32_t page);
  void rebalance_old();
  struct Slot;
  // Whether the entry at `pos` of a ring is its page's live one: the ring's flag, cleared when the
  // page leaves that place (unlink), so that telling a stale entry needs no read of its page's slot.
  bool live(const PositionRing& ring, std::uint32_t pos) const { return ring.flagged(pos); }
  // The same from the page's slot (list_consistent checks that the two agree).
  bool slot_says_live(const PositionRing& ring, std::uint32_t pos) const {
    const std::uint32_t entry = ring.at(pos);
    if (entry & kSkipMarks) return false;
    const Slot& slot = slots_[entry];
    return (slot.state & kLinked) && slot.pos == pos && static_cast<bool>(slot.state & kOld) == (&ring == &old_);
  }
  // A run of stale entries, once walked, is marked with its length at the end the walk entered it
  // (kSkipHead | n at its tail end: this entry and the n - 1 toward the head are stale; kSkipTail | n
  // at its head end, the other way), so the next walk jumps it. Pages leave near the tail behind
  // pinned pages (find_clean_near_tail evicts past a dirty run), and without the marks every walk
  // from there would pass every stale entry again. A mark covers only entries its walk saw stale; a
  // stale entry stays stale until its position is popped, and every pop is followed by a trim that
  // stops only at a live entry, so a marked run leaves the ring whole, mark included, before its
  // positions can be reused: a mark never jumps a live entry. A longer run than the mark's 30 bits
  // hold is marked short (a shorter jump lands on a stale entry of the run, which is safe). Page
  // numbers stay below the mark bits.
  static constexpr std::uint32_t kSkipHead = 0x80000000u, kSkipTail = 0x40000000u;
  static constexpr std::uint32_t kSkipMarks = kSkipHead | kSkipTail, kMaxSkip = kSkipTail - 1;
  // The position of the first live entry from `pos` (exclusive) toward the head or the tail, not
  // held by `ring` if there is none; marks the stale run it passed.
  std::uint32_t next_live(const PositionRing& ring, std::uint32_t pos, bool toward_head) const;
  // Starts loading the slot of the page at `pos` of `ring`, if it holds one there (not a stale run's mark).
  void prefetch_entry(const PositionRing& ring, std::uint32_t pos) const {
    if (ring.holds(pos) && !(ring.at(pos) & kSkipMarks)) prefetch(ring.at(pos));
  }
  // Calls visit(page) for the pages from the tail toward the head while it returns true. The entries
  // are consecutive but each names a slot far from the last: the slots a few entries ahead are
  // fetched early, so the walk waits for memory once per batch rather than once per page.
  template <typename Visit>
  void walk_from_tail(Visit visit) const {
    constexpr std::uint32_t kAhead = 8;
    for (const PositionRing* ring : {&old_, &young_}) {
      for (std::uint32_t pos = ring->end() - 1; ring->holds(pos); pos = next_live(*ring, pos, /*toward_head=*/true)) {
        prefetch_entry(*ring, pos - kAhead);
        if (!visit(ring->at(pos))) return;  // live: a ring's back is, and each step lands on a live entry
      }
    }
  }
  // A linked page's neighbours in the list (kNone past the ends).
  std::uint32_t neighbour(std::uint32_t page, bool toward_head) const;
  std::uint32_t toward_head(std::uint32_t page) const { return neighbour(page, true); }
  std::uint32_t toward_tail(std::uint32_t page) const { return neighbour(page, false); }
  // Drops the stale entries at one end of a ring.
  void trim_front(PositionRing& ring);
  void trim_back(PositionRing& ring);
  // Pushes onto a ring's front or back, first dropping its stale entries when most are stale.
  std::uint32_t push(PositionRing& ring, std::uint32_t page, bool front);
  void compact(PositionRing& ring);
  // buf_page_peek_if_too_old: a young page moves to the head only once it has drifted past a quarter
  // of the young sublist.
  bool drifted_from_head(const Slot& slot) const {
    return freed_page_clock_ - slot.young_clock > static_cast<std::uint32_t>(lru_length_ * (1.0 - old_ratio_) / 4);
  }

  // One slot per page, its fields together: a touch, an LRU move or a dirtying reads one or two
  // cache lines of a page's slot instead of one per field (the arrays are far larger than the cache).
  // 16 bytes: a slot never straddles two cache lines.
  struct Slot {
    std::uint32_t pos = 0;           // its entry's position in its ring, while kLinked
    float first_access_s = 0;        // for old_blocks_time
    std::uint32_t young_clock = 0;   // freed_page_clock when last made young
    // Counts the page's dirtyings, to tell its flush-list entries apart; wraps at 2^24: a stale entry
    // would alias the page's live one only if the page were dirtied 2^24 times while that entry
    // waited in the flush list (at most once per flush of the page: the cleaner runs once a second).
    std::uint32_t dirty_generation : 24;
    std::uint32_t state : 8;
    Slot() : dirty_generation(0), state(0) {}
  };
  static_assert(sizeof(Slot) == 16, "a slot is a quarter of a cache line");
  std::vector<Slot, HugePageAllocator<Slot>> slots_;
  struct FlushEntry {
    std::uint32_t page;
    std::uint32_t generation;
    std::uint64_t lsn;
  };
  std::deque<FlushEntry> flush_list_;

  std::uint32_t frames_, free_;
  // The LRU list: young_ front to back, then old_ front to back. Mutable: a walk marks the stale
  // runs it passed (kSkipHead, kSkipTail), which changes no page's place in the list.
  mutable PositionRing young_, old_;
  std::uint32_t lru_length_ = 0, old_length_ = 0, dirty_count_ = 0;
  std::uint32_t freed_page_clock_ = 0;
  // The run of tail_scanned_ pages from the LRU tail up to tail_scan_last_ (kNone when empty) is
  // known not to be evictable; its pages carry kTailScanned. A page leaving the run (unlinked, or
  // made evictable) shortens it, so find_clean_near_tail resumes where the last walk stopped.
  std::uint32_t tail_scanned_ = 0, tail_scan_last_ = kNone;
  std::uint64_t ring_compactions_ = 0;
  double old_ratio_, old_blocks_time_s_;
};

}  // namespace poolsim
