// Statistics of a simulation point: a log-linear latency histogram (every completion recorded,
// percentiles within 1 % relative error) and batch means for confidence intervals and the stop rule.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

namespace poolsim {

class LatencyHistogram {
public:
  // Buckets: 2^k ranges from 1 ns up, each split into kSubBuckets linear parts (relative error
  // below 1 / kSubBuckets).
  static constexpr int kSubBuckets = 128;
  static constexpr int kOctaves = 48;  // 1 ns .. ~2.8e5 s

  LatencyHistogram() : counts_(static_cast<size_t>(kSubBuckets) * kOctaves, 0) {}
  void record(double seconds);
  void merge(const LatencyHistogram& other);
  void clear();

  std::uint64_t count() const { return count_; }
  double mean_s() const { return count_ ? sum_s_ / count_ : 0.0; }
  double max_s() const { return max_s_; }
  double min_s() const { return count_ ? min_s_ : 0.0; }
  // q in [0, 1]; the midpoint of the bucket holding the q-quantile.
  double quantile_s(double q) const;
  // Non-empty buckets as {upper bound seconds, count}, for CDF plots.
  nlohmann::json to_json() const;

private:
  static size_t bucket_of(double seconds);
  static double bucket_low_s(size_t bucket);
  std::vector<std::uint64_t> counts_;
  std::uint64_t count_ = 0;
  double sum_s_ = 0, max_s_ = 0, min_s_ = 0;
};

// Student-t quantile for a two-sided confidence level with `dof` degrees of freedom.
double student_t_quantile(double confidence, int dof);

struct Estimate {
  double mean = 0;
  double half_width = 0;  // of the confidence interval
  int batches = 0;        // the batches added
  int batches_per_ci_batch = 1;  // consecutive batches merged into one for the interval (BatchMeans)
  nlohmann::json to_json() const {
    return {{"mean", mean}, {"ci95_half_width", half_width}, {"batches", batches}, {"batches_per_ci_batch", batches_per_ci_batch}};
  }
};

// The von Neumann ratio test of independence for a series (von Neumann 1941; Young 1941): true when
// its lag-1 correlation statistic C = 1 - sum of squared successive differences / (2 x sum of squared
// deviations), about normal with mean 0 and variance (k - 2) / (k^2 - 1) for k independent normal
// values, lies beyond the two-sided `significance` level. A constant series counts as independent.
bool lag_one_correlated(const std::vector<double>& series, double significance);

// Means of equal-length batches, with a confidence interval for their mean. The interval needs batch
// means that are about independent; consecutive short batches of a simulation often are not (a
// cleaner's one-second beat, flushing stalls that alternate with catching up). So, with enough
// batches, the interval merges consecutive batches 2, 4, 8, ... at a time, the fewest that pass the
// von Neumann test at the 10 % level, keeping at least 10 merged batches (Fishman and Yarberry's
// LABATCH.2 doubles its batches and tests them the same way and at that level, INFORMS J. Computing
// 1997; 10-30 batches: Schmeiser, Oper. Res. 1982). When none passes, the longest that leave 10
// give it. The mean is that of all batches.
class BatchMeans {
public:
  void add(double value) { values_.push_back(value); }
  size_t size() const { return values_.size(); }
  Estimate estimate(double confidence) const;
  const std::vector<double>& values() const { return values_; }

private:
  std::vector<double> values_;
};

// MSER (White 1997): the truncation point d that minimises the squared standard error of the mean
// of series[d:], searched over d <= n - min_kept. A transient shows as d > 0; a series whose d is
// small against n has (by this rule) reached steady state.
size_t mser_truncation(const std::vector<double>& series, size_t min_kept = 5);

}  // namespace poolsim
