#include "sim/statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace poolsim {

namespace {
constexpr double kUnitS = 1e-9;  // the histogram's resolution
}

size_t LatencyHistogram::bucket_of(double seconds) {
  double units = std::max(seconds / kUnitS, 1.0);
  int exponent = 0;
  double fraction = std::frexp(units, &exponent);  // units = fraction * 2^exponent, fraction in [0.5, 1)
  int octave = std::min(exponent - 1, kOctaves - 1);
  int sub = static_cast<int>((fraction * 2.0 - 1.0) * kSubBuckets);
  if (exponent - 1 >= kOctaves) sub = kSubBuckets - 1;
  return static_cast<size_t>(octave) * kSubBuckets + std::clamp(sub, 0, kSubBuckets - 1);
}

double LatencyHistogram::bucket_low_s(size_t bucket) {
  int octave = static_cast<int>(bucket / kSubBuckets);
  int sub = static_cast<int>(bucket % kSubBuckets);
  return std::ldexp(1.0 + static_cast<double>(sub) / kSubBuckets, octave) * kUnitS;
}

void LatencyHistogram::record(double seconds) {
  ++counts_[bucket_of(seconds)];
  if (count_ == 0 || seconds < min_s_) min_s_ = seconds;
  max_s_ = std::max(max_s_, seconds);
  sum_s_ += seconds;
  ++count_;
}

void LatencyHistogram::merge(const LatencyHistogram& other) {
  for (size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
  if (other.count_) {
    min_s_ = count_ ? std::min(min_s_, other.min_s_) : other.min_s_;
    max_s_ = std::max(max_s_, other.max_s_);
  }
  sum_s_ += other.sum_s_;
  count_ += other.count_;
}

void LatencyHistogram::clear() { *this = LatencyHistogram(); }

double LatencyHistogram::quantile_s(double q) const {
  if (count_ == 0) return 0.0;
  auto rank = static_cast<std::uint64_t>(std::ceil(std::clamp(q, 0.0, 1.0) * static_cast<double>(count_)));
  rank = std::max<std::uint64_t>(rank, 1);
  std::uint64_t seen = 0;
  for (size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= rank) {
      double mid = 0.5 * (bucket_low_s(i) + bucket_low_s(i + 1));
      return std::clamp(mid, min_s_, max_s_);
    }
  }
  return max_s_;
}

nlohmann::json LatencyHistogram::to_json() const {
  auto buckets = nlohmann::json::array();
  for (size_t i = 0; i < counts_.size(); ++i)
    if (counts_[i]) buckets.push_back({bucket_low_s(i + 1), counts_[i]});
  return buckets;
}

double student_t_quantile(double confidence, int dof) {
  // Upper (1+confidence)/2 quantile: the normal quantile by Newton's method on erfc, corrected for
  // dof with the Cornish-Fisher expansion (Abramowitz & Stegun 26.7.5).
  double p = 0.5 * (1.0 + confidence);
  double z = 0.0;
  for (int i = 0; i < 60; ++i) {  // Newton on Phi(z) = p
    double cdf = 0.5 * std::erfc(-z / std::sqrt(2.0));
    double pdf = std::exp(-0.5 * z * z) / std::sqrt(2.0 * M_PI);
    z -= (cdf - p) / pdf;
  }
  if (dof <= 0) return z;
  double n = dof;
  double z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z, z9 = z7 * z * z;
  return z + (z3 + z) / (4 * n) + (5 * z5 + 16 * z3 + 3 * z) / (96 * n * n) +
         (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * n * n * n) +
         (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / (92160 * n * n * n * n);
}

bool lag_one_correlated(const std::vector<double>& series, double significance) {
  const size_t k = series.size();
  if (k < 3) return false;
  double mean = 0;
  for (double v : series) mean += v;
  mean /= static_cast<double>(k);
  double squares = 0, successive = 0;
  for (size_t i = 0; i < k; ++i) {
    squares += (series[i] - mean) * (series[i] - mean);
    if (i + 1 < k) successive += (series[i + 1] - series[i]) * (series[i + 1] - series[i]);
  }
  if (!(squares > 0)) return false;
  const double c = 1 - successive / (2 * squares);
  const double kd = static_cast<double>(k);
  return std::abs(c) > student_t_quantile(1 - significance, 0) * std::sqrt((kd - 2) / (kd * kd - 1));
}

Estimate BatchMeans::estimate(double confidence) const {
  constexpr size_t kMinCiBatches = 10;            // Schmeiser 1982
  constexpr double kIndependenceSignificance = 0.10;  // LABATCH.2's level
  Estimate e;
  e.batches = static_cast<int>(values_.size());
  if (values_.empty()) return e;
  double sum = 0;
  for (double v : values_) sum += v;
  e.mean = sum / values_.size();
  if (values_.size() < 2) return e;
  // Batch sizes double, as LABATCH.2's do: each level averages the previous one's most recent
  // entries in pairs (the last k x m batches, m at a time), so a call costs a few passes over the
  // batches however far it merges, and batches that pass at once are not copied.
  std::vector<double> merged;
  const std::vector<double>* ci_batches = &values_;
  size_t m = 1;
  while (ci_batches->size() / 2 >= kMinCiBatches && lag_one_correlated(*ci_batches, kIndependenceSignificance)) {
    const std::vector<double>& from = *ci_batches;
    const size_t k = from.size() / 2, skip = from.size() - 2 * k;
    std::vector<double> next(k);
    for (size_t i = 0; i < k; ++i) next[i] = (from[skip + 2 * i] + from[skip + 2 * i + 1]) / 2;
    merged = std::move(next);
    ci_batches = &merged;
    m *= 2;
  }
  const size_t k = ci_batches->size();
  double merged_mean = 0;
  for (double v : *ci_batches) merged_mean += v;
  merged_mean /= static_cast<double>(k);
  double squares = 0;
  for (double v : *ci_batches) squares += (v - merged_mean) * (v - merged_mean);
  double sd = std::sqrt(squares / static_cast<double>(k - 1));
  e.batches_per_ci_batch = static_cast<int>(m);
  e.half_width = student_t_quantile(confidence, static_cast<int>(k) - 1) * sd / std::sqrt(static_cast<double>(k));
  return e;
}

size_t mser_truncation(const std::vector<double>& series, size_t min_kept) {
  size_t n = series.size();
  if (n <= min_kept) return 0;
  // Suffix sums give every candidate's mean and variance in one pass from the end.
  double sum = 0, sum_sq = 0, best = std::numeric_limits<double>::infinity();
  size_t best_d = 0;
  for (size_t d = n; d-- > 0;) {
    sum += series[d];
    sum_sq += series[d] * series[d];
    size_t kept = n - d;
    if (kept < min_kept) continue;
    double mean = sum / kept;
    double statistic = std::max(0.0, sum_sq / kept - mean * mean) / kept;
    if (statistic <= best) {
      best = statistic;
      best_d = d;
    }
  }
  return best_d;
}

}  // namespace poolsim
