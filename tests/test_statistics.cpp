#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "sim/statistics.h"

using namespace poolsim;

// Percentiles of the histogram against a known distribution: exponential with mean 1 ms has
// quantile q at -ln(1 - q) ms.
TEST(LatencyHistogram, PercentilesOfAnExponentialDistribution) {
  LatencyHistogram h;
  std::mt19937_64 rng(7);
  std::exponential_distribution<double> exp_ms(1.0 / 1e-3);
  const int samples = 2'000'000;
  for (int i = 0; i < samples; ++i) h.record(exp_ms(rng));
  for (double q : {0.5, 0.95, 0.99}) {
    double expected = -std::log(1 - q) * 1e-3;
    // Bucket resolution 1/128 plus sampling error of the order statistic.
    EXPECT_NEAR(h.quantile_s(q), expected, expected * 0.015) << "q=" << q;
  }
  EXPECT_NEAR(h.mean_s(), 1e-3, 1e-5);
}

TEST(LatencyHistogram, ExactValuesWithinBucketResolution) {
  LatencyHistogram h;
  for (int i = 1; i <= 100; ++i) h.record(i * 1e-6);
  EXPECT_NEAR(h.quantile_s(0.95), 95e-6, 95e-6 / 128);
  EXPECT_NEAR(h.quantile_s(0.99), 99e-6, 99e-6 / 128);
  EXPECT_DOUBLE_EQ(h.max_s(), 100e-6);
}

TEST(StudentT, MatchesTables) {
  EXPECT_NEAR(student_t_quantile(0.95, 9), 2.262, 0.002);
  EXPECT_NEAR(student_t_quantile(0.95, 30), 2.042, 0.002);
  EXPECT_NEAR(student_t_quantile(0.95, 1000000), 1.960, 0.001);
}

TEST(BatchMeans, ConfidenceIntervalOfKnownSample) {
  BatchMeans b;
  for (double v : {9.0, 11.0, 10.0, 10.0, 12.0, 8.0}) b.add(v);
  auto e = b.estimate(0.95);
  EXPECT_DOUBLE_EQ(e.mean, 10.0);
  // sd = sqrt(10/5) = 1.414; t(0.975, 5) = 2.571; hw = 2.571 * 1.414 / sqrt(6)
  EXPECT_NEAR(e.half_width, 2.571 * std::sqrt(2.0) / std::sqrt(6.0), 0.01);
}

TEST(BatchMeans, AlternatingBatchesAreMergedInPairs) {
  // 20 batches alternating about 100 (a run that saws): plainly the interval would be +-0.48; the
  // pairs' means are all 100, so merged two at a time it is 0.
  BatchMeans b;
  for (int i = 0; i < 20; ++i) b.add(i % 2 ? 101.0 : 99.0);
  auto e = b.estimate(0.95);
  EXPECT_DOUBLE_EQ(e.mean, 100.0);
  EXPECT_EQ(e.batches, 20);
  EXPECT_EQ(e.batches_per_ci_batch, 2);
  EXPECT_NEAR(e.half_width, 0.0, 1e-9);
  // With fewer than 20 batches no merge leaves 10: the plain interval.
  BatchMeans few;
  for (int i = 0; i < 19; ++i) few.add(i % 2 ? 101.0 : 99.0);
  EXPECT_EQ(few.estimate(0.95).batches_per_ci_batch, 1);
  EXPECT_GT(few.estimate(0.95).half_width, 0.4);
}

TEST(LagOneCorrelated, RejectsIndependentSeriesAtItsLevel) {
  // The von Neumann test's size: 10 % of independent normal series of 20-30 values are called
  // correlated (4,000 series: +-1.4 points is 3 standard errors).
  std::mt19937_64 rng(7);
  std::normal_distribution<double> normal;
  int rejected = 0;
  const int series = 4000;
  for (int r = 0; r < series; ++r) {
    std::vector<double> x(20 + r % 11);
    for (auto& v : x) v = normal(rng);
    rejected += lag_one_correlated(x, 0.10);
  }
  EXPECT_NEAR(rejected / static_cast<double>(series), 0.10, 0.014);
  std::vector<double> ramp;
  for (int i = 0; i < 20; ++i) ramp.push_back(i);
  EXPECT_TRUE(lag_one_correlated(ramp, 0.10));
  EXPECT_FALSE(lag_one_correlated(std::vector<double>(20, 3.0), 0.10));  // constant: nothing to test
}

