// Adversarial inputs: invalid UTF-8, huge runs of one character, all special tokens back to
// back, a 1 MB text. Nothing crashes or hangs, and decode(encode(s)) gives s back.

#include <fstream>
#include <random>
#include <sstream>

#include <gtest/gtest.h>
#include <boost/json.hpp>

#include "runtime/tokenizer/utf8.h"
#include "tests/runtime/tokenizer/test_tokenizers.h"
#include "tests/support/fixtures.h"

namespace pagedserve {
namespace {

using testing::family_tokenizer;

// Under AddressSanitizer the same cases run at a quarter of the size, to stay within seconds.
#if defined(__SANITIZE_ADDRESS__)
constexpr std::size_t size_divisor = 4;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr std::size_t size_divisor = 4;
#else
constexpr std::size_t size_divisor = 1;
#endif
#else
constexpr std::size_t size_divisor = 1;
#endif

std::string repeat(std::string_view unit, std::size_t times) {
  std::string out;
  out.reserve(unit.size() * times);
  for (std::size_t i = 0; i < times; ++i) out += unit;
  return out;
}

// Text that NFC leaves alone (qwen3 normalizes), so every family must round-trip it.
std::string mixed_text(std::size_t bytes) {
  const std::string_view parts[] = {"The quick brown fox jumps over the lazy dog. ",
                                    "int main() { return 0; }\n",
                                    "连续批处理在每个生成步动态调度请求。",
                                    "日本語のテキスト ",
                                    "😀🚀👩‍💻 ",
                                    "  \t\n\n",
                                    "Ünïcödé ÅÄÖ ß ",
                                    "12345678901234567890 ",
                                    "<|im_start|>x<|im_end|> "};
  std::string out;
  for (std::size_t i = 0; out.size() < bytes; ++i) out += parts[(i * 7) % std::size(parts)];
  return out;
}

TEST(tokenizer_utf8, SanitizeReplacesEachMaximalInvalidSubpartOnce) {
  // Expected values from the Unicode Standard, section 3.9 ("U+FFFD substitution of maximal
  // subparts"), which Rust's from_utf8_lossy follows.
  EXPECT_EQ(utf8::sanitize("a\xE2\x82"
                           "b"),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(utf8::sanitize("\xF0\x9F\x98"), "\xEF\xBF\xBD");
  EXPECT_EQ(utf8::sanitize("\xC0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(utf8::sanitize("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(utf8::sanitize("\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64"),
            "a\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"
            "b\xEF\xBF\xBD"
            "c\xEF\xBF\xBD\xEF\xBF\xBD"
            "d");
  EXPECT_EQ(utf8::sanitize("ok é 😀"), "ok é 😀");
}

void expect_invalid_utf8_encoded_as_replacement(const tokenizer& tok, bool exact_round_trip) {
  std::mt19937 rng(99);
  for (int round = 0; round < 50; ++round) {
    std::string bytes(static_cast<std::size_t>(rng() % 200), '\0');
    for (char& c : bytes) c = static_cast<char>(rng() % 256);
    const std::string clean = utf8::sanitize(bytes);
    const auto ids = tok.encode(bytes, false);
    EXPECT_EQ(ids, tok.encode(clean, false));
    const std::string back = tok.decode(ids, false);
    EXPECT_TRUE(utf8::is_valid(back));
    if (exact_round_trip) {
      EXPECT_EQ(back, clean);  // no normalizer: exact round trip
    }
  }
}

void expect_huge_runs_round_trip(const tokenizer& tok) {
  for (const std::string_view unit : {" ", "a", "\n", "😀", "é", "<"}) {
    const std::string text = repeat(unit, (unit.size() == 1 ? 100000 : 20000) / size_divisor);
    EXPECT_EQ(tok.decode(tok.encode(text, false), false), text) << "unit " << unit;
  }
}

void expect_long_mixed_text_round_trips(const tokenizer& tok, std::size_t bytes) {
  const std::string text = mixed_text(bytes);
  EXPECT_EQ(tok.decode(tok.encode(text, false), false), text);
}

void expect_added_tokens_back_to_back_encode_to_their_ids(const tokenizer& tok,
                                                          const std::string& family) {
  std::ifstream in(testing::tokenizers_dir() / family / "tokenizer.json");
  std::stringstream buffer;
  buffer << in.rdbuf();
  const auto root = boost::json::parse(buffer.str());
  std::string text;
  std::vector<token_id> expected;
  for (const auto& t : root.at("added_tokens").as_array()) {
    text += t.at("content").as_string();
    expected.push_back(static_cast<token_id>(t.at("id").as_int64()));
  }
  EXPECT_EQ(tok.encode(text, false), expected);
  EXPECT_EQ(tok.decode(expected, false), text);
}

void expect_random_valid_text_round_trips(const tokenizer& tok) {
  std::mt19937 rng(7);
  const std::u32string_view alphabet = U"aZ0 \t\n.,'-<|>_ßé中文😀\u00A0\u200B";
  for (int round = 0; round < 100; ++round) {
    std::string text;
    const std::size_t n = rng() % 80;
    for (std::size_t i = 0; i < n; ++i) utf8::append(text, alphabet[rng() % alphabet.size()]);
    EXPECT_EQ(tok.decode(tok.encode(text, false), false), text) << text;
  }
}

class tokenizer_robustness : public ::testing::TestWithParam<std::string> {};

// One test per family (each test process loads the tokenizer once: seconds under ASan).
TEST_P(tokenizer_robustness, AdversarialInputsNeitherCrashNorLoseText) {
  const std::string& family = GetParam();
  const auto tok = family_tokenizer(family);
  {
    SCOPED_TRACE("random bytes, mostly invalid UTF-8");
    // Only llama3 has no normalizer, so only there is every valid text returned unchanged.
    expect_invalid_utf8_encoded_as_replacement(*tok, family == "llama3");
  }
  {
    SCOPED_TRACE("100k runs of one character");
    expect_huge_runs_round_trip(*tok);
  }
  {
    SCOPED_TRACE("1 MB of mixed text");
    // llama2 has no pre-tokenizer: the whole text is one BPE word, so keep it shorter there.
    expect_long_mixed_text_round_trips(*tok,
                                       (family == "llama2" ? 200000 : 1000000) / size_divisor);
  }
  {
    SCOPED_TRACE("every added token back to back");
    expect_added_tokens_back_to_back_encode_to_their_ids(*tok, family);
  }
  {
    SCOPED_TRACE("random valid text");
    expect_random_valid_text_round_trips(*tok);
  }
}

INSTANTIATE_TEST_SUITE_P(families, tokenizer_robustness,
                         ::testing::ValuesIn(testing::tokenizer_families));

}  // namespace
}  // namespace pagedserve
