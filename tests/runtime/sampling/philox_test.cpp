// Philox-4x32-10 against Random123's published known-answer vectors (kat_vectors), and the
// uniform derived from it.

#include "runtime/sampling/philox.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>

namespace pagedserve {
namespace {

TEST(Philox, MatchesRandom123KnownAnswers) {
  EXPECT_EQ(philox4x32_10({0, 0, 0, 0}, {0, 0}),
            (philox_counter{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(
      philox4x32_10({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}),
      (philox_counter{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(
      philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}),
      (philox_counter{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

TEST(Philox, IsUsableAtCompileTime) {
  static_assert(philox4x32_10({0, 0, 0, 0}, {0, 0})[0] == 0x6627e8d5);
  static_assert(philox_uniform(1, 2, 3) >= 0.0 && philox_uniform(1, 2, 3) < 1.0);
}

TEST(Philox, UniformTakesTheTop53BitsOfTheFirstTwoWords) {
  // seed 0, sequence 0, draw 0 is the all-zero counter and key of the first vector.
  const std::uint64_t bits = (std::uint64_t{0x6627e8d5} << 32) | 0xe169c58d;
  EXPECT_EQ(philox_uniform(0, 0, 0), static_cast<double>(bits >> 11) * 0x1.0p-53);
}

TEST(Philox, UniformLooksUniform) {
  constexpr int num_draws = 20000;
  constexpr int num_bins = 10;
  int counts[num_bins] = {};
  double sum = 0.0;
  for (int d = 0; d < num_draws; ++d) {
    const double u = philox_uniform(42, 7, static_cast<std::uint64_t>(d));
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
    ++counts[static_cast<int>(u * num_bins)];
  }
  EXPECT_NEAR(sum / num_draws, 0.5, 0.01);  // sd of the mean is 0.002
  for (int count : counts) EXPECT_NEAR(count, num_draws / num_bins, 250);  // ~6 sd
}

TEST(Philox, SeedSequenceAndDrawEachChangeTheStream) {
  std::set<double> seen;
  for (std::uint64_t seed : {0ull, 1ull, 1ull << 32}) {
    for (std::uint64_t seq : {0ull, 1ull, 1ull << 32}) {
      for (std::uint64_t draw : {0ull, 1ull, 1ull << 32}) {
        seen.insert(philox_uniform(seed, seq, draw));
      }
    }
  }
  EXPECT_EQ(seen.size(), 27u);
}

}  // namespace
}  // namespace pagedserve
