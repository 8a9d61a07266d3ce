// token_metrics against values computed by hand from the published formulas:
//   log_softmax(x)_i = x_i - log sum_j exp(x_j);  nll = -log p_t;  KL(p||q) = sum p_i log(p_i/q_i)

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "runtime/eval/token_metrics.h"

namespace pagedserve::eval {
namespace {

// Logits whose softmax is exactly `probs` (log of each; the normalizer is 0 when they sum to 1).
std::vector<float> logits_of(const std::vector<double>& probs) {
  std::vector<float> logits;
  for (const double p : probs) logits.push_back(static_cast<float>(std::log(p)));
  return logits;
}

std::vector<double> log_probs(const std::vector<float>& logits) {
  std::vector<double> out;
  log_softmax(logits, out);
  return out;
}

TEST(TokenMetrics, LogSumExpOfFourEqualLogitsIsLogFour) {
  EXPECT_NEAR(log_sum_exp(std::vector<float>{2.5f, 2.5f, 2.5f, 2.5f}), 2.5 + std::log(4.0), 1e-12);
}

TEST(TokenMetrics, LogSumExpDoesNotOverflowOnLargeLogits) {
  // log(e^1000 + e^1000) = 1000 + ln 2 = 1000.6931471805599
  EXPECT_NEAR(log_sum_exp(std::vector<float>{1000.0f, 1000.0f}), 1000.6931471805599, 1e-9);
}

TEST(TokenMetrics, LogSoftmaxOfEqualLogitsIsMinusLogN) {
  for (const double lp : log_probs(std::vector<float>(8, -3.0f))) {
    EXPECT_NEAR(lp, -std::log(8.0), 1e-12);
  }
}

TEST(TokenMetrics, NllIsMinusLogOfTheTargetsProbability) {
  // softmax(log 1, log 2, log 3, log 4) = (0.1, 0.2, 0.3, 0.4); -ln 0.3 = 1.2039728043259361
  const std::vector<float> logits{0.0f, std::log(2.0f), std::log(3.0f), std::log(4.0f)};
  EXPECT_NEAR(negative_log_likelihood(logits, 2), 1.2039728043259361, 1e-7);
}

TEST(TokenMetrics, NllOfAUniformRowIsLogVocab) {
  EXPECT_NEAR(negative_log_likelihood(std::vector<float>(512, 0.75f), 17), std::log(512.0), 1e-12);
}

TEST(TokenMetrics, KlOfTwoKnownDistributions) {
  // p = (1/2, 1/2), q = (1/4, 3/4):
  // KL = 1/2 ln((1/2)/(1/4)) + 1/2 ln((1/2)/(3/4)) = 1/2 ln(4/3) = 0.14384103622589042
  const auto p = log_probs(logits_of({0.5, 0.5}));
  const auto q = log_probs(logits_of({0.25, 0.75}));
  EXPECT_NEAR(kl_divergence(p, q), 0.14384103622589042, 1e-7);
}

TEST(TokenMetrics, KlAgainstUniform) {
  // p = (0.1, 0.2, 0.7), q uniform over 3: KL = sum p_i ln(3 p_i)
  //   = 0.1 ln 0.3 + 0.2 ln 0.6 + 0.7 ln 2.1 = 0.2967937361247722
  const auto p = log_probs(logits_of({0.1, 0.2, 0.7}));
  const auto q = log_probs(std::vector<float>(3, 0.0f));
  EXPECT_NEAR(kl_divergence(p, q), 0.2967937361247722, 1e-7);
}

TEST(TokenMetrics, KlIsAsymmetric) {
  // KL(q || p) for the pair above = 1/4 ln(1/2) + 3/4 ln(3/2) = 0.13081203594113697
  const auto p = log_probs(logits_of({0.5, 0.5}));
  const auto q = log_probs(logits_of({0.25, 0.75}));
  EXPECT_NEAR(kl_divergence(q, p), 0.13081203594113694, 1e-7);
}

TEST(TokenMetrics, KlOfIdenticalRowsIsExactlyZero) {
  const auto p = log_probs(std::vector<float>{0.3f, -1.7f, 4.2f, 0.0f});
  EXPECT_EQ(kl_divergence(p, p), 0.0);
}

TEST(TokenMetrics, KlSkipsTermsWhoseProbabilityUnderflows) {
  // p = (1, e^-2000 ~ 0): the second term is 0 * (...) = 0, not NaN; KL = ln(1/q_0) = ln 2.
  const auto p = log_probs(std::vector<float>{0.0f, -2000.0f});
  const auto q = log_probs(std::vector<float>{0.0f, 0.0f});
  EXPECT_NEAR(kl_divergence(p, q), std::log(2.0), 1e-12);
}

TEST(TokenMetrics, ArgmaxTakesTheFirstOfEqualMaxima) {
  EXPECT_EQ(argmax(std::vector<float>{1.0f, 3.0f, 3.0f, 2.0f}), 1u);
  EXPECT_EQ(argmax(std::vector<float>{-5.0f}), 0u);
}

TEST(TokenMetrics, MaxAbsDifferenceIsOverEveryEntry) {
  EXPECT_EQ(max_abs_difference(std::vector<float>{1.0f, -2.0f, 3.0f},
                               std::vector<float>{1.5f, 2.0f, 3.0f}),
            4.0);
  EXPECT_EQ(max_abs_difference(std::vector<float>{7.0f}, std::vector<float>{7.0f}), 0.0);
}

}  // namespace
}  // namespace pagedserve::eval
