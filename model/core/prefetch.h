// A read prefetch that the optimiser keeps.
#pragma once

namespace poolsim {

// Starts loading the cache line at `address`. GCC deletes a loop whose only effect is
// __builtin_prefetch (a loop that prefetches a transaction's pages ahead of their use compiled to
// nothing), so on x86 the instruction is written out; elsewhere the builtin stands.
inline void prefetch_line(const void* address) {
#if defined(__x86_64__) || defined(__i386__)
  asm volatile("prefetcht0 (%0)" : : "r"(address));
#else
  __builtin_prefetch(address);
#endif
}

}  // namespace poolsim
