// The streaming detokenizer: pieces are valid UTF-8 one by one and concatenate to decode().

#include <random>

#include <gtest/gtest.h>

#include "runtime/tokenizer/detokenizer.h"
#include "runtime/tokenizer/utf8.h"
#include "tests/runtime/tokenizer/test_tokenizers.h"

namespace pagedserve {
namespace {

using testing::family_tokenizer;
using testing::golden_cases;

// Streams ids through a detokenizer; checks every piece and returns their concatenation.
std::string stream(const std::shared_ptr<const tokenizer>& tok, const std::vector<token_id>& ids,
                   bool skip_special = false) {
  detokenizer detok(tok, skip_special);
  std::string all;
  for (const token_id id : ids) {
    const std::string piece = detok.push(id);
    EXPECT_TRUE(utf8::is_valid(piece)) << "invalid UTF-8 piece after id " << id;
    all += piece;
  }
  const std::string rest = detok.flush();
  EXPECT_TRUE(utf8::is_valid(rest));
  return all + rest;
}

void expect_stream_reproduces_goldens(const std::shared_ptr<const tokenizer>& tok,
                                      const std::string& family) {
  for (const auto& c : golden_cases(family)) {
    EXPECT_EQ(stream(tok, c.ids), c.decoded) << "text: " << c.text;
  }
}

void expect_stream_of_random_ids_equals_decode(const std::shared_ptr<const tokenizer>& tok) {
  std::mt19937 rng(1234);
  std::uniform_int_distribution<token_id> any(0, static_cast<token_id>(tok->vocab_size() - 1));
  // Low ids hold the single bytes / byte-fallback tokens: mixing them in makes incomplete and
  // invalid UTF-8 sequences common.
  std::uniform_int_distribution<token_id> low(0, 300);
  for (int round = 0; round < 30; ++round) {
    std::vector<token_id> ids;
    for (int i = 0; i < 60; ++i) ids.push_back(rng() % 2 == 0 ? any(rng) : low(rng));
    EXPECT_EQ(stream(tok, ids), tok->decode(ids, false)) << "round " << round;
    EXPECT_EQ(stream(tok, ids, true), tok->decode(ids, true)) << "round " << round;
  }
}

void expect_incomplete_character_held_back(const std::shared_ptr<const tokenizer>& tok) {
  // U+1F600 in one id per byte: bytes go to the byte-level alphabet or "<0xNN>" tokens.
  std::vector<token_id> ids;
  for (const char* name : {"<0xF0>", "<0x9F>", "<0x98>", "<0x80>"}) {
    if (auto id = tok->token_to_id(name)) ids.push_back(*id);
  }
  if (ids.size() != 4) {
    for (const char* name : {"ðŁ", "ĺ", "Ģ"}) {  // byte-level spelling of F0 9F | 98 | 80
      if (auto id = tok->token_to_id(name)) ids.push_back(*id);
    }
  }
  ASSERT_FALSE(ids.empty());
  detokenizer detok(tok);
  std::string all;
  for (std::size_t i = 0; i + 1 < ids.size(); ++i) {
    EXPECT_EQ(detok.push(ids[i]), "") << "emitted part of a character at id " << i;
  }
  all += detok.push(ids.back());
  all += detok.flush();
  EXPECT_EQ(all, "\xF0\x9F\x98\x80");
}

class detokenizer_golden : public ::testing::TestWithParam<std::string> {};

// One test per family (each test process loads the tokenizer once: seconds under ASan).
TEST_P(detokenizer_golden, StreamConcatenatesToDecodeInValidUtf8Pieces) {
  const auto tok = family_tokenizer(GetParam());
  {
    SCOPED_TRACE("HF golden cases");
    expect_stream_reproduces_goldens(tok, GetParam());
  }
  {
    SCOPED_TRACE("random ids, many of them single bytes");
    expect_stream_of_random_ids_equals_decode(tok);
  }
  {
    SCOPED_TRACE("one emoji, one byte per id");
    expect_incomplete_character_held_back(tok);
  }
}

INSTANTIATE_TEST_SUITE_P(families, detokenizer_golden,
                         ::testing::ValuesIn(testing::tokenizer_families));

TEST(detokenizer, ContextIsNotEmittedButGivesTheLeadingSpace) {
  const auto tok = family_tokenizer("llama2");
  const auto prompt = tok->encode("Hello", false);
  const auto reply = tok->encode("Hello world", false);
  ASSERT_EQ(reply.size(), prompt.size() + 1);
  detokenizer detok(tok, false, prompt);
  std::string out = detok.push(reply.back());
  out += detok.flush();
  EXPECT_EQ(out, " world");
}

TEST(detokenizer, CharacterStartedInTheContextIsCompletedByTheStream) {
  const auto tok = family_tokenizer("llama3");
  // Byte-level spellings: "ðŁ" = F0 9F, "ĺ" = 98, "Ģ" = 80; together U+1F600.
  const std::vector<token_id> context = {*tok->token_to_id("x"), *tok->token_to_id("ðŁ")};
  detokenizer detok(tok, false, context);
  std::string out = detok.push(*tok->token_to_id("ĺ"));
  EXPECT_EQ(out, "");
  out += detok.push(*tok->token_to_id("Ģ"));
  out += detok.flush();
  EXPECT_EQ(out, "\xF0\x9F\x98\x80");
}

}  // namespace
}  // namespace pagedserve
