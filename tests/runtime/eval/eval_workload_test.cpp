// eval_workload and eval_tokens: the JSONL form, the errors naming their line, and the tokens
// a line becomes (ids checked against the vocabulary and the context, text with BOS).

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "runtime/eval/eval_tokens.h"
#include "runtime/eval/eval_workload.h"
#include "runtime/tokenizer/demo_tokenizer.h"
#include "tests/support/fixtures.h"

namespace pagedserve::eval {
namespace {

result<std::vector<workload_line>> parse(const std::string& text,
                                         std::optional<std::size_t> max_lines = std::nullopt) {
  std::istringstream in(text);
  return parse_eval_workload(in, max_lines);
}

std::string error_of(const result<std::vector<workload_line>>& r) {
  return r ? std::string("no error") : r.err().message;
}

const token_limits demo_limits{512, 64, false};

result<std::vector<std::vector<token_id>>> tokens_of(const std::string& text,
                                                     const token_limits& limits = demo_limits,
                                                     const eval_tokenizers& toks = {}) {
  auto lines = parse(text);
  if (!lines) return lines.err();
  return workload_tokens(*lines, toks, limits);
}

TEST(EvalWorkload, ReadsIdsAndTextAndSkipsBlankLines) {
  auto lines =
      parse("{\"prompt_token_ids\": [5, 6, 7], \"max_tokens\": 9}\n\n{\"text\": \"hi\"}\n");
  ASSERT_TRUE(lines) << error_of(lines);
  ASSERT_EQ(lines->size(), 2u);
  EXPECT_EQ((*lines)[0].line_number, 1u);
  EXPECT_EQ(*(*lines)[0].token_ids, (std::vector<std::int64_t>{5, 6, 7}));
  EXPECT_EQ((*lines)[1].line_number, 3u);
  EXPECT_EQ(*(*lines)[1].text, "hi");
}

TEST(EvalWorkload, MaxLinesKeepsTheFirstLines) {
  auto lines = parse("{\"text\": \"a\"}\n{\"text\": \"b\"}\n{\"text\": \"c\"}\n", 2);
  ASSERT_TRUE(lines);
  EXPECT_EQ(lines->size(), 2u);
}

TEST(EvalWorkload, MalformedLinesNameTheirLineNumber) {
  EXPECT_NE(error_of(parse("{\"text\": \"a\"}\n{\"text\": \n")).find("line 2: not valid JSON"),
            std::string::npos);
  EXPECT_NE(error_of(parse("[1, 2]\n")).find("line 1: expected a JSON object"), std::string::npos);
  EXPECT_NE(error_of(parse("{\"text\": \"a\", \"prompt_token_ids\": [1]}")).find("exactly one"),
            std::string::npos);
  EXPECT_NE(error_of(parse("{\"max_tokens\": 3}")).find("exactly one"), std::string::npos);
  EXPECT_NE(error_of(parse("{\"prompt_token_ids\": [1, 2.5]}")).find("must hold integers"),
            std::string::npos);
  EXPECT_NE(error_of(parse("{\"prompt_token_ids\": []}")).find("is empty"), std::string::npos);
  EXPECT_NE(error_of(parse("{\"text\": 7}")).find("must be a string"), std::string::npos);
  EXPECT_NE(error_of(parse("{\"text\": \"\"}")).find("is empty"), std::string::npos);
}

TEST(EvalWorkload, AnEmptyWorkloadIsAnError) {
  EXPECT_NE(error_of(parse("")).find("no lines"), std::string::npos);
  EXPECT_NE(error_of(parse("\n  \n")).find("no lines"), std::string::npos);
}

TEST(EvalWorkload, AMissingFileIsNotFound) {
  auto lines = read_eval_workload("/nonexistent/eval-workload.jsonl", std::nullopt);
  ASSERT_FALSE(lines);
  EXPECT_EQ(lines.err().code, error_code::not_found);
}

TEST(EvalTokens, TextIsEncodedWithBosAsACompletionPrompt) {
  const auto demo = make_demo_tokenizer();
  // The demo tokenizer: BOS = 1, byte b = 16 + b ('h' = 0x68 -> 120, 'i' = 0x69 -> 121).
  auto tokens = tokens_of("{\"text\": \"hi\"}", demo_limits, {demo.get(), nullptr});
  ASSERT_TRUE(tokens) << tokens.err().message;
  EXPECT_EQ((*tokens)[0], (std::vector<token_id>{1, 120, 121}));
}

TEST(EvalTokens, TextNeedsATokenizer) {
  auto tokens = tokens_of("{\"text\": \"hi\"}");
  ASSERT_FALSE(tokens);
  EXPECT_NE(tokens.err().message.find("needs a tokenizer"), std::string::npos);
}

TEST(EvalTokens, TextTheReferenceEncodesDifferentlyIsRefused) {
  const auto demo = make_demo_tokenizer();
  auto llama2 = tokenizer::load(pagedserve::testing::tokenizers_dir() / "llama2");
  ASSERT_TRUE(llama2) << llama2.err().message;
  auto tokens = tokens_of("{\"text\": \"hi\"}", demo_limits, {demo.get(), llama2->get()});
  ASSERT_FALSE(tokens);
  EXPECT_NE(tokens.err().message.find("encode the text differently"), std::string::npos);
}

TEST(EvalTokens, IdsOutsideTheVocabularyAreRefusedNamingTheLine) {
  auto tokens = tokens_of("{\"prompt_token_ids\": [1, 2]}\n{\"prompt_token_ids\": [3, 512]}");
  ASSERT_FALSE(tokens);
  EXPECT_NE(tokens.err().message.find("line 2: token id 512 is outside the vocabulary [0, 512)"),
            std::string::npos);
  EXPECT_FALSE(tokens_of("{\"prompt_token_ids\": [1, -1]}"));
  EXPECT_FALSE(tokens_of("{\"prompt_token_ids\": [1, 18446744073709551615]}"));
}

TEST(EvalTokens, WrapMapsIdsIntoTheVocabularyButNotNegativeOnes) {
  const token_limits wrap{512, 64, true};
  auto tokens = tokens_of("{\"prompt_token_ids\": [1, 512, 1025]}", wrap);
  ASSERT_TRUE(tokens) << tokens.err().message;
  EXPECT_EQ((*tokens)[0], (std::vector<token_id>{1, 0, 1}));
  EXPECT_FALSE(tokens_of("{\"prompt_token_ids\": [1, -3]}", wrap));
}

TEST(EvalTokens, ALineLongerThanTheContextIsAClearError) {
  const token_limits short_context{512, 3, false};
  EXPECT_TRUE(tokens_of("{\"prompt_token_ids\": [1, 2, 3]}", short_context));
  auto tokens = tokens_of("{\"prompt_token_ids\": [1, 2, 3, 4]}", short_context);
  ASSERT_FALSE(tokens);
  EXPECT_NE(tokens.err().message.find("line 1: 4 tokens exceed the context of 3 tokens"),
            std::string::npos);
}

TEST(EvalTokens, SingleTokenLinesScoreNothing) {
  auto tokens = tokens_of("{\"prompt_token_ids\": [1]}\n{\"prompt_token_ids\": [2]}");
  ASSERT_FALSE(tokens);
  EXPECT_NE(tokens.err().message.find("nothing to score"), std::string::npos);
  auto mixed = tokens_of("{\"prompt_token_ids\": [1]}\n{\"prompt_token_ids\": [2, 3, 4]}");
  ASSERT_TRUE(mixed);
  EXPECT_EQ(num_scored_positions(*mixed), 2u);
}

}  // namespace
}  // namespace pagedserve::eval
