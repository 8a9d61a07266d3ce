// eval_accumulator: figures over several positions, against values worked out by hand.

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "runtime/eval/eval_accumulator.h"

namespace pagedserve::eval {
namespace {

// softmax(0, ln 3) = (1/4, 3/4); softmax(0, 0) = (1/2, 1/2).
const std::vector<float> quarter_three_quarters{0.0f, std::log(3.0f)};
const std::vector<float> halves{0.0f, 0.0f};

TEST(EvalAccumulator, PerplexityOfAUniformModelIsTheVocabularySize) {
  eval_accumulator acc;
  acc.add_line();
  const std::vector<float> uniform(512, -1.25f);
  for (token_id next = 0; next < 100; ++next) acc.add_position(uniform, next);
  const eval_summary s = acc.summary();
  EXPECT_EQ(s.num_lines, 1u);
  EXPECT_EQ(s.num_scored_tokens, 100u);
  EXPECT_NEAR(s.perplexity, 512.0, 512.0 * 1e-12);
  EXPECT_FALSE(s.reference.has_value());
}

TEST(EvalAccumulator, PerplexityIsTheGeometricMeanOfInverseProbabilities) {
  // p(next) = 0.4 then 0.1: exp(-(ln 0.4 + ln 0.1) / 2) = (0.04)^(-1/2) = 5
  const std::vector<float> tenths{0.0f, std::log(2.0f), std::log(3.0f), std::log(4.0f)};
  eval_accumulator acc;
  acc.add_position(tenths, 3);
  acc.add_position(tenths, 0);
  EXPECT_NEAR(acc.summary().perplexity, 5.0, 1e-6);
}

TEST(EvalAccumulator, ReferenceFiguresOverTwoPositions) {
  eval_accumulator acc;
  acc.add_line();
  // Position A: both sides (1/4, 3/4), next = 1: same logits, KL 0, argmax agrees.
  acc.add_position(quarter_three_quarters, quarter_three_quarters, 1);
  // Position B: model (1/4, 3/4), reference (1/2, 1/2), next = 0: KL = 1/2 ln(4/3); argmax
  // model 1, reference 0 (first of a tie); |logit diff| = ln 3.
  acc.add_position(quarter_three_quarters, halves, 0);
  const eval_summary s = acc.summary();
  ASSERT_TRUE(s.reference.has_value());
  EXPECT_EQ(s.num_scored_tokens, 2u);
  // model: exp((-ln 3/4 + ln 4) / 2) = sqrt(16/3); reference: exp((-ln 3/4 + ln 2) / 2) = sqrt(8/3)
  EXPECT_NEAR(s.perplexity, std::sqrt(16.0 / 3.0), 1e-6);
  EXPECT_NEAR(s.reference->perplexity, std::sqrt(8.0 / 3.0), 1e-6);
  EXPECT_NEAR(s.reference->mean_kl, 0.25 * std::log(4.0 / 3.0), 1e-7);
  EXPECT_EQ(s.reference->top1_agreement, 0.5);
  EXPECT_NEAR(s.reference->max_abs_logit_diff, std::log(3.0), 1e-6);
}

TEST(EvalAccumulator, AModelAgainstItselfIsExactlyEqual) {
  eval_accumulator acc;
  const std::vector<float> row{0.3f, -1.7f, 4.2f, 0.0f, 2.2f};
  for (token_id next = 0; next < 5; ++next) acc.add_position(row, row, next);
  const eval_summary s = acc.summary();
  EXPECT_EQ(s.reference->mean_kl, 0.0);
  EXPECT_EQ(s.reference->top1_agreement, 1.0);
  EXPECT_EQ(s.reference->max_abs_logit_diff, 0.0);
  EXPECT_EQ(s.perplexity, s.reference->perplexity);
}

TEST(EvalAccumulator, NothingScoredGivesNaNMeans) {
  eval_accumulator acc;
  acc.add_line();
  const eval_summary s = acc.summary();
  EXPECT_EQ(s.num_scored_tokens, 0u);
  EXPECT_TRUE(std::isnan(s.perplexity));
}

TEST(EvalAccumulatorDeathTest, PositionsWithAndWithoutAReferenceDoNotMix) {
  eval_accumulator acc;
  acc.add_position(halves, halves, 0);
  EXPECT_DEATH(acc.add_position(halves, 0), "mixed");
}

}  // namespace
}  // namespace pagedserve::eval
