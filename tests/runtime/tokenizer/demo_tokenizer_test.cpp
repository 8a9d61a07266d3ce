// The demo model's byte-level tokenizer: its id layout, special tokens in text, lossless
// round trips, U+FFFD for invalid bytes as the real byte-level tokenizers do, ChatML, and
// the streaming detokenizer on top of it.

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/chat/chat_template.h"
#include "runtime/model/demo_model.h"
#include "runtime/tokenizer/byte_level.h"
#include "runtime/tokenizer/demo_tokenizer.h"
#include "runtime/tokenizer/detokenizer.h"
#include "runtime/tokenizer/utf8.h"
#include "tests/support/fixtures.h"

namespace pagedserve {
namespace {

token_id byte_id(unsigned char b) { return 16 + b; }

std::vector<token_id> bytes_of(std::string_view text) {
  std::vector<token_id> ids;
  for (const char c : text) ids.push_back(byte_id(static_cast<unsigned char>(c)));
  return ids;
}

// Random valid UTF-8: code points from every encoded length, surrogates excluded.
std::string random_valid_text(std::mt19937& rng, std::size_t num_chars) {
  std::uniform_int_distribution<int> kind(0, 3);
  std::string out;
  for (std::size_t i = 0; i < num_chars; ++i) {
    const std::uint32_t ranges[4][2] = {
        {0x00, 0x7F}, {0x80, 0x7FF}, {0x800, 0xFFFF}, {0x10000, 0x10FFFF}};
    const auto& r = ranges[kind(rng)];
    std::uniform_int_distribution<std::uint32_t> cp(r[0], r[1]);
    std::uint32_t c = cp(rng);
    if (c >= 0xD800 && c <= 0xDFFF) c = 0xE000;
    utf8::append(out, static_cast<char32_t>(c));
  }
  return out;
}

TEST(DemoTokenizer, VocabularyMatchesTheDemoModel) {
  const auto tok = make_demo_tokenizer();
  EXPECT_EQ(tok->vocab_size(), static_cast<std::size_t>(demo_model_config().vocab_size));
  EXPECT_EQ(tok->token_to_id(*tok->specials().bos_token), demo_model_config().bos_token_id);
  ASSERT_EQ(demo_model_config().eos_token_ids.size(), 1u);
  EXPECT_EQ(tok->token_to_id(*tok->specials().eos_token), demo_model_config().eos_token_ids[0]);
}

TEST(DemoTokenizer, SpecialTokensHaveTheDocumentedIds) {
  const auto tok = make_demo_tokenizer();
  EXPECT_EQ(tok->specials().bos_token, "<|begin_of_text|>");
  EXPECT_EQ(tok->specials().eos_token, "<|end_of_text|>");
  EXPECT_EQ(tok->token_to_id("<|pad|>"), 0);
  EXPECT_EQ(tok->token_to_id("<|begin_of_text|>"), 1);
  EXPECT_EQ(tok->token_to_id("<|end_of_text|>"), 2);
  EXPECT_EQ(tok->token_to_id("<|im_start|>"), 3);
  EXPECT_EQ(tok->token_to_id("<|im_end|>"), 4);
  for (token_id id = 0; id < 16; ++id) EXPECT_TRUE(tok->is_special(id)) << id;
  for (token_id id = 16; id < 272; ++id) EXPECT_FALSE(tok->is_special(id)) << id;
  for (token_id id = 272; id < 512; ++id) EXPECT_TRUE(tok->is_special(id)) << id;
  EXPECT_FALSE(tok->is_special(512));
  EXPECT_FALSE(tok->is_special(-1));
}

TEST(DemoTokenizer, EveryIdHasANameThatMapsBack) {
  const auto tok = make_demo_tokenizer();
  for (token_id id = 0; id < 512; ++id) {
    const auto name = tok->id_to_token(id);
    ASSERT_TRUE(name.has_value()) << id;
    EXPECT_TRUE(utf8::is_valid(*name)) << id;
    EXPECT_EQ(tok->token_to_id(*name), id) << *name;
  }
  EXPECT_EQ(tok->id_to_token(512), std::nullopt);
  EXPECT_EQ(tok->id_to_token(-3), std::nullopt);
  EXPECT_EQ(tok->id_to_token(byte_id(' ')), "Ġ");  // the GPT-2 byte-level spelling
  EXPECT_EQ(tok->id_to_token(byte_id('a')), "a");
  EXPECT_EQ(tok->token_to_id("ab"), std::nullopt);
  EXPECT_EQ(tok->token_to_id("<|unused_271|>"), std::nullopt);
  EXPECT_EQ(tok->token_to_id("<|unused_0300|>"), std::nullopt);
}

TEST(DemoTokenizer, EncodesBytesAndAddsBos) {
  const auto tok = make_demo_tokenizer();
  EXPECT_EQ(tok->encode("Hi!", false), (std::vector<token_id>{16 + 0x48, 16 + 0x69, 16 + 0x21}));
  EXPECT_EQ(tok->encode("Hi", true), (std::vector<token_id>{1, 16 + 0x48, 16 + 0x69}));
  EXPECT_EQ(tok->encode("", true), (std::vector<token_id>{1}));
  EXPECT_EQ(tok->encode("\xC3\xA9", false), (std::vector<token_id>{16 + 0xC3, 16 + 0xA9}));
}

TEST(DemoTokenizer, RecognizesSpecialTokensInText) {
  const auto tok = make_demo_tokenizer();
  std::vector<token_id> expected = {3};
  for (token_id id : bytes_of("user\nhi")) expected.push_back(id);
  expected.push_back(4);
  expected.push_back(byte_id('\n'));
  expected.push_back(2);
  EXPECT_EQ(tok->encode("<|im_start|>user\nhi<|im_end|>\n<|end_of_text|>", false), expected);
  EXPECT_EQ(tok->encode("<|reserved_7|>", false), (std::vector<token_id>{7}));
  // Not special text: a broken name, and the unused ids (which have no text).
  EXPECT_EQ(tok->encode("<|im_start|", false), bytes_of("<|im_start|"));
  EXPECT_EQ(tok->encode("<|unused_300|>", false), bytes_of("<|unused_300|>"));
}

TEST(DemoTokenizer, DecodeSkipsSpecialsOnRequestAndUnusedIdsAlways) {
  const auto tok = make_demo_tokenizer();
  std::vector<token_id> ids = {1, 3};
  for (token_id id : bytes_of("ok")) ids.push_back(id);
  ids.push_back(300);
  ids.push_back(511);
  ids.push_back(4);
  ids.push_back(512);  // outside the vocabulary: dropped
  EXPECT_EQ(tok->decode(ids, false), "<|begin_of_text|><|im_start|>ok<|im_end|>");
  EXPECT_EQ(tok->decode(ids, true), "ok");
}

TEST(DemoTokenizer, RoundTripsAnyValidUtf8) {
  const auto tok = make_demo_tokenizer();
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    const std::string text = random_valid_text(rng, static_cast<std::size_t>(round % 40));
    EXPECT_EQ(tok->decode(tok->encode(text, false), false), text);
    EXPECT_EQ(tok->decode(tok->encode(text, true), true), text);
  }
  const std::string with_specials = "<|im_start|>system\nYou are \xF0\x9F\xA6\x99<|im_end|>\n";
  EXPECT_EQ(tok->decode(tok->encode(with_specials, true), false),
            "<|begin_of_text|>" + with_specials);
}

TEST(DemoTokenizer, InvalidBytesDecodeToReplacementCharacters) {
  const auto tok = make_demo_tokenizer();
  const std::string fffd = "\xEF\xBF\xBD";
  EXPECT_EQ(tok->decode(bytes_of("a\xFF"
                                 "b"),
                        false),
            "a" + fffd + "b");
  // A truncated 3-byte sequence is one maximal invalid subpart: one U+FFFD.
  EXPECT_EQ(tok->decode(bytes_of("\xE2\x82"), false), fffd);
  EXPECT_EQ(tok->decode(bytes_of("\xE2\x82"
                                 "x"),
                        false),
            fffd + "x");
  EXPECT_EQ(tok->decode(bytes_of("\x80\x80"), false), fffd + fffd);
  EXPECT_EQ(tok->decode(bytes_of("\xED\xA0\x80"), false), fffd + fffd + fffd);  // surrogate
}

// The same byte sequences through the real Llama 3 tokenizer (byte-level, exact against HF):
// both must agree on every replacement.
TEST(DemoTokenizer, InvalidBytesDecodeLikeTheRealByteLevelTokenizer) {
  auto llama3 = tokenizer::load(testing::tokenizers_dir() / "llama3");
  ASSERT_TRUE(llama3) << llama3.err().message;
  const auto tok = make_demo_tokenizer();
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> byte(0, 255);
  for (int round = 0; round < 200; ++round) {
    std::vector<token_id> demo_ids;
    std::vector<token_id> llama_ids;
    for (int i = 0; i < 12; ++i) {
      // Mostly high bytes, so incomplete and invalid sequences are common.
      const auto b = static_cast<unsigned char>(i % 3 == 0 ? byte(rng) : 0x80 | byte(rng));
      demo_ids.push_back(byte_id(b));
      const auto id = (*llama3)->token_to_id(byte_level::char_of_byte(b));
      ASSERT_TRUE(id.has_value()) << int{b};
      llama_ids.push_back(*id);
    }
    EXPECT_EQ(tok->decode(demo_ids, false), (*llama3)->decode(llama_ids, false)) << round;
  }
}

TEST(DemoTokenizer, ChatTemplateIsChatMl) {
  const auto tok = make_demo_tokenizer();
  ASSERT_TRUE(tok->chat_template().has_value());
  auto tmpl = chat_template::for_tokenizer(*tok);
  ASSERT_TRUE(tmpl) << tmpl.err().message;
  chat_request request;
  request.messages.push_back(boost::json::object{{"role", "system"}, {"content", "Be brief."}});
  request.messages.push_back(boost::json::object{{"role", "user"}, {"content", "Hello"}});
  request.add_generation_prompt = true;
  request.specials = tok->specials();
  auto text = tmpl->render(request);
  ASSERT_TRUE(text) << text.err().message;
  EXPECT_EQ(*text,
            "<|im_start|>system\nBe brief.<|im_end|>\n"
            "<|im_start|>user\nHello<|im_end|>\n"
            "<|im_start|>assistant\n");
  // The special tokens in the rendered text become single ids.
  const std::vector<token_id> ids = encode_chat(*tok, *text);
  EXPECT_EQ(ids.front(), 3);
  EXPECT_EQ(std::count(ids.begin(), ids.end(), 3), 3);
  EXPECT_EQ(std::count(ids.begin(), ids.end(), 4), 2);
}

// Streams ids; every piece must be valid UTF-8 and the pieces must add up to decode().
std::string stream(const std::vector<token_id>& ids, bool skip_special) {
  detokenizer detok(make_demo_tokenizer(), skip_special);
  std::string all;
  for (const token_id id : ids) {
    const std::string piece = detok.push(id);
    EXPECT_TRUE(utf8::is_valid(piece)) << "after id " << id;
    all += piece;
  }
  const std::string rest = detok.flush();
  EXPECT_TRUE(utf8::is_valid(rest));
  return all + rest;
}

TEST(DemoTokenizer, DetokenizerHoldsIncompleteCharacters) {
  detokenizer detok(make_demo_tokenizer());
  EXPECT_EQ(detok.push(byte_id('a')), "a");
  EXPECT_EQ(detok.push(byte_id(0xF0)), "");  // U+1F999, one byte at a time
  EXPECT_EQ(detok.push(byte_id(0x9F)), "");
  EXPECT_EQ(detok.push(byte_id(0xA6)), "");
  EXPECT_EQ(detok.push(byte_id(0x99)), "\xF0\x9F\xA6\x99");
  EXPECT_EQ(detok.push(4), "<|im_end|>");
  EXPECT_EQ(detok.flush(), "");
}

TEST(DemoTokenizer, DetokenizerStreamEqualsDecode) {
  const auto tok = make_demo_tokenizer();
  std::mt19937 rng(3);
  for (int round = 0; round < 50; ++round) {
    const auto ids = tok->encode(random_valid_text(rng, 30), true);
    EXPECT_EQ(stream(ids, false), tok->decode(ids, false)) << round;
  }
  std::uniform_int_distribution<token_id> any(0, 511);
  std::uniform_int_distribution<token_id> high_byte(16 + 0x80, 16 + 0xFF);
  for (int round = 0; round < 50; ++round) {
    std::vector<token_id> ids;
    for (int i = 0; i < 40; ++i) ids.push_back(rng() % 2 == 0 ? any(rng) : high_byte(rng));
    EXPECT_EQ(stream(ids, false), tok->decode(ids, false)) << round;
    EXPECT_EQ(stream(ids, true), tok->decode(ids, true)) << round;
  }
}

}  // namespace
}  // namespace pagedserve
