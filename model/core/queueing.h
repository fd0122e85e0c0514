// Closed forms of queueing theory that the models are tested against and that calibration and
// planning use as fast analytic estimates.
#pragma once
#include <algorithm>
#include <vector>

namespace poolsim {

// Throughput of a closed loop of `population` requests cycling through a pure delay `delay_s` (what
// occupies nothing) and one station of `servers` servers sharing one FCFS queue, exponential service
// of mean `service_s`: exact mean value analysis with a load-dependent station.
inline double mva_throughput(int population, double delay_s, int servers, double service_s) {
  std::vector<double> p = {1.0};  // p[j]: probability of j requests at the station, population n - 1
  double x = 0;
  for (int n = 1; n <= population; ++n) {
    double r = 0;
    for (int j = 1; j <= n; ++j) r += j * service_s / std::min(j, servers) * p[j - 1];
    x = n / (delay_s + r);
    std::vector<double> next(n + 1, 0.0);
    double busy = 0;
    for (int j = 1; j <= n; ++j) busy += next[j] = x * service_s / std::min(j, servers) * p[j - 1];
    next[0] = std::max(0.0, 1.0 - busy);
    p = std::move(next);
  }
  return x;
}

}  // namespace poolsim
