// An allocator for the per-page arrays that are far larger than the CPU's cache and are read at
// random (the buffer pool's slots: ~190 MB for the 186 GB seed). With 4 KiB pages nearly every such
// read also misses the TLB, and in a virtual machine the page walk is two-dimensional; the array is
// therefore aligned to 2 MiB and offered to transparent huge pages (madvise, which Linux honours in
// its default "madvise" mode). Where the kernel declines, the memory is ordinary: only speed differs.
#pragma once
#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <new>

namespace poolsim {

template <typename T>
struct HugePageAllocator {
  using value_type = T;
  static constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;  // x86-64's PMD-level page
  // Below this an array is cheap to walk anyway, and rounding it up to 2 MiB would waste memory.
  static constexpr std::size_t kMinBytes = 4 * kHugePageBytes;

  HugePageAllocator() = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kMinBytes) return static_cast<T*>(::operator new(bytes));
    const std::size_t rounded = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
    void* p = std::aligned_alloc(kHugePageBytes, rounded);
    if (!p) throw std::bad_alloc();
    madvise(p, rounded, MADV_HUGEPAGE);  // advice only: a refusal leaves ordinary pages
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n * sizeof(T) < kMinBytes) {
      ::operator delete(p);
    } else {
      std::free(p);
    }
  }
  template <typename U>
  bool operator==(const HugePageAllocator<U>&) const noexcept { return true; }
  template <typename U>
  bool operator!=(const HugePageAllocator<U>&) const noexcept { return false; }
};

}  // namespace poolsim
