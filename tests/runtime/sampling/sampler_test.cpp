// The sampler's choices: greedy, truncation (top-k, top-p, min-p), seeding, non-finite
// logits. Distributions are checked in distribution_test.cpp.

#include "runtime/sampling/sampler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace pagedserve {
namespace {

constexpr float k_inf = std::numeric_limits<float>::infinity();
constexpr float k_nan = std::numeric_limits<float>::quiet_NaN();

std::vector<float> random_logits(std::size_t vocab, std::uint32_t seed, float scale = 3.0f) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal(0.0f, scale);
  std::vector<float> logits(vocab);
  for (float& l : logits) l = normal(gen);
  return logits;
}

std::vector<token_id> sample_many(std::span<const float> logits, const sampling_params& params,
                                  sampler_state state, int num) {
  std::vector<token_id> tokens;
  for (int i = 0; i < num; ++i) tokens.push_back(sample(logits, params, state));
  return tokens;
}

TEST(Greedy, PicksArgmaxAndLowestIndexOnTies) {
  EXPECT_EQ(greedy_sample(std::vector<float>{0.1f, 3.0f, -2.0f, 2.9f}), 1);
  EXPECT_EQ(greedy_sample(std::vector<float>{1.0f, 5.0f, 5.0f, 5.0f}), 1);
  EXPECT_EQ(greedy_sample(std::vector<float>{7.0f}), 0);
  sampler_state state(1, 0);
  const std::vector<float> tied{-1.0f, 4.0f, 2.0f, 4.0f};
  EXPECT_EQ(sample(tied, {.temperature = 0.0f}, state), 1);
}

TEST(Greedy, StillConsumesADrawSoStreamsStayAlignedWithPosition) {
  sampler_state state(1, 0);
  const std::vector<float> logits{1.0f, 2.0f};
  (void)sample(logits, {.temperature = 0.0f}, state);
  (void)sample(logits, {.temperature = 0.8f}, state);
  EXPECT_EQ(state.num_draws(), 2u);
}

TEST(TopK, OneEqualsGreedyAtAnyTemperature) {
  for (std::uint32_t trial = 0; trial < 20; ++trial) {
    std::vector<float> logits = random_logits(1000, trial);
    if (trial % 2 == 0) logits[700] = logits[300] = 50.0f;  // a tie: lowest index wins
    for (float temperature : {0.05f, 1.0f, 7.0f, 1000.0f}) {
      sampler_state state(trial, 0);
      EXPECT_EQ(sample(logits, {.temperature = temperature, .top_k = 1}, state),
                greedy_sample(logits));
    }
  }
}

TEST(TopP, TinyEqualsGreedyAtAnyTemperature) {
  for (std::uint32_t trial = 0; trial < 20; ++trial) {
    std::vector<float> logits = random_logits(1000, trial);
    if (trial % 2 == 0) logits[900] = logits[100] = 50.0f;
    for (float temperature : {0.05f, 1.0f, 7.0f, 1000.0f}) {
      sampler_state state(trial, 3);
      EXPECT_EQ(sample(logits, {.temperature = temperature, .top_p = 1e-7f}, state),
                greedy_sample(logits));
    }
  }
}

TEST(MinP, OneKeepsOnlyTheMostLikely) {
  const std::vector<float> logits = random_logits(500, 9);
  sampler_state state(5, 0);
  for (token_id t : sample_many(logits, {.temperature = 2.0f, .min_p = 1.0f}, state, 50)) {
    EXPECT_EQ(t, greedy_sample(logits));
  }
}

