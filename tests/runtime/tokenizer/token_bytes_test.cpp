// tokenizer::token_bytes against HF's goldens: the bytes of a golden encoding's tokens,
// concatenated, are the golden text (after what the decoder does only at the text's start),
// whatever the tokenizer family (byte-level Llama-3 and Qwen3, SentencePiece Llama-2).

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "runtime/tokenizer/demo_tokenizer.h"
#include "tests/runtime/tokenizer/test_tokenizers.h"

namespace pagedserve {
namespace {

using testing::family_tokenizer;
using testing::golden_cases;

class token_bytes_golden : public ::testing::TestWithParam<std::string> {};

TEST_P(token_bytes_golden, ConcatenatedTokenBytesAreTheGoldenText) {
  const auto tok = family_tokenizer(GetParam());
  std::size_t num_checked = 0;
  for (const auto& c : golden_cases(GetParam())) {
    SCOPED_TRACE("text: " + c.text);
    // Special tokens have no bytes (the grammar engine never allows them in text).
    if (std::any_of(c.ids.begin(), c.ids.end(), [&](token_id id) { return tok->is_special(id); })) {
      continue;
    }
    std::string bytes;
    for (const token_id id : c.ids) bytes += tok->token_bytes(id);
    // SentencePiece's normalizer prepends a space that its decoder strips (Strip, start 1)
    // at the text's start only.
    if (GetParam() == "llama2" && bytes.starts_with(' ')) bytes.erase(0, 1);
    EXPECT_EQ(bytes, c.decoded);
    ++num_checked;
  }
  EXPECT_GE(num_checked, 40U);
}

INSTANTIATE_TEST_SUITE_P(families, token_bytes_golden,
                         ::testing::ValuesIn(testing::tokenizer_families));

TEST(token_bytes, SpecialTokensHaveNone) {
  const auto tok = family_tokenizer("llama3");
  const auto eot = tok->token_to_id("<|eot_id|>");
  ASSERT_TRUE(eot.has_value());
  EXPECT_EQ(tok->token_bytes(*eot), "");
}

TEST(token_bytes, ByteLevelTokensMayHoldHalfACharacter) {
  // "é" is 0xC3 0xA9; Llama-3's byte-level alphabet names 0xC3 "Ã" and 0xA9 "©".
  const auto tok = family_tokenizer("llama3");
  const auto first_half = tok->token_to_id("Ã");
  ASSERT_TRUE(first_half.has_value());
  EXPECT_EQ(tok->token_bytes(*first_half), "\xC3");
}

TEST(token_bytes, SentencePieceByteFallbackAndSpaces) {
  const auto tok = family_tokenizer("llama2");
  const auto newline = tok->token_to_id("<0x0A>");
  const auto hello = tok->token_to_id("\xE2\x96\x81Hello");  // "▁Hello"
  ASSERT_TRUE(newline.has_value());
  ASSERT_TRUE(hello.has_value());
  EXPECT_EQ(tok->token_bytes(*newline), "\n");
  EXPECT_EQ(tok->token_bytes(*hello), " Hello");
}

TEST(token_bytes, DemoTokenizerBytesAndSpecials) {
  const auto tok = make_demo_tokenizer();
  EXPECT_EQ(tok->token_bytes(16 + 'a'), "a");
  EXPECT_EQ(tok->token_bytes(2), "");    // <|end_of_text|>
  EXPECT_EQ(tok->token_bytes(300), "");  // a reserved special
}

}  // namespace
}  // namespace pagedserve
