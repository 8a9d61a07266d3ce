// rope_inv_freq against the formulas of HF's rope init functions, written out in double.

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "runtime/forward/rope_frequencies.h"

namespace pagedserve::forward {
namespace {

TEST(rope_frequencies, standard_is_theta_to_the_minus_2i_over_d) {
  rope_config rope;
  rope.theta = 500000.0;
  const auto f = rope_inv_freq(rope, 64);
  ASSERT_EQ(f.size(), 32U);
  for (std::size_t i = 0; i < f.size(); ++i) {
    EXPECT_FLOAT_EQ(f[i],
                    static_cast<float>(std::pow(500000.0, -2.0 * static_cast<double>(i) / 64)));
  }
}

TEST(rope_frequencies, linear_divides_every_frequency_by_factor) {
  rope_config rope;
  rope.kind = rope_kind::linear;
  rope.factor = 4.0;
  const auto f = rope_inv_freq(rope, 16);
  for (std::size_t i = 0; i < f.size(); ++i) {
    EXPECT_FLOAT_EQ(f[i],
                    static_cast<float>(std::pow(10000.0, -2.0 * static_cast<double>(i) / 16) / 4));
  }
}

TEST(rope_frequencies, llama3_keeps_high_scales_low_and_blends_the_middle_band) {
  rope_config rope;  // Llama-3.2 settings
  rope.kind = rope_kind::llama3;
  rope.theta = 500000.0;
  rope.factor = 32.0;
  rope.low_freq_factor = 1.0;
  rope.high_freq_factor = 4.0;
  rope.original_max_position_embeddings = 8192;
  const auto f = rope_inv_freq(rope, 64);
  int kept = 0;
  int scaled = 0;
  int blended = 0;
  for (std::size_t i = 0; i < f.size(); ++i) {
    const double base = std::pow(500000.0, -2.0 * static_cast<double>(i) / 64);
    const double wavelen = 2 * std::numbers::pi / base;
    double want = base;
    if (wavelen < 8192.0 / 4.0) {
      ++kept;
    } else if (wavelen > 8192.0) {
      want = base / 32.0;
      ++scaled;
    } else {
      const double smooth = (8192.0 / wavelen - 1.0) / 3.0;
      want = (1 - smooth) * base / 32.0 + smooth * base;
      ++blended;
    }
    EXPECT_FLOAT_EQ(f[i], static_cast<float>(want)) << i;
  }
  EXPECT_GT(kept, 0);
  EXPECT_GT(scaled, 0);
  EXPECT_GT(blended, 0);
}

}  // namespace
}  // namespace pagedserve::forward
