#include <gtest/gtest.h>

#include <cmath>
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
