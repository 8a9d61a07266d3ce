// Empirical token frequencies against the expected truncated softmax. The expectation is
// computed here independently: double precision, one full sort, each filter as a mask over
// the whole vocabulary. Counts are compared with a chi-square bound at p ~ 1e-6, so a fixed
// seed passing is no accident and a wrong distribution fails.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "runtime/sampling/sampler.h"

namespace pagedserve {
namespace {

// Renormalises p over the tokens still kept; the rest become 0.
void renormalise(std::vector<double>& p, const std::vector<bool>& kept) {
  double sum = 0.0;
  for (std::size_t i = 0; i < p.size(); ++i) sum += kept[i] ? p[i] : 0.0;
  for (std::size_t i = 0; i < p.size(); ++i) p[i] = kept[i] ? p[i] / sum : 0.0;
}

std::vector<double> expected_distribution(const std::vector<float>& logits,
                                          const sampling_params& params) {
  const std::size_t vocab = logits.size();
  const double max_logit = *std::max_element(logits.begin(), logits.end());
  std::vector<double> p(vocab);
  for (std::size_t i = 0; i < vocab; ++i) {
    p[i] = std::exp((logits[i] - max_logit) / static_cast<double>(params.temperature));
  }
  std::vector<bool> kept(vocab, true);
  renormalise(p, kept);
  std::vector<std::size_t> order(vocab);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return p[a] > p[b]; });
  if (params.top_k_enabled()) {
    for (std::size_t r = static_cast<std::size_t>(params.top_k); r < vocab; ++r) {
      kept[order[r]] = false;
    }
    renormalise(p, kept);
  }
  if (params.top_p_enabled()) {
    double cumulative = 0.0;
    for (std::size_t i : order) {
      if (!kept[i]) continue;
      if (cumulative >= params.top_p) {
        kept[i] = false;
      } else {
        cumulative += p[i];
        // The cut must not sit within rounding of top_p, or the case tests nothing.
        EXPECT_GT(std::abs(cumulative - params.top_p), 1e-6) << "borderline test case";
      }
    }
    renormalise(p, kept);
  }
  if (params.min_p_enabled()) {
    const double p_max = *std::max_element(p.begin(), p.end());
    for (std::size_t i = 0; i < vocab; ++i) kept[i] = kept[i] && p[i] >= params.min_p * p_max;
    renormalise(p, kept);
  }
  return p;
}

// Upper quantile of chi-square with `df` degrees of freedom at the normal deviate z
// (Wilson-Hilferty approximation; z = 4.75 is p ~ 1e-6).
double chi_square_bound(std::size_t df, double z = 4.75) {
  const double k = static_cast<double>(df);
  const double c = 2.0 / (9.0 * k);
  return k * std::pow(1.0 - c + z * std::sqrt(c), 3.0);
}

void expect_matches_distribution(const std::vector<float>& logits, const sampling_params& params,
                                 int num_draws) {
  const std::vector<double> expected = expected_distribution(logits, params);
  std::vector<int> counts(logits.size(), 0);
  sampler_state state = sampler_state::create(params, 0);
  for (int d = 0; d < num_draws; ++d)
    ++counts[static_cast<std::size_t>(sample(logits, params, state))];

  double chi_square = 0.0;
  std::size_t num_kept = 0;
  for (std::size_t i = 0; i < logits.size(); ++i) {
    if (expected[i] == 0.0) {
      EXPECT_EQ(counts[i], 0) << "token " << i << " is outside the truncated distribution";
      continue;
    }
    ++num_kept;
    const double e = expected[i] * num_draws;
    chi_square += (counts[i] - e) * (counts[i] - e) / e;
  }
  if (num_kept > 1) {
    EXPECT_LT(chi_square, chi_square_bound(num_kept - 1)) << "over " << num_kept << " tokens";
  }
}

const std::vector<float> k_small_logits{1.0f, 2.5f,  -0.5f, 2.0f, 0.3f,
                                        3.1f, -2.0f, 1.7f,  0.9f, 2.2f};

TEST(Distribution, PlainSoftmax) {
  expect_matches_distribution(k_small_logits, {.temperature = 1.0f, .seed = 1}, 20000);
}

TEST(Distribution, LowAndHighTemperature) {
  expect_matches_distribution(k_small_logits, {.temperature = 0.4f, .seed = 2}, 20000);
  expect_matches_distribution(k_small_logits, {.temperature = 3.0f, .seed = 3}, 20000);
}

TEST(Distribution, TopK) {
  expect_matches_distribution(k_small_logits, {.temperature = 0.7f, .top_k = 4, .seed = 4}, 20000);
}

TEST(Distribution, TopP) {
  expect_matches_distribution(k_small_logits, {.temperature = 1.5f, .top_p = 0.8f, .seed = 5},
                              20000);
}

TEST(Distribution, MinP) {
  expect_matches_distribution(k_small_logits, {.temperature = 1.0f, .min_p = 0.2f, .seed = 6},
                              20000);
}

TEST(Distribution, TopKThenTopPThenMinP) {
  expect_matches_distribution(
      k_small_logits, {.temperature = 1.2f, .top_p = 0.9f, .top_k = 7, .min_p = 0.15f, .seed = 7},
      20000);
}

std::vector<float> normal_logits(std::size_t vocab, float sd, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal(0.0f, sd);
  std::vector<float> logits(vocab);
  for (float& l : logits) l = normal(gen);
  return logits;
}

TEST(Distribution, LargeNucleus) {
  // 300 tokens of similar weight: the nucleus holds ~250, spread over several power-of-two
  // weight ranges, more than the sampler sorts at once.
  expect_matches_distribution(normal_logits(300, 0.7f, 11),
                              {.temperature = 1.0f, .top_p = 0.9f, .seed = 8}, 15000);
}

TEST(Distribution, FewLiveTokensSpreadOverALargeVocabulary) {
  // Every logit -inf but twelve, placed at the edges of the sampler's 1024-token blocks.
  std::vector<float> logits(5000, -std::numeric_limits<float>::infinity());
  const std::size_t live[] = {0, 5, 1023, 1024, 1500, 2047, 2048, 3071, 3072, 4095, 4096, 4999};
  for (std::size_t i = 0; i < std::size(live); ++i) {
    logits[live[i]] = static_cast<float>(i % 5) * 0.4f;
  }
  expect_matches_distribution(logits, {.temperature = 1.0f, .seed = 10}, 5000);
  expect_matches_distribution(logits, {.temperature = 0.7f, .min_p = 0.3f, .seed = 11}, 5000);
  expect_matches_distribution(logits, {.temperature = 1.0f, .top_p = 0.7f, .seed = 12}, 5000);
}

TEST(Distribution, LargeTopKThenTopP) {
  // 600 tokens (not a multiple of the top-k scan's block of 16); top-k keeps 60.
  expect_matches_distribution(normal_logits(600, 1.0f, 12),
                              {.temperature = 0.9f, .top_p = 0.95f, .top_k = 60, .seed = 9}, 12000);
}

}  // namespace
}  // namespace pagedserve
