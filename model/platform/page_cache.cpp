#include "platform/page_cache.h"

#include <stdexcept>

namespace poolsim {

OsPageCache::OsPageCache(std::uint32_t data_pages, std::uint64_t capacity_pages)
    : data_pages_(data_pages), capacity_(capacity_pages), holds_everything_(capacity_pages >= data_pages) {
  if (capacity_pages == 0) throw std::invalid_argument("OsPageCache: a page cache of no pages");
  if (!holds_everything_) {
    prev_.assign(data_pages, kNone);
    next_.assign(data_pages, kAbsent);
  }
}

bool OsPageCache::read(std::uint32_t page) {
  if (holds_everything_) {
    ++counters.hits;
    return true;
  }
  if (next_[page] != kAbsent) {
    ++counters.hits;
    unlink(page);
    push_front(page);
    return true;
  }
  ++counters.misses;
  insert(page);
  return false;
}

void OsPageCache::write(std::uint32_t page) {
  if (holds_everything_) return;
  if (next_[page] != kAbsent) {
    unlink(page);
    push_front(page);
  } else {
    insert(page);
  }
}

void OsPageCache::insert(std::uint32_t page) {
  if (cached_ == capacity_) {
    const std::uint32_t victim = tail_;
    unlink(victim);
    next_[victim] = kAbsent;
    --cached_;
  }
  push_front(page);
  ++cached_;
}

void OsPageCache::unlink(std::uint32_t page) {
  const std::uint32_t p = prev_[page], n = next_[page];
  (p == kNone ? head_ : next_[p]) = n;
  (n == kNone ? tail_ : prev_[n]) = p;
}

void OsPageCache::push_front(std::uint32_t page) {
  prev_[page] = kNone;
  next_[page] = head_;
  (head_ == kNone ? tail_ : prev_[head_]) = page;
  head_ = page;
}

}  // namespace poolsim