namespace {
struct Coverage {
  double merged = 0, plain = 0;                        // share of intervals holding the true mean (0)
  double merged_half_width = 0, plain_half_width = 0;  // mean half-widths
};
// 10,000 runs of 30 batch means from a stationary AR(1) process x[i] = phi x[i-1] + e[i], e standard
// normal: the merged interval (BatchMeans) and the plain one (all 30 as independent).
Coverage ar1_coverage(double phi) {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> normal;
  Coverage c;
  const int runs = 10000, n = 30;
  for (int r = 0; r < runs; ++r) {
    double x = normal(rng) / std::sqrt(1 - phi * phi);  // the stationary distribution
    BatchMeans b;
    double sum = 0, squares = 0;
    std::vector<double> values;
    for (int i = 0; i < n; ++i) {
      x = phi * x + normal(rng);
      b.add(x);
      values.push_back(x);
      sum += x;
    }
    const double mean = sum / n;
    for (double v : values) squares += (v - mean) * (v - mean);
    const double plain = student_t_quantile(0.95, n - 1) * std::sqrt(squares / (n - 1)) / std::sqrt(double(n));
    const auto e = b.estimate(0.95);
    c.merged += std::abs(e.mean) <= e.half_width;
    c.plain += std::abs(mean) <= plain;
    c.merged_half_width += e.half_width;
    c.plain_half_width += plain;
  }
  c.merged /= runs;
  c.plain /= runs;
  c.merged_half_width /= runs;
  c.plain_half_width /= runs;
  std::printf("AR(1) phi %+.1f: coverage merged %.4f plain %.4f, mean half-width merged %.3f plain %.3f\n", phi, c.merged,
              c.plain, c.merged_half_width, c.plain_half_width);
  return c;
}
}  // namespace

TEST(BatchMeans, IntervalCoversTheMeanOfCorrelatedBatches) {
  // Independent batches: the plain t interval is exact (95 %; +-1 point is 4.6 standard errors of
  // 10,000 runs), and merging on the test's false alarms (10 % of runs) costs at most a point of it.
  auto independent = ar1_coverage(0.0);
  EXPECT_NEAR(independent.plain, 0.95, 0.01);
  EXPECT_GE(independent.merged, independent.plain - 0.01);
  EXPECT_NEAR(independent.merged_half_width, independent.plain_half_width, 0.05 * independent.plain_half_width);
  // Anti-correlated batches (a saw): the plain interval covers ~100 % and is too wide; merged, it
  // still covers at least the nominal 95 % at a much smaller width.
  auto saw = ar1_coverage(-0.8);
  EXPECT_GE(saw.merged, 0.95);
  EXPECT_LT(saw.merged_half_width, 0.6 * saw.plain_half_width);
  // Positively correlated batches: the plain interval is too narrow (~75 %); merged, it covers more
  // (with at least 10 merged batches out of 30 it cannot reach 95 % at phi = 0.5).
  auto drift = ar1_coverage(0.5);
  EXPECT_LT(drift.plain, 0.80);
  EXPECT_GT(drift.merged, drift.plain + 0.05);
}

TEST(Mser, FindsTheEndOfATransient) {
  // A ramp over the first 20 batches, then a steady level with alternating noise.
  std::vector<double> series;
  for (int i = 0; i < 20; ++i) series.push_back(5.0 * i);
  for (int i = 0; i < 80; ++i) series.push_back(100.0 + (i % 2 ? 1.0 : -1.0));
  size_t d = mser_truncation(series);
  EXPECT_GE(d, 18u);
  EXPECT_LE(d, 21u);
}

TEST(Mser, SteadySeriesIsNotTruncated) {
  std::vector<double> series;
  for (int i = 0; i < 40; ++i) series.push_back(100.0 + (i % 3) - 1.0);
  EXPECT_LT(2 * mser_truncation(series), series.size());
}
