// Chat answers through a reasoning parser (reasoning_parser: qwen3): the message gets
// reasoning_content and content, the stream splits its deltas the same way even when the
// tags arrive cut across token chunks, and chat_template_kwargs enable_thinking false or a
// server without a parser leave the text alone.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "net/openai/response_builder.h"
#include "tests/net/openai/openai_fixture.h"

namespace pagedserve::net {
namespace {

namespace json = boost::json;
using testing::llama3;
using testing::parse_ok;

constexpr api_kind H = api_kind::chat_completion;

// Qwen3's answer shape, cut so that both tags span two chunks.
const std::vector<std::string> k_pieces = {"<thi", "nk>\nTwo plus", " two.\n</th", "ink>\n\n",
                                           "It is 4."};

model_context with_parser() {
  model_context model = llama3().context;
  model.reasoning_parser = reasoning_parser_kind::qwen3;
  return model;
}

// Feeds the pieces (one token each) and a final; returns the payloads.
std::vector<std::string> feed(response_builder& b) {
  std::vector<std::string> payloads;
  token_id id = 100;
  for (const std::string& piece : k_pieces) {
    token_chunk c;
    c.token_ids = {id++};
    c.text = piece;
    b.on_chunk(0, c, payloads);
  }
  request_final f;
  f.reason = finish_reason::stop;
  f.usage.completion_tokens = static_cast<std::uint32_t>(k_pieces.size());
  b.on_final(0, f, payloads);
  return payloads;
}

json::object message_of(const api_request& r) {
  response_builder b(r, llama3().tok.get(), "chatcmpl-r", 1);
  feed(b);
  const json::value body = json::parse(b.finish().at(0));
  return body.at("choices").at(0).at("message").as_object();
}

TEST(ResponseReasoning, TheMessageHasReasoningContentAndContent) {
  const json::object m =
      message_of(parse_ok(H, R"({"messages":[{"role":"user","content":"x"}]})", with_parser()));
  EXPECT_EQ(m.at("reasoning_content").as_string(), "\nTwo plus two.\n");
  EXPECT_EQ(m.at("content").as_string(), "\n\nIt is 4.");
}

TEST(ResponseReasoning, StreamedDeltasSplitExactlyAtTheTags) {
  const api_request r =
      parse_ok(H, R"({"messages":[{"role":"user","content":"x"}],"stream":true})", with_parser());
  response_builder b(r, llama3().tok.get(), "chatcmpl-s", 1);
  std::string reasoning, content;
  std::size_t token_chunks = 0;
  for (const std::string& payload : feed(b)) {
    const json::value parsed = json::parse(payload);  // referenced below: keep it alive
    const json::object& choice = parsed.at("choices").at(0).as_object();
    const json::object& delta = choice.at("delta").as_object();
    if (delta.contains("role")) continue;
    if (choice.at("finish_reason").is_null()) ++token_chunks;
    for (const auto& [key, value] : delta) {
      ASSERT_TRUE(key == "reasoning_content" || key == "content") << key;
      (key == "content" ? content : reasoning) += value.as_string().c_str();
    }
    EXPECT_FALSE(payload.find("<think>") != std::string::npos ||
                 payload.find("</think>") != std::string::npos)
        << payload;
  }
  EXPECT_EQ(token_chunks, k_pieces.size());  // a chunk per token, even when all is held back
  EXPECT_EQ(reasoning, "\nTwo plus two.\n");
  EXPECT_EQ(content, "\n\nIt is 4.");
}

TEST(ResponseReasoning, EnableThinkingFalseOrNoParserLeavesTheTextWhole) {
  const json::object off = message_of(parse_ok(
      H,
      R"({"messages":[{"role":"user","content":"x"}],"chat_template_kwargs":{"enable_thinking":false}})",
      with_parser()));
  EXPECT_FALSE(off.contains("reasoning_content"));
  EXPECT_EQ(off.at("content").as_string(), "<think>\nTwo plus two.\n</think>\n\nIt is 4.");
  const json::object none =
      message_of(parse_ok(H, R"({"messages":[{"role":"user","content":"x"}]})"));
  EXPECT_FALSE(none.contains("reasoning_content"));
}

}  // namespace
}  // namespace pagedserve::net
