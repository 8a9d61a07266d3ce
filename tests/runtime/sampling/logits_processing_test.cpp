// The host's logits processing (runtime/sampling/logits_processing.h) against hand-computed
// values from the published formulas: OpenAI's penalties
//   mu[j] -> mu[j] - c[j] * alpha_frequency - (c[j] > 0) * alpha_presence
// (platform.openai.com, "Parameter details"), HF's repetition penalty (divide a positive
// score, multiply a negative one, for every token in the input ids), OpenAI's logit_bias
// (added to the logit) and vLLM's min_tokens (stop ids cannot be sampled before it).

#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "runtime/sampling/logits_processing.h"
#include "runtime/sampling/sampler.h"

namespace pagedserve {
namespace {

constexpr float k_inf = std::numeric_limits<float>::infinity();

sampling_params penalties(float presence, float frequency, float repetition) {
  sampling_params p;
  p.presence_penalty = presence;
  p.frequency_penalty = frequency;
  p.repetition_penalty = repetition;
  return p;
}

TEST(LogitsProcessing, PresenceAndFrequencyFollowOpenAIsFormulaOverGeneratedTokensOnly) {
  std::vector<float> logits = {1.0f, 2.0f, -0.5f, 0.25f, 3.0f};
  token_counts counts;
  const std::vector<token_id> prompt = {0, 4};
  const std::vector<token_id> generated = {1, 1, 1, 2};
  counts.reset(prompt, generated);
  process_logits(logits, penalties(0.5f, 0.25f, 1.0f), {}, &counts);
  EXPECT_EQ(logits[0], 1.0f);                 // prompt only: not penalized by presence/frequency
  EXPECT_EQ(logits[1], 2.0f - 0.75f - 0.5f);  // three times: 1.25 - 0.5
  EXPECT_EQ(logits[2], -0.5f - 0.25f - 0.5f);
  EXPECT_EQ(logits[3], 0.25f);  // never seen
  EXPECT_EQ(logits[4], 3.0f);
}

TEST(LogitsProcessing, NegativePenaltiesEncourageRepetition) {
  std::vector<float> logits = {1.0f, 1.0f};
  token_counts counts;
  const std::vector<token_id> generated = {1, 1};
  counts.reset({}, generated);
  process_logits(logits, penalties(-1.0f, -2.0f, 1.0f), {}, &counts);
  EXPECT_EQ(logits[0], 1.0f);
  EXPECT_EQ(logits[1], 1.0f + 4.0f + 1.0f);
}

TEST(LogitsProcessing, RepetitionDividesPositiveAndMultipliesNegativeLogitsOfPromptAndOutput) {
  std::vector<float> logits = {3.0f, -3.0f, 3.0f, -3.0f, 0.0f, 3.0f};
  token_counts counts;
  const std::vector<token_id> prompt = {0, 1, 4};
  const std::vector<token_id> generated = {2, 3, 3};
  counts.reset(prompt, generated);
  process_logits(logits, penalties(0.0f, 0.0f, 1.5f), {}, &counts);
  EXPECT_EQ(logits[0], 2.0f);
  EXPECT_EQ(logits[1], -4.5f);
  EXPECT_EQ(logits[2], 2.0f);
  EXPECT_EQ(logits[3], -4.5f);  // once per token, however often it occurred
  EXPECT_EQ(logits[4], 0.0f);
  EXPECT_EQ(logits[5], 3.0f);  // never seen
}

TEST(LogitsProcessing, RepetitionComesBeforeFrequencyAndPresence) {
  std::vector<float> logits = {4.0f};
  token_counts counts;
  const std::vector<token_id> generated = {0, 0};
  counts.reset({}, generated);
  process_logits(logits, penalties(1.0f, 0.5f, 2.0f), {}, &counts);
  EXPECT_EQ(logits[0], 4.0f / 2.0f - 2 * 0.5f - 1.0f);
}

TEST(LogitsProcessing, LogitBiasIsAddedAndBansWinOverBias) {
  sampling_params p;
  p.logit_bias = {{3, 100.0f}, {1, -2.5f}, {2, 5.0f}};
  p.min_tokens = 2;
  const std::vector<token_id> held = {2};
  std::vector<float> logits = {0.5f, 0.5f, 0.5f, 0.5f};
  const std::vector<logit_edit> early = logit_edits(p, held, 1);
  ASSERT_EQ(early.size(), 3U);
  EXPECT_EQ(early[0].token, 1);  // ascending ids
  process_logits(logits, p, early, nullptr);
  EXPECT_EQ(logits[0], 0.5f);
  EXPECT_EQ(logits[1], -2.0f);
  EXPECT_EQ(logits[2], -k_inf);  // held by min_tokens despite +5
  EXPECT_EQ(logits[3], 100.5f);
  std::vector<float> later = {0.5f, 0.5f, 0.5f, 0.5f};
  process_logits(later, p, logit_edits(p, held, 2), nullptr);
  EXPECT_EQ(later[2], 5.5f);  // two tokens generated: EOS may come
}

TEST(LogitsProcessing, MinTokensKeepsTheSamplerOffEveryHeldStopId) {
  sampling_params p;
  p.temperature = 0.0f;
  p.min_tokens = 3;
  const std::vector<token_id> held = {0, 2};
  std::vector<float> logits = {9.0f, 1.0f, 8.0f, 2.0f};
  process_logits(logits, p, logit_edits(p, held, 0), nullptr);
  EXPECT_EQ(greedy_sample(logits), 3);
}

TEST(LogitsProcessing, ValidationNamesTheFieldAndItsRange) {
  auto message = [](const sampling_params& p) {
    const status s = p.validate();
    return s.ok() ? std::string("ok") : s.err().message;
  };
  EXPECT_NE(message(penalties(2.5f, 0, 1)).find("presence_penalty"), std::string::npos);
  EXPECT_NE(message(penalties(0, -2.01f, 1)).find("frequency_penalty"), std::string::npos);
  EXPECT_NE(message(penalties(0, 0, 0)).find("repetition_penalty"), std::string::npos);
  sampling_params bias;
  bias.logit_bias = {{5, 101.0f}};
  EXPECT_NE(message(bias).find("logit_bias"), std::string::npos);
  bias.logit_bias = {{5, 1.0f}, {5, 2.0f}};
  EXPECT_NE(message(bias).find("distinct"), std::string::npos);
  bias.logit_bias = {{-1, 1.0f}};
  EXPECT_NE(message(bias).find("logit_bias"), std::string::npos);
  EXPECT_EQ(message(penalties(-2, 2, 0.01f)), "ok");
}

}  // namespace
}  // namespace pagedserve
