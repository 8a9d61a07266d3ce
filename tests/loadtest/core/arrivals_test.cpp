#include "loadtest/core/arrivals.h"

#include <gtest/gtest.h>

#include <cmath>

namespace pagedserve::loadtest {
namespace {

struct gap_stats {
  double mean = 0.0;
  double cv = 0.0;          // standard deviation / mean
  double below_mean = 0.0;  // fraction of gaps shorter than the mean
};

gap_stats stats_of(const std::vector<double>& offsets) {
  std::vector<double> gaps;
  for (std::size_t i = 1; i < offsets.size(); ++i) {
    gaps.push_back(offsets[i] - offsets[i - 1]);
  }
  gap_stats s;
  for (double g : gaps) {
    s.mean += g;
  }
  s.mean /= static_cast<double>(gaps.size());
  double var = 0.0;
  for (double g : gaps) {
    var += (g - s.mean) * (g - s.mean);
    s.below_mean += g < s.mean ? 1.0 : 0.0;
  }
  s.cv = std::sqrt(var / static_cast<double>(gaps.size())) / s.mean;
  s.below_mean /= static_cast<double>(gaps.size());
  return s;
}

constexpr std::size_t num_gaps = 20000;

TEST(LoadtestArrivals, InfiniteRateSendsEverythingAtOnce) {
  const auto offsets = arrival_offsets(5, {}, 1);
  EXPECT_EQ(offsets, std::vector<double>(5, 0.0));
  EXPECT_TRUE(arrival_offsets(0, {.request_rate = 2.0, .burstiness = 1.0}, 1).empty());
}

TEST(LoadtestArrivals, PoissonGapsAreExponential) {
  const auto offsets = arrival_offsets(num_gaps + 1, {.request_rate = 10.0, .burstiness = 1.0}, 1);
  ASSERT_EQ(offsets.size(), num_gaps + 1);
  EXPECT_EQ(offsets[0], 0.0);
  for (std::size_t i = 1; i < offsets.size(); ++i) {
    ASSERT_GE(offsets[i], offsets[i - 1]);
  }
  const gap_stats s = stats_of(offsets);
  EXPECT_NEAR(s.mean, 0.1, 0.1 * 0.03);
  EXPECT_NEAR(s.cv, 1.0, 0.05);
  // P(X < mean) for an exponential is 1 - 1/e.
  EXPECT_NEAR(s.below_mean, 1.0 - std::exp(-1.0), 0.01);
}

TEST(LoadtestArrivals, BurstinessSetsTheCoefficientOfVariation) {
  // Gamma(k, 1/(rate k)): mean 1/rate for any k, CV 1/sqrt(k).
  for (double k : {4.0, 0.5}) {
    const gap_stats s = stats_of(arrival_offsets(num_gaps + 1, {4.0, k}, 9));
    EXPECT_NEAR(s.mean, 0.25, 0.25 * 0.03) << k;
    EXPECT_NEAR(s.cv, 1.0 / std::sqrt(k), 0.05 / std::sqrt(k)) << k;
  }
}

TEST(LoadtestArrivals, SeedDecidesTheTimes) {
  const arrival_spec spec{.request_rate = 3.0, .burstiness = 0.7};
  EXPECT_EQ(arrival_offsets(100, spec, 5), arrival_offsets(100, spec, 5));
  EXPECT_NE(arrival_offsets(100, spec, 5), arrival_offsets(100, spec, 6));
}

}  // namespace
}  // namespace pagedserve::loadtest
