// The reasoning parsers (net/openai/reasoning_parser.h) on hand-written model outputs in the
// shapes Qwen3 and DeepSeek-R1 produce; every way of cutting the text into two or three
// pushes (a tag split anywhere) must give the one-push result.

#include <gtest/gtest.h>

#include <string>

#include "net/openai/reasoning_parser.h"

namespace pagedserve::net {
namespace {

split_text whole(reasoning_parser_kind kind, const std::string& text) {
  reasoning_splitter s(kind);
  split_text out = s.push(text);
  const split_text rest = s.flush();
  out.reasoning += rest.reasoning;
  out.content += rest.content;
  return out;
}

// Pushes text[0, i), text[i, j), text[j, end) and gathers what comes out.
split_text in_pieces(reasoning_parser_kind kind, const std::string& text, std::size_t i,
                     std::size_t j) {
  reasoning_splitter s(kind);
  split_text out;
  for (const split_text& piece : {s.push(text.substr(0, i)), s.push(text.substr(i, j - i)),
                                  s.push(text.substr(j)), s.flush()}) {
    out.reasoning += piece.reasoning;
    out.content += piece.content;
  }
  return out;
}

void expect_split(reasoning_parser_kind kind, const std::string& text, const std::string& reasoning,
                  const std::string& content) {
  const split_text one = whole(kind, text);
  EXPECT_EQ(one.reasoning, reasoning) << text;
  EXPECT_EQ(one.content, content) << text;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    for (std::size_t j = i; j <= text.size(); ++j) {
      const split_text cut = in_pieces(kind, text, i, j);
      ASSERT_EQ(cut.reasoning, reasoning) << text << " cut at " << i << ", " << j;
      ASSERT_EQ(cut.content, content) << text << " cut at " << i << ", " << j;
    }
  }
}

constexpr auto qwen3 = reasoning_parser_kind::qwen3;
constexpr auto r1 = reasoning_parser_kind::deepseek_r1;

TEST(ReasoningParser, Qwen3SplitsAtBothTags) {
  expect_split(qwen3, "<think>\nAdd 2 and 2.\n</think>\n\nIt is 4.", "\nAdd 2 and 2.\n",
               "\n\nIt is 4.");
  expect_split(qwen3, "<think></think>Hi", "", "Hi");
  // Cut by max_tokens while thinking: what came is reasoning.
  expect_split(qwen3, "<think>still thinking <", "still thinking <", "");
}

TEST(ReasoningParser, Qwen3WithoutTagsIsAllContent) {
  expect_split(qwen3, "Hello there.", "", "Hello there.");
  expect_split(qwen3, "a < b and <thin", "", "a < b and <thin");  // an unfinished tag is text
  expect_split(qwen3, "x </think> y", "", "x </think> y");        // no start tag: no reasoning
}

TEST(ReasoningParser, DeepSeekR1ReasonsUntilTheEndTag) {
  expect_split(r1, "Let me see.</think>The answer is 4.", "Let me see.", "The answer is 4.");
  expect_split(r1, "<think>\nLet me see.\n</think>\n\n4", "\nLet me see.\n", "\n\n4");
  expect_split(r1, "no end tag yet", "no end tag yet", "");
  expect_split(r1, "<thinking> is a word</think>ok", "<thinking> is a word", "ok");
  expect_split(r1, "</think>", "", "");
}

TEST(ReasoningParser, NamesAreVllms) {
  EXPECT_EQ(parse_reasoning_parser(""), reasoning_parser_kind::none);
  EXPECT_EQ(parse_reasoning_parser("qwen3"), qwen3);
  EXPECT_EQ(parse_reasoning_parser("deepseek_r1"), r1);
  EXPECT_EQ(parse_reasoning_parser("deepseek-r1"), std::nullopt);
}

}  // namespace
}  // namespace pagedserve::net
