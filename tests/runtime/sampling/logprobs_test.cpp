// compute_logprobs against a log-softmax computed here in long double.

#include "runtime/sampling/logprobs.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace pagedserve {
namespace {

constexpr float k_inf = std::numeric_limits<float>::infinity();
constexpr float k_nan = std::numeric_limits<float>::quiet_NaN();

std::vector<double> reference_log_softmax(const std::vector<float>& logits) {
  long double sum = 0.0L;
  for (float l : logits) sum += std::exp(static_cast<long double>(l));
  std::vector<double> out;
  for (float l : logits) out.push_back(static_cast<double>(l - std::log(sum)));
  return out;
}

TEST(Logprobs, MatchLogSoftmaxForChosenAndTopTokens) {
  std::mt19937 gen(5);
  std::normal_distribution<float> normal(0.0f, 4.0f);
  std::vector<float> logits(3000);
  for (float& l : logits) l = normal(gen);
  const std::vector<double> expected = reference_log_softmax(logits);

  const logprobs_result r = compute_logprobs(logits, 1234, 5);
  EXPECT_NEAR(r.chosen_logprob, expected[1234], 1e-5 * (1.0 + std::abs(expected[1234])));
  int rank = 1;
  for (double e : expected) rank += e > expected[1234] ? 1 : 0;
  EXPECT_EQ(r.chosen_rank, rank);

  ASSERT_EQ(r.top.size(), 5u);
  std::vector<double> sorted = expected;
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  for (std::size_t i = 0; i < 5; ++i) {
    const auto id = static_cast<std::size_t>(r.top[i].token);
    EXPECT_EQ(expected[id], sorted[i]) << "rank " << i;
    EXPECT_NEAR(r.top[i].logprob, expected[id], 1e-5 * (1.0 + std::abs(expected[id])));
  }
}

TEST(Logprobs, LargeLogitsDoNotOverflow) {
  const std::vector<float> logits{1000.0f, 999.0f, 998.0f};
  const logprobs_result r = compute_logprobs(logits, 2, 3);
  // log_softmax is shift invariant: same as for logits {2, 1, 0}.
  const std::vector<double> expected = reference_log_softmax({2.0f, 1.0f, 0.0f});
  EXPECT_NEAR(r.chosen_logprob, expected[2], 1e-6);
  EXPECT_NEAR(r.top[0].logprob, expected[0], 1e-6);
  EXPECT_EQ(r.chosen_rank, 3);
}

TEST(Logprobs, TiesRankByLowerIdAndTopIsClampedToVocab) {
  const std::vector<float> logits{0.0f, 1.0f, 1.0f};
  const logprobs_result r = compute_logprobs(logits, 2, 10);
  ASSERT_EQ(r.top.size(), 3u);
  EXPECT_EQ(r.top[0].token, 1);
  EXPECT_EQ(r.top[1].token, 2);
  EXPECT_EQ(r.top[2].token, 0);
  EXPECT_EQ(r.chosen_rank, 1);  // nothing is strictly more likely than token 2
  EXPECT_TRUE(compute_logprobs(logits, 0, 0).top.empty());
}

TEST(Logprobs, NanIsMinusInfinityAndPositiveInfinitySharesTheMass) {
  const logprobs_result with_nan = compute_logprobs(std::vector<float>{0.0f, k_nan, 0.0f}, 1, 3);
  EXPECT_EQ(with_nan.chosen_logprob, -k_inf);
  EXPECT_NEAR(with_nan.top[0].logprob, std::log(0.5), 1e-7);
  EXPECT_EQ(with_nan.top[2].token, 1);

  const std::vector<float> with_inf{k_inf, 5.0f, k_inf, -k_inf};
  EXPECT_NEAR(compute_logprobs(with_inf, 2, 0).chosen_logprob, std::log(0.5), 1e-7);
  EXPECT_EQ(compute_logprobs(with_inf, 1, 0).chosen_logprob, -k_inf);
  EXPECT_EQ(compute_logprobs(with_inf, 1, 0).chosen_rank, 3);

  const logprobs_result nothing = compute_logprobs(std::vector<float>{-k_inf, k_nan}, 0, 2);
  EXPECT_EQ(nothing.chosen_logprob, -k_inf);
  EXPECT_EQ(nothing.top[1].logprob, -k_inf);
}

}  // namespace
}  // namespace pagedserve
