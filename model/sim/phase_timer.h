// CPU time per phase of a point (functional warm-up, timed warm-up, measurement), printed to stderr
// when POOLSIM_PHASES is set: a profile of where a point's CPU goes, without a profiler.
#pragma once
#include <sys/resource.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>

namespace poolsim {

inline double process_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// User + system time of a rusage (a waited-for child's, or the children's so far).
inline double rusage_cpu_s(const struct rusage& usage) {
  auto seconds = [](const timeval& tv) { return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) * 1e-6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// Prints "phase NAME cpu X s" (CPU since the previous mark) when POOLSIM_PHASES is set.
inline void phase_mark(const char* name) {
  static const bool on = std::getenv("POOLSIM_PHASES") != nullptr;
  static double last = process_cpu_s();
  if (!on) return;
  double t = process_cpu_s();
  std::fprintf(stderr, "phase %-20s cpu %8.3f s\n", name, t - last);
  last = t;
}

}  // namespace poolsim
