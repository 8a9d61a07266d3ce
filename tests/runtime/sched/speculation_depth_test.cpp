// The adaptive depth of speculative decoding (speculation_depth.h, step_cost_curve.h):
// for one sequence the chosen depth maximises expected tokens per second, checked by brute
// force against Leviathan et al.'s expected tokens per step, (1 - a^(k+1)) / (1 - a), over
// the step time t(1 + k); a memory-bound step takes every slot, a compute-bound batch none.

#include <gtest/gtest.h>

#include <cmath>

#include "runtime/sched/speculation_depth.h"

namespace pagedserve::sched {
namespace {

std::vector<std::pair<std::uint32_t, double>> curve_of(double fixed, double per_token) {
  std::vector<std::pair<std::uint32_t, double>> points;
  for (std::uint32_t n : {1u, 2u, 3u, 4u, 6u, 8u, 12u, 16u, 24u, 32u, 64u, 128u, 256u}) {
    points.emplace_back(n, fixed + per_token * n);
  }
  return points;
}

double expected_tokens(double a, std::uint32_t k) {
  return a == 1.0 ? k + 1.0 : (1.0 - std::pow(a, k + 1)) / (1.0 - a);
}

// A step that verifies takes `overhead` more (its rows' logits read back).
TEST(SpeculationDepth, OneSequenceGetsTheDepthWithTheMostTokensPerSecond) {
  for (const double overhead : {0.0, 0.1, 0.3, 0.6, 1.0}) {
    for (const double per_token : {0.01, 0.05, 0.15, 0.4}) {
      for (const double a : {0.2, 0.5, 0.7, 0.9, 0.97}) {
        speculation_depth depth(8);
        depth.seed_costs(curve_of(1.0, per_token), curve_of(1.0 + overhead, per_token));
        std::vector<std::uint32_t> chosen;
        depth.choose(std::vector<speculation_depth::candidate>{{a, 8}}, 1, chosen);
        std::uint32_t best = 0;
        double best_rate = 1.0 / (1.0 + per_token);  // k = 0: an ordinary step
        for (std::uint32_t k = 1; k <= 8; ++k) {
          const double rate = expected_tokens(a, k) / (1.0 + overhead + per_token * (1 + k));
          if (rate > best_rate + 1e-12) {
            best_rate = rate;
            best = k;
          }
        }
        // Also where the first slot does not pay alone (a large overhead) and the best depth
        // lies past it: every depth is weighed, not only up to the first that loses.
        EXPECT_EQ(chosen.at(0), best)
            << "acceptance " << a << ", per token " << per_token << ", overhead " << overhead;
      }
    }
  }
}

TEST(SpeculationDepth, MemoryBoundStepsTakeEverySlotComputeBoundOnesNone) {
  speculation_depth depth(4);
  depth.seed_costs(curve_of(2.0, 0.01), curve_of(2.0, 0.01));  // reading weights dominates
  std::vector<std::uint32_t> chosen;
  const std::vector<speculation_depth::candidate> one{{0.8, 4}};
  depth.choose(one, 1, chosen);
  EXPECT_EQ(chosen.at(0), 4u);
  // 16 sequences on a step whose time is mostly per token: a slot costs about what a token
  // earns, so none pays unless nearly every proposal is accepted.
  speculation_depth busy(4);
  busy.seed_costs(curve_of(0.1, 1.0), curve_of(0.1, 1.0));
  const std::vector<speculation_depth::candidate> sixteen(16, {0.7, 4});
  busy.choose(sixteen, 16, chosen);
  for (const std::uint32_t d : chosen) EXPECT_EQ(d, 0u);
  // The per-sequence cap (max_tokens left) holds.
  depth.choose(std::vector<speculation_depth::candidate>{{0.9, 2}}, 1, chosen);
  EXPECT_EQ(chosen.at(0), 2u);
}

// Acceptance that goes on once it started: the engine-wide rates past the first proposed
// token carry a sequence's first-token rate, so the depth follows them. With a = 0.5 at
// every position (the geometric model) the best depth here is 2; when every proposal that
// got past its first token was accepted to the end, it is the most (8); when none did, 1.
TEST(SpeculationDepth, LaterPositionsAcceptedMoreOftenMakeItDeeper) {
  const std::vector<speculation_depth::candidate> one{{0.5, 8}};
  std::vector<std::uint32_t> chosen;
  speculation_depth geometric(8);
  geometric.seed_costs(curve_of(1.0, 0.15), curve_of(1.0, 0.15));
  geometric.choose(one, 1, chosen);
  EXPECT_EQ(chosen.at(0), 2u);
  speculation_depth goes_on(8);
  goes_on.seed_costs(curve_of(1.0, 0.15), curve_of(1.0, 0.15));
  for (int i = 0; i < 100; ++i) goes_on.observe_run(8, i % 2 == 0 ? 8 : 0);
  goes_on.choose(one, 1, chosen);
  EXPECT_EQ(chosen.at(0), 8u);
  speculation_depth stops(8);
  stops.seed_costs(curve_of(1.0, 0.15), curve_of(1.0, 0.15));
  for (int i = 0; i < 100; ++i) stops.observe_run(8, 1);
  stops.choose(one, 1, chosen);
  EXPECT_EQ(chosen.at(0), 1u);
}

// t is measured only by steps without slots, v only by steps with them: each is refreshed
// after k_decode_refresh (24) choices without, so neither can go stale and price slots
// wrongly for good.
TEST(SpeculationDepth, StaleCostsAreMeasuredAgain) {
  speculation_depth depth(4);
  depth.seed_costs(curve_of(2.0, 0.01), curve_of(2.0, 0.01));
  std::vector<std::uint32_t> chosen;
  const std::vector<speculation_depth::candidate> one{{0.8, 4}};
  int plain = 0;
  for (int i = 0; i < 50; ++i) {
    depth.choose(one, 1, chosen);
    if (chosen.at(0) == 0) ++plain;
    if (chosen.at(0) == 0) depth.observe_step(1, 2.01, false);  // the plain step measures t
  }
  EXPECT_EQ(plain, 2) << "every 25th choice runs without slots";
  // Verification priced out by a stray slow step: after 24 choices one slot is tried.
  speculation_depth priced_out(4);
  priced_out.seed_costs(curve_of(2.0, 0.01), curve_of(9.0, 0.01));
  int tried = 0;
  for (int i = 0; i < 50; ++i) {
    priced_out.choose(one, 1, chosen);
    priced_out.observe_step(1, 2.01, false);
    tried += static_cast<int>(chosen.at(0));
  }
  EXPECT_EQ(tried, 2);
}

TEST(StepCostCurve, LearnsMeasuredSizesAndFollowsThePriorBeyondThem) {
  step_cost_curve c(0.1);
  EXPECT_DOUBLE_EQ(c.seconds(10) / c.seconds(0), 2.0);  // nothing measured: the prior
  for (int i = 0; i < 50; ++i) c.observe(1, 2.0);
  EXPECT_NEAR(c.seconds(1), 2.0, 1e-9);
  // One measured size: the prior's shape through it.
  EXPECT_NEAR(c.seconds(11), 2.0 * (1 + 0.1 * 11) / (1 + 0.1), 1e-9);
  for (int i = 0; i < 50; ++i) c.observe(5, 4.0);
  EXPECT_NEAR(c.seconds(3), 3.0, 1e-6);  // linear between measured sizes
  // A moving average: the bucket follows what steps take now.
  for (int i = 0; i < 50; ++i) c.observe(5, 6.0);
  EXPECT_NEAR(c.seconds(5), 6.0, 1e-3);
  // Never decreasing between measured sizes, whatever was measured.
  for (int i = 0; i < 50; ++i) c.observe(9, 1.0);
  for (double n = 1; n < 9; n += 0.5) EXPECT_LE(c.seconds(n), c.seconds(n + 0.5) + 1e-9) << n;
  // Sizes above 16 share buckets three significant bits wide.
  EXPECT_EQ(step_cost_curve::bucket_of(16), 16u);
  EXPECT_EQ(step_cost_curve::bucket_of(37), 32u);  // buckets 32, 40, 48, 56, 64, 80, ...
  EXPECT_EQ(step_cost_curve::bucket_of(41), 40u);
  EXPECT_EQ(step_cost_curve::bucket_of(300), 256u);
}

}  // namespace
}  // namespace pagedserve::sched
