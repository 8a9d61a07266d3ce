// vLLM's allowed_token_ids and bad_words on the host (logits_processing.h step 0 and
// bad_words.h), against hand-computed expectations from vLLM's documented rules: only the
// allowed tokens keep their logits; a one-token bad word is always banned, a longer one bans
// its last token only while the generated tokens (not the prompt) end with the others.

#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "runtime/sampling/bad_words.h"
#include "runtime/sampling/logits_processing.h"

namespace pagedserve {
namespace {

constexpr float k_inf = std::numeric_limits<float>::infinity();

TEST(TokenRestrictions, AllowedTokenIdsLeaveOnlyTheirLogits) {
  std::vector<float> logits = {0.5f, -1.0f, 2.0f, 3.0f, -0.25f, 7.0f};
  sampling_params p;
  p.allowed_token_ids = {1, 4, 5};
  p.logit_bias = {{4, 1.0f}, {3, 1.0f}};
  process_logits(logits, p, logit_edits(p, {}, 0), nullptr);
  EXPECT_EQ(logits, (std::vector<float>{-k_inf, -1.0f, -k_inf, -k_inf, 0.75f, 7.0f}));
  std::vector<float> edge = {1.0f, 2.0f, 3.0f};
  apply_allowed_token_ids(edge, std::vector<token_id>{0, 2});
  EXPECT_EQ(edge, (std::vector<float>{1.0f, -k_inf, 3.0f}));
}

TEST(TokenRestrictions, OneTokenBadWordsAreAlwaysBanned) {
  const std::vector<std::vector<token_id>> words = {{9}, {3}, {9}};
  EXPECT_EQ(bad_word_bans(words, {}), (std::vector<token_id>{3, 9}));
  EXPECT_EQ(bad_word_bans(words, std::vector<token_id>{1, 2}), (std::vector<token_id>{3, 9}));
  EXPECT_FALSE(has_multi_token_bad_words(words));
}

TEST(TokenRestrictions, LongerBadWordsBanTheirLastTokenAfterTheOthers) {
  const std::vector<std::vector<token_id>> words = {{5, 6, 7}, {8, 2}};
  EXPECT_TRUE(has_multi_token_bad_words(words));
  EXPECT_TRUE(bad_word_bans(words, {}).empty());  // nothing generated: no prefix can match
  EXPECT_TRUE(bad_word_bans(words, std::vector<token_id>{5}).empty());
  EXPECT_EQ(bad_word_bans(words, std::vector<token_id>{1, 5, 6}), (std::vector<token_id>{7}));
  EXPECT_TRUE(bad_word_bans(words, std::vector<token_id>{5, 6, 1}).empty());
  EXPECT_EQ(bad_word_bans(words, std::vector<token_id>{5, 6, 7, 8}), (std::vector<token_id>{2}));
  // A ban edit is -inf whatever the bias of the token.
  sampling_params p;
  p.logit_bias = {{7, 50.0f}};
  const std::vector<token_id> bans = bad_word_bans(words, std::vector<token_id>{5, 6});
  std::vector<float> logits(10, 1.0f);
  process_logits(logits, p, logit_edits(p, {}, 2, bans), nullptr);
  EXPECT_EQ(logits[7], -k_inf);
  EXPECT_EQ(logits[6], 1.0f);
}

}  // namespace
}  // namespace pagedserve
