// A double-ended ring of 32-bit values addressed by absolute position. Pushing at the front takes
// the position before begin(), pushing at the back the position end(); a position keeps naming the
// same element while the ring grows or other elements are pushed and popped, so an element's owner
// can store its position and find it again in O(1). Positions are 32-bit and wrap: a ring holds
// fewer than 2^31 elements, and positions are compared by their offset from begin().
//
// The buffer pool's LRU sublists are two of these (engine/buffer_pool.h): a page moved to the head
// is one sequential write at the front instead of relinking three list neighbours at random places
// in a per-page array far larger than the cache, and a walk from the tail reads consecutive entries.
#pragma once
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/huge_pages.h"
#include "core/prefetch.h"

namespace poolsim {

class PositionRing {
public:
  PositionRing() = default;
  // Starts at `start` instead of the middle of the range (tests use it to cross the wrap).
  explicit PositionRing(std::uint32_t start) : begin_(start), end_(start) {}

  std::uint32_t begin() const { return begin_; }
  std::uint32_t end() const { return end_; }
  std::uint32_t size() const { return end_ - begin_; }
  bool empty() const { return end_ == begin_; }
  std::size_t capacity() const { return buf_.size(); }
  bool full() const { return size() == capacity(); }
  // Whether `pos` names an element now in the ring.
  bool holds(std::uint32_t pos) const { return pos - begin_ < size(); }

  std::uint32_t at(std::uint32_t pos) const {
    assert(holds(pos));
    return buf_[pos & mask_];
  }
  // Overwrites the element at `pos` (held).
  void set(std::uint32_t pos, std::uint32_t value) {
    assert(holds(pos));
    buf_[pos & mask_] = value;
  }
  // Each element carries one flag, set when it is pushed: its owner clears it to say the element no
  // longer counts (the buffer pool: a stale entry), and a walk reads a dense bit array instead of
  // asking the owner.
  bool flagged(std::uint32_t pos) const {
    assert(holds(pos));
    return flags_[(pos & mask_) >> 6] >> (pos & 63) & 1;
  }
  // Starts loading the flag's word (a prefetch: `pos` need not be held).
  void prefetch_flag(std::uint32_t pos) const {
    if (!flags_.empty()) prefetch_line(&flags_[(pos & mask_) >> 6]);
  }
  void clear_flag(std::uint32_t pos) {
    assert(holds(pos));
    flags_[(pos & mask_) >> 6] &= ~(std::uint64_t{1} << (pos & 63));
  }
  std::uint32_t front() const { return at(begin_); }
  std::uint32_t back() const { return at(end_ - 1); }

  std::uint32_t push_front(std::uint32_t value) {
    if (full()) grow();
    buf_[--begin_ & mask_] = value;
    set_flag(begin_);
    return begin_;
  }
  std::uint32_t push_back(std::uint32_t value) {
    if (full()) grow();
    buf_[end_ & mask_] = value;
    set_flag(end_);
    return end_++;
  }
  void pop_front() {
    assert(!empty());
    ++begin_;
  }
  void pop_back() {
    assert(!empty());
    --end_;
  }
  // Empties the ring; positions start again from the middle of the range.
  void clear() { begin_ = end_ = kStart; }

private:
  // The middle of the position range: front and back pushes both have room before they wrap.
  static constexpr std::uint32_t kStart = 1u << 31;
  static constexpr std::size_t kFirstCapacity = 1024;  // a multiple of the flags' 64-bit words

  void set_flag(std::uint32_t pos) { flags_[(pos & mask_) >> 6] |= std::uint64_t{1} << (pos & 63); }
  void grow() {
    const std::size_t capacity = buf_.empty() ? kFirstCapacity : 2 * buf_.size();
    assert(capacity <= (std::size_t{1} << 31));
    std::vector<std::uint32_t, HugePageAllocator<std::uint32_t>> bigger(capacity);
    std::vector<std::uint64_t> flags(capacity / 64);
    const std::uint32_t mask = static_cast<std::uint32_t>(capacity - 1);
    for (std::uint32_t pos = begin_; pos != end_; ++pos) {
      bigger[pos & mask] = buf_[pos & mask_];
      if (flagged(pos)) flags[(pos & mask) >> 6] |= std::uint64_t{1} << (pos & 63);
    }
    buf_.swap(bigger);
    flags_.swap(flags);
    mask_ = mask;
  }

  std::vector<std::uint32_t, HugePageAllocator<std::uint32_t>> buf_;
  std::vector<std::uint64_t> flags_;  // a bit per element of buf_
  std::uint32_t mask_ = 0;
  std::uint32_t begin_ = kStart, end_ = kStart;
};

}  // namespace poolsim
