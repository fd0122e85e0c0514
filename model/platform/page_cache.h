// The operating system's page cache in front of a compute node's data files.
//
// A server that opens its data files without O_DIRECT (innodb_flush_method = fsync, the default of
// MySQL 5.x and of MariaDB before 10.6) reads and writes them through the kernel's page cache: a page
// the buffer pool misses may still be in the host's spare memory, and reading it is a system call and
// a memory copy, not a device read. Modelled as an exact LRU of the data set's pages (Linux keeps two
// LRU lists, active and inactive; under the buffer pool's miss stream, which repeats a page only
// after the pool has evicted it, one LRU is the usual approximation). When the cache can hold every
// page of the data set it keeps no list at all: every read hits.
#pragma once
#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace poolsim {

class OsPageCache {
public:
  // `data_pages`: the data set's pages (page numbers 0..data_pages-1); `capacity_pages`: how many
  // the host's spare memory holds.
  OsPageCache(std::uint32_t data_pages, std::uint64_t capacity_pages);

  bool holds_everything() const { return holds_everything_; }
  std::uint64_t capacity_pages() const { return capacity_; }
  std::uint64_t cached_pages() const { return holds_everything_ ? data_pages_ : cached_; }

  // A read of `page` by the server: true when the cache holds it (a copy); false when it must come
  // from the device, after which the cache holds it. Either way it becomes the most recent.
  bool read(std::uint32_t page);
  // A page the server writes through the cache: it becomes (or stays) cached, the most recent.
  void write(std::uint32_t page);
  bool holds(std::uint32_t page) const { return holds_everything_ || next_[page] != kAbsent; }

  // The steady state under uniform keys with a buffer pool in front (the cache sees the pool's
  // misses and writes): the pages the pool holds were read through the cache recently, so they are
  // cached and the most recent; the rest of the capacity is a uniform sample of the other pages.
  // `in_pool(page)` says whether the pool holds a page.
  template <class InPool>
  void warm_uniform(InPool in_pool, std::mt19937_64& rng);

  struct Counters {
    std::uint64_t hits = 0, misses = 0;
  } counters;

private:
  static constexpr std::uint32_t kNone = 0xffffffffu;    // end of the list
  static constexpr std::uint32_t kAbsent = 0xfffffffeu;  // next_ of a page not cached
  void unlink(std::uint32_t page);
  void push_front(std::uint32_t page);
  void insert(std::uint32_t page);  // a page not cached: at the head, evicting the tail when full

  std::uint32_t data_pages_;
  std::uint64_t capacity_;
  bool holds_everything_;
  std::uint64_t cached_ = 0;
  std::vector<std::uint32_t> prev_, next_;  // per page: the list's links (next_ = kAbsent: not cached)
  std::uint32_t head_ = kNone, tail_ = kNone;
};

template <class InPool>
void OsPageCache::warm_uniform(InPool in_pool, std::mt19937_64& rng) {
  if (holds_everything_) return;
  // Oldest first: a uniform sample of the pages outside the pool, then the pool's pages.
  std::vector<std::uint32_t> outside, inside;
  for (std::uint32_t p = 0; p < data_pages_; ++p) (in_pool(p) ? inside : outside).push_back(p);
  std::shuffle(outside.begin(), outside.end(), rng);
  const std::uint64_t room = capacity_ > inside.size() ? capacity_ - inside.size() : 0;
  if (outside.size() > room) outside.resize(room);
  for (std::uint32_t p : outside) insert(p);
  std::shuffle(inside.begin(), inside.end(), rng);
  for (std::uint32_t p : inside) insert(p);
}

}  // namespace poolsim
