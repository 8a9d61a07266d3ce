#include "loadtest/core/stream_chunk.h"

#include <gtest/gtest.h>

namespace pagedserve::loadtest {
namespace {

stream_chunk parse_ok(std::string_view data, api_kind kind) {
  result<stream_chunk> chunk = parse_stream_chunk(data, kind);
  EXPECT_TRUE(chunk.ok()) << (chunk.ok() ? "" : chunk.err().message);
  return chunk.ok() ? *chunk : stream_chunk{};
}

TEST(StreamChunk, DoneSentinel) {
  EXPECT_TRUE(parse_ok("[DONE]", api_kind::completions).done);
  EXPECT_TRUE(parse_ok("[DONE]", api_kind::chat_completions).done);
}

TEST(StreamChunk, CompletionsTextChoices) {
  const stream_chunk chunk = parse_ok(
      R"({"id":"c","object":"text_completion","choices":[{"index":0,"text":"Hi ","logprobs":null,"finish_reason":null},{"index":1,"text":"","finish_reason":"length"}]})",
      api_kind::completions);
  EXPECT_FALSE(chunk.done);
  EXPECT_EQ(chunk.num_token_choices, 1U);
  EXPECT_EQ(chunk.text_bytes, 3U);
  EXPECT_TRUE(chunk.has_finish_reason);
  EXPECT_FALSE(chunk.usage);
  EXPECT_FALSE(chunk.error);
}

TEST(StreamChunk, ChatDeltasCountContentAndReasoningButNotTheRoleChunk) {
  EXPECT_EQ(
      parse_ok(
          R"({"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]})",
          api_kind::chat_completions)
          .num_token_choices,
      0U);
  const stream_chunk chunk = parse_ok(
      R"({"choices":[{"index":0,"delta":{"content":"ab"}},{"index":1,"delta":{"reasoning_content":"xyz","content":null}}]})",
      api_kind::chat_completions);
  EXPECT_EQ(chunk.num_token_choices, 2U);
  EXPECT_EQ(chunk.text_bytes, 5U);
  EXPECT_FALSE(chunk.has_finish_reason);
}

// A token whose text is held back (incomplete UTF-8, a possible stop string) still arrives as
// a chunk with empty text; only the role announcement and a bare finish marker are not tokens.
TEST(StreamChunk, EmptyTextCountsAsATokenUnlessItIsARoleOrFinishMarker) {
  EXPECT_EQ(
      parse_ok(R"({"choices":[{"index":0,"text":"","finish_reason":null}]})", api_kind::completions)
          .num_token_choices,
      1U);
  EXPECT_EQ(parse_ok(R"({"choices":[{"index":0,"delta":{"content":""},"finish_reason":null}]})",
                     api_kind::chat_completions)
                .num_token_choices,
            1U);
  EXPECT_EQ(parse_ok(R"({"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]})",
                     api_kind::chat_completions)
                .num_token_choices,
            0U);
  EXPECT_EQ(parse_ok(R"({"choices":[{"index":0,"delta":{"content":""},"finish_reason":"length"}]})",
                     api_kind::chat_completions)
                .num_token_choices,
            0U);
  EXPECT_EQ(parse_ok(R"({"choices":[{"index":0,"text":"x","finish_reason":"length"}]})",
                     api_kind::completions)
                .num_token_choices,
            1U);
}

TEST(StreamChunk, UsageOnlyFinalChunkHasEmptyChoices) {
  const stream_chunk chunk = parse_ok(
      R"({"id":"c","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":16,"total_tokens":28}})",
      api_kind::completions);
  EXPECT_EQ(chunk.num_token_choices, 0U);
  ASSERT_TRUE(chunk.usage);
  EXPECT_EQ(chunk.usage->prompt_tokens, 12U);
  EXPECT_EQ(chunk.usage->completion_tokens, 16U);
  EXPECT_FALSE(parse_ok(R"({"choices":[{"text":"a"}],"usage":null})", api_kind::completions).usage);
}

TEST(StreamChunk, ErrorObjects) {
  EXPECT_EQ(parse_ok(R"({"error":{"message":"boom","code":500}})", api_kind::completions).error,
            "boom");
  EXPECT_EQ(parse_ok(R"({"error":"plain"})", api_kind::chat_completions).error, "plain");
  EXPECT_EQ(
      parse_ok(R"({"object":"error","message":"vllm style","code":400})", api_kind::completions)
          .error,
      "vllm style");
}

TEST(StreamChunk, RejectsWhatAnOpenAIServerDoesNotSend) {
  for (std::string_view bad :
       {"not json", "[1,2]", R"({"id":"x"})", R"({"choices":{}})", R"({"choices":[{"text":5}]})",
        R"({"choices":[],"usage":{"prompt_tokens":1}})"}) {
    result<stream_chunk> chunk = parse_stream_chunk(bad, api_kind::completions);
    EXPECT_FALSE(chunk.ok()) << bad;
    if (!chunk.ok()) {
      EXPECT_NE(chunk.err().message.find("bad stream chunk"), std::string::npos);
    }
  }
  EXPECT_FALSE(
      parse_stream_chunk(R"({"choices":[{"delta":"x"}]})", api_kind::chat_completions).ok());
}

}  // namespace
}  // namespace pagedserve::loadtest