TEST(Seeding, SameSeedSameTokensDifferentSeedOrSequenceDifferentTokens) {
  const std::vector<float> logits = random_logits(64, 1, 0.5f);  // a flat distribution
  const sampling_params params{.temperature = 1.0f, .seed = 1234};
  const auto a = sample_many(logits, params, sampler_state::create(params, 0), 100);
  const auto b = sample_many(logits, params, sampler_state::create(params, 0), 100);
  const auto other_seq = sample_many(logits, params, sampler_state::create(params, 1), 100);
  sampling_params other_seed = params;
  other_seed.seed = 1235;
  const auto c = sample_many(logits, params, sampler_state::create(other_seed, 0), 100);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  EXPECT_NE(a, other_seq);
}

TEST(Seeding, UnseededStatesDrawFreshSeeds) {
  const sampling_params params;
  EXPECT_NE(sampler_state::create(params, 0).seed(), sampler_state::create(params, 0).seed());
  EXPECT_EQ(sampler_state::create({.seed = 77}, 3).seed(), 77u);
  EXPECT_EQ(sampler_state::create({.seed = 77}, 3).sequence_index(), 3u);
}

TEST(Seeding, ASequencesTokensIgnoreOtherSequencesAndInterleaving) {
  const std::vector<float> logits_a = random_logits(200, 2, 1.0f);
  const std::vector<float> logits_b = random_logits(300, 3, 1.0f);
  const sampling_params params{.temperature = 0.9f, .top_p = 0.95f, .seed = 99};
  const auto alone = sample_many(logits_a, params, sampler_state::create(params, 0), 40);

  // Same sequence, now sampled in a batch alternating with another sequence (same seed,
  // next index) that uses other logits and other params.
  sampler_state a = sampler_state::create(params, 0);
  sampler_state b = sampler_state::create(params, 1);
  std::vector<token_id> batched;
  for (int step = 0; step < 40; ++step) {
    if (step % 3 == 0) (void)sample(logits_b, {.temperature = 1.5f, .top_k = 5}, b);
    batched.push_back(sample(logits_a, params, a));
    (void)sample(logits_b, params, b);
  }
  EXPECT_EQ(alone, batched);
}

TEST(NonFinite, NanAndNegativeInfinityAreNeverChosen) {
  std::vector<float> logits = random_logits(16, 4, 0.1f);
  logits[0] = k_nan;
  logits[5] = -k_inf;
  logits[9] = k_nan;
  EXPECT_NE(greedy_sample(logits), 0);
  sampler_state state(8, 0);
  for (const sampling_params& params :
       {sampling_params{}, sampling_params{.top_k = 15}, sampling_params{.top_p = 0.99f},
        sampling_params{.min_p = 0.01f}}) {
    for (token_id t : sample_many(logits, params, state, 500)) {
      EXPECT_TRUE(t != 0 && t != 5 && t != 9) << t;
    }
  }
}

TEST(NonFinite, AllNanOrNegativeInfinityGivesTokenZero) {
  sampler_state state(1, 0);
  const std::vector<float> all_nan{k_nan, k_nan, k_nan};
  const std::vector<float> mixed{-k_inf, k_nan, -k_inf};
  EXPECT_EQ(greedy_sample(all_nan), 0);
  EXPECT_EQ(sample(all_nan, {}, state), 0);
  EXPECT_EQ(sample(mixed, {.top_p = 0.5f, .top_k = 2}, state), 0);
}

TEST(NonFinite, PositiveInfinityTokensShareAllTheMass) {
  const std::vector<float> logits{1.0f, k_inf, 1e30f, k_inf, k_nan};
  EXPECT_EQ(greedy_sample(logits), 1);
  sampler_state state(3, 0);
  EXPECT_EQ(sample(logits, {.top_k = 1}, state), 1);
  int num_ones = 0;
  constexpr int num_draws = 2000;
  for (token_id t : sample_many(logits, {.temperature = 0.5f}, state, num_draws)) {
    ASSERT_TRUE(t == 1 || t == 3) << t;
    num_ones += t == 1 ? 1 : 0;
  }
  EXPECT_NEAR(num_ones, num_draws / 2, 150);  // ~6.7 sd
}

}  // namespace
}  // namespace pagedserve
