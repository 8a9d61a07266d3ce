// The sampler's vectorisable exp against std::exp in double precision.

#include "runtime/sampling/fast_exp.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace pagedserve::sampling_detail {
namespace {

TEST(FastExp, WithinFourTenthsOfAMillionthRelativeOnItsRange) {
  double worst = 0.0;
  for (float x = 0.0f; x > -87.0f; x = std::nextafter(x - 1e-3f, -100.0f)) {
    const double exact = std::exp(static_cast<double>(x));
    worst = std::max(worst, std::abs(exp_nonpositive(x) - exact) / exact);
  }
  EXPECT_LT(worst, 4e-7);
}

TEST(FastExp, ExactAtZeroAndZeroBelowRangeOrForNan) {
  EXPECT_EQ(exp_nonpositive(0.0f), 1.0f);
  EXPECT_EQ(exp_nonpositive(-0.0f), 1.0f);
  EXPECT_EQ(exp_nonpositive(-87.5f), 0.0f);
  EXPECT_EQ(exp_nonpositive(-std::numeric_limits<float>::infinity()), 0.0f);
  EXPECT_EQ(exp_nonpositive(std::numeric_limits<float>::quiet_NaN()), 0.0f);
}

TEST(FastExp, ShiftedSumMatchesDoubleReference) {
  std::vector<float> logits;
  for (int i = 0; i < 1000; ++i) logits.push_back(static_cast<float>(i % 97) * 0.3f - 20.0f);
  double exact = 0.0;
  for (float l : logits) exact += std::exp(static_cast<double>(l) - 8.8);
  EXPECT_NEAR(sum_exp_shifted(logits, 8.8f) / exact, 1.0, 1e-6);
}

}  // namespace
}  // namespace pagedserve::sampling_detail
