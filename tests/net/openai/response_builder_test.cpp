// response_builder: OpenAI's shapes for every mode (stream or not × completion or chat ×
// logprobs × n × several prompts × echo × include_usage). The output is parsed back with
// boost::json and checked key by key; expected values come from the events fed in (token
// strings from goldens/tokenizers/llama3.json: 9906 "Hello", 1917 "Ġworld", 220 "Ġ").

#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "net/openai/response_builder.h"
#include "tests/net/openai/openai_fixture.h"

namespace pagedserve::net {
namespace {

namespace json = boost::json;
using testing::llama3;
using testing::parse_ok;

constexpr api_kind C = api_kind::completion;
constexpr api_kind H = api_kind::chat_completion;
constexpr std::int64_t k_created = 1700000000;

token_chunk chunk(std::uint32_t index, std::vector<token_id> ids, std::string text,
                  std::vector<chunk_logprob> logprobs = {}) {
  token_chunk c;
  c.index = index;
  c.token_ids = std::move(ids);
  c.text = std::move(text);
  c.logprobs = std::move(logprobs);
  return c;
}

request_final final_of(std::uint32_t index, finish_reason reason, std::uint32_t completion_tokens,
                       std::string text = "", std::optional<std::string> stop = std::nullopt) {
  request_final f;
  f.index = index;
  f.reason = reason;
  f.text = std::move(text);
  f.stop_string = std::move(stop);
  f.usage.completion_tokens = completion_tokens;
  return f;
}

// "Hello" (-0.5, alternatives " " -0.25) then " world" (-1.25, alternative "Hello" -2).
std::vector<chunk_logprob> hello_lp() { return {{9906, -0.5f, {{220, -0.25f}}}}; }
std::vector<chunk_logprob> world_lp() { return {{1917, -1.25f, {{9906, -2.0f}}}}; }

// Feeds "Hello" + " world" + final "!" to a choice.
void feed_choice(response_builder& b, std::size_t prompt, std::uint32_t index, finish_reason reason,
                 std::vector<std::string>& payloads, std::optional<std::string> stop = {}) {
  b.on_chunk(prompt, chunk(index, {9906}, "Hello", hello_lp()), payloads);
  b.on_chunk(prompt, chunk(index, {1917}, " world", world_lp()), payloads);
  b.on_final(prompt, final_of(index, reason, 2, "!", std::move(stop)), payloads);
}

json::object parsed(const std::string& payload) { return json::parse(payload).as_object(); }

void expect_envelope(const json::object& o, const char* object, const std::string& id) {
  EXPECT_EQ(o.at("id").as_string(), id);
  EXPECT_EQ(o.at("object").as_string(), object);
  EXPECT_EQ(o.at("created").as_int64(), k_created);
  EXPECT_EQ(o.at("model").as_string(), testing::k_test_model);
}

void expect_usage(const json::value& usage, std::int64_t prompt, std::int64_t completion) {
  const json::object& u = usage.as_object();
  EXPECT_EQ(u.at("prompt_tokens").to_number<std::int64_t>(), prompt);
  EXPECT_EQ(u.at("completion_tokens").to_number<std::int64_t>(), completion);
  EXPECT_EQ(u.at("total_tokens").to_number<std::int64_t>(), prompt + completion);
}

TEST(response_builder, CompletionsWithNTwoPromptsAndLogprobs) {
  const api_request r =
      parse_ok(C, R"({"model":"llama-test","prompt":[[9906],[9906,1917]],"n":2,"logprobs":1})");
  response_builder b(r, llama3().tok.get(), "cmpl-x", k_created);
  std::vector<std::string> payloads;
  // Out of order across choices; in order within each.
  feed_choice(b, 1, 1, finish_reason::cancelled, payloads);
  feed_choice(b, 0, 0, finish_reason::length, payloads);
  EXPECT_FALSE(b.done());
  feed_choice(b, 1, 0, finish_reason::stop, payloads, "\n");
  feed_choice(b, 0, 1, finish_reason::stop, payloads);
  EXPECT_TRUE(payloads.empty());  // not streaming
  EXPECT_TRUE(b.done());
  const std::vector<std::string> out = b.finish();
  ASSERT_EQ(out.size(), 1U);
  const json::object body = parsed(out[0]);
  expect_envelope(body, "text_completion", "cmpl-x");
  const json::array& choices = body.at("choices").as_array();
  ASSERT_EQ(choices.size(), 4U);
  const char* reasons[] = {"length", "stop", "stop", "abort"};
  for (std::size_t k = 0; k < 4; ++k) {
    const json::object& c = choices[k].as_object();
    EXPECT_EQ(c.at("index").as_int64(), static_cast<std::int64_t>(k));
    EXPECT_EQ(c.at("text").as_string(), "Hello world!");
    EXPECT_EQ(c.at("finish_reason").as_string(), reasons[k]);
    const json::object& lp = c.at("logprobs").as_object();
    EXPECT_EQ(lp.at("tokens"), (json::array{"Hello", " world"}));
    EXPECT_EQ(lp.at("token_logprobs"), (json::array{-0.5, -1.25}));
    EXPECT_EQ(lp.at("text_offset"), (json::array{0, 5}));
    const json::array& top = lp.at("top_logprobs").as_array();
    ASSERT_EQ(top.size(), 2U);
    EXPECT_EQ(top[0], (json::object{{" ", -0.25}, {"Hello", -0.5}}));  // + the chosen token
    EXPECT_EQ(top[1], (json::object{{"Hello", -2.0}, {" world", -1.25}}));
  }
  EXPECT_EQ(choices[2].at("stop_reason").as_string(), "\n");
  EXPECT_TRUE(choices[0].at("stop_reason").is_null());
  // The prompts are counted once each (1 + 2), not once per completion.
  expect_usage(body.at("usage"), 3, 8);
  EXPECT_EQ(b.usage().prompt_tokens, 3U);
  EXPECT_EQ(b.usage().completion_tokens, 8U);
  EXPECT_FALSE(b.error_message().has_value());
}

TEST(response_builder, CompletionsWithoutLogprobsHaveNullLogprobsAndEchoThePrompt) {
  const api_request r = parse_ok(C, R"({"prompt":["Hello world"],"echo":true})");
  response_builder b(r, llama3().tok.get(), "cmpl-e", k_created);
  std::vector<std::string> payloads;
  feed_choice(b, 0, 0, finish_reason::length, payloads);
  const json::object body = parsed(b.finish().at(0));
  const json::object& c = body.at("choices").at(0).as_object();
  EXPECT_EQ(c.at("text").as_string(), "Hello worldHello world!");
  EXPECT_TRUE(c.at("logprobs").is_null());
  expect_usage(body.at("usage"), 2, 2);
}

// Every streamed payload, parsed; the texts per choice index concatenated.
struct stream_log {
  std::vector<json::object> chunks;
  std::map<std::int64_t, std::string> text;
  std::map<std::int64_t, std::string> finish_reason;
};

stream_log read_stream(const std::vector<std::string>& payloads, api_kind kind) {
  stream_log log;
  for (const std::string& p : payloads) {
    json::object o = parsed(p);
    for (const json::value& v : o.at("choices").as_array()) {
      const json::object& c = v.as_object();
      const std::int64_t i = c.at("index").as_int64();
      EXPECT_FALSE(log.finish_reason.contains(i)) << "a chunk after the finish chunk";
      if (kind == C) {
        log.text[i] += c.at("text").as_string();
      } else if (const json::value* content = c.at("delta").as_object().if_contains("content")) {
        log.text[i] += content->as_string();
      }
      if (!c.at("finish_reason").is_null()) {
        log.finish_reason[i] = std::string(c.at("finish_reason").as_string());
      }
    }
    log.chunks.push_back(std::move(o));
  }
  return log;
}

TEST(response_builder, StreamedCompletionsWithUsageEndWithAUsageChunk) {
  const api_request r = parse_ok(
      C, R"({"prompt":[9906,1917],"n":2,"stream":true,"stream_options":{"include_usage":true}})");
  response_builder b(r, llama3().tok.get(), "cmpl-s", k_created);
  std::vector<std::string> payloads;
  b.on_chunk(0, chunk(1, {9906}, "Hello"), payloads);
  b.on_chunk(0, chunk(0, {9906}, "Hello"), payloads);
  b.on_chunk(0, chunk(0, {1917}, " world"), payloads);
  b.on_final(0, final_of(0, finish_reason::stop, 2, "!", "\n"), payloads);
  b.on_final(0, final_of(1, finish_reason::length, 1), payloads);
  const stream_log log = read_stream(payloads, C);
  for (const json::object& o : log.chunks) {
    expect_envelope(o, "text_completion", "cmpl-s");
    ASSERT_EQ(o.at("choices").as_array().size(), 1U);
    EXPECT_TRUE(o.at("usage").is_null());
    EXPECT_TRUE(o.at("choices").at(0).at("logprobs").is_null());
  }
  EXPECT_EQ(log.text.at(0), "Hello world!");
  EXPECT_EQ(log.text.at(1), "Hello");
  EXPECT_EQ(log.finish_reason.at(0), "stop");
  EXPECT_EQ(log.finish_reason.at(1), "length");
  const json::object& finish0 = log.chunks[4].at("choices").at(0).as_object();
  EXPECT_EQ(finish0.at("stop_reason").as_string(), "\n");

  const std::vector<std::string> closing = b.finish();
  ASSERT_EQ(closing.size(), 1U);
  const json::object last = parsed(closing[0]);
  expect_envelope(last, "text_completion", "cmpl-s");
  EXPECT_TRUE(last.at("choices").as_array().empty());
  expect_usage(last.at("usage"), 2, 3);
}

TEST(response_builder, StreamedCompletionsOfTwoPromptsTimesTwoWithLogprobsAndUsage) {
  const api_request r = parse_ok(C, R"({"prompt":[[9906],[9906,1917]],"n":2,"logprobs":1,
      "stream":true,"stream_options":{"include_usage":true}})");
  response_builder b(r, llama3().tok.get(), "cmpl-4", k_created);
  std::vector<std::string> payloads;
  feed_choice(b, 1, 0, finish_reason::length, payloads);
  feed_choice(b, 0, 1, finish_reason::length, payloads);
  feed_choice(b, 1, 1, finish_reason::stop, payloads);
  feed_choice(b, 0, 0, finish_reason::stop, payloads);
  EXPECT_TRUE(b.done());
  const stream_log log = read_stream(payloads, C);
  ASSERT_EQ(log.text.size(), 4U);
  for (std::int64_t i = 0; i < 4; ++i) {
    EXPECT_EQ(log.text.at(i), "Hello world!");
    EXPECT_EQ(log.finish_reason.at(i), i == 1 || i == 2 ? "length" : "stop");
  }
  std::map<std::int64_t, json::array> tokens;
  for (const json::object& o : log.chunks) {
    EXPECT_TRUE(o.at("usage").is_null());
    const json::object& c = o.at("choices").at(0).as_object();
    if (c.at("logprobs").is_null()) continue;
    for (const json::value& t : c.at("logprobs").at("tokens").as_array()) {
      tokens[c.at("index").as_int64()].push_back(t);
    }
  }
  for (std::int64_t i = 0; i < 4; ++i) EXPECT_EQ(tokens[i], (json::array{"Hello", " world"}));
  const json::object last = parsed(b.finish().at(0));
  EXPECT_TRUE(last.at("choices").as_array().empty());
  expect_usage(last.at("usage"), 3, 8);
}

TEST(response_builder, StreamedCompletionsWithoutUsageHaveNoUsageKeyAndNoClosingChunk) {
  const api_request r = parse_ok(C, R"({"prompt":"Hello","stream":true})");
  response_builder b(r, llama3().tok.get(), "cmpl-n", k_created);
  std::vector<std::string> payloads;
  feed_choice(b, 0, 0, finish_reason::length, payloads);
  for (const std::string& p : payloads) EXPECT_FALSE(parsed(p).contains("usage"));
  EXPECT_TRUE(b.finish().empty());
}

TEST(response_builder, StreamedEchoPutsThePromptFirstInEachChoice) {
  const api_request r =
      parse_ok(C, R"({"prompt":["Hello","Hello world"],"echo":true,"stream":true})");
  response_builder b(r, llama3().tok.get(), "cmpl-echo", k_created);
  std::vector<std::string> payloads;
  feed_choice(b, 1, 0, finish_reason::length, payloads);
  feed_choice(b, 0, 0, finish_reason::length, payloads);
  const stream_log log = read_stream(payloads, C);
  EXPECT_EQ(log.text.at(0), "HelloHello world!");
  EXPECT_EQ(log.text.at(1), "Hello worldHello world!");
  EXPECT_EQ(log.chunks.front().at("choices").at(0).at("text").as_string(), "Hello worldHello");
}

TEST(response_builder, StreamedCompletionLogprobsKeepCountingTextOffsets) {
  const api_request r = parse_ok(C, R"({"prompt":"Hello","logprobs":0,"stream":true})");
  response_builder b(r, llama3().tok.get(), "cmpl-l", k_created);
  std::vector<std::string> payloads;
  feed_choice(b, 0, 0, finish_reason::length, payloads);
  ASSERT_EQ(payloads.size(), 4U);  // two tokens, the held-back "!", the finish chunk
  const json::object first = parsed(payloads[0]).at("choices").at(0).at("logprobs").as_object();
  const json::object second = parsed(payloads[1]).at("choices").at(0).at("logprobs").as_object();
  EXPECT_EQ(first.at("tokens"), json::array{"Hello"});
  EXPECT_EQ(first.at("text_offset"), json::array{0});
  EXPECT_EQ(first.at("top_logprobs"), (json::array{json::object{{" ", -0.25}, {"Hello", -0.5}}}));
  EXPECT_EQ(second.at("tokens"), json::array{" world"});
  EXPECT_EQ(second.at("text_offset"), json::array{5});
  EXPECT_TRUE(parsed(payloads[2]).at("choices").at(0).at("logprobs").is_null());
}

TEST(response_builder, ChatWithLogprobsHasTheMessageAndTokenEntries) {
  const api_request r = parse_ok(
      H, R"({"messages":[{"role":"user","content":"x"}],"n":2,"logprobs":true,"top_logprobs":1})");
  response_builder b(r, llama3().tok.get(), "chatcmpl-x", k_created);
  std::vector<std::string> payloads;
  feed_choice(b, 0, 1, finish_reason::stop, payloads);
  feed_choice(b, 0, 0, finish_reason::length, payloads);
  const json::object body = parsed(b.finish().at(0));
  expect_envelope(body, "chat.completion", "chatcmpl-x");
  const json::array& choices = body.at("choices").as_array();
  ASSERT_EQ(choices.size(), 2U);
  for (std::size_t k = 0; k < 2; ++k) {
    const json::object& c = choices[k].as_object();
    EXPECT_EQ(c.at("index").as_int64(), static_cast<std::int64_t>(k));
    EXPECT_EQ(c.at("message"), (json::object{{"role", "assistant"}, {"content", "Hello world!"}}));
    const json::array& content = c.at("logprobs").at("content").as_array();
    ASSERT_EQ(content.size(), 2U);
    EXPECT_EQ(content[1].at("token").as_string(), " world");
    EXPECT_EQ(content[1].at("logprob").as_double(), -1.25);
    EXPECT_EQ(content[1].at("bytes"), (json::array{32, 119, 111, 114, 108, 100}));
    EXPECT_EQ(content[1].at("top_logprobs"),
              (json::array{json::object{{"token", "Hello"},
                                        {"logprob", -2.0},
                                        {"bytes", json::array{72, 101, 108, 108, 111}}}}));
  }
  EXPECT_EQ(choices[0].at("finish_reason").as_string(), "length");
  EXPECT_EQ(choices[1].at("finish_reason").as_string(), "stop");
  const std::uint32_t prompt_len =
      static_cast<std::uint32_t>(r.prompts[0].request.prompt_token_ids.size());
  expect_usage(body.at("usage"), prompt_len, 4);
}

TEST(response_builder, ChatWithoutLogprobsHasNullLogprobs) {
  const api_request r = parse_ok(H, R"({"messages":[{"role":"user","content":"x"}]})");
  response_builder b(r, llama3().tok.get(), "chatcmpl-n", k_created);
  std::vector<std::string> payloads;
  feed_choice(b, 0, 0, finish_reason::stop, payloads);
  const json::object body = parsed(b.finish().at(0));
  EXPECT_TRUE(body.at("choices").at(0).at("logprobs").is_null());
}

TEST(response_builder, StreamedChatStartsWithTheRoleAndEndsWithAnEmptyDelta) {
  const api_request r = parse_ok(
      H, R"({"messages":[{"role":"user","content":"x"}],"n":2,"stream":true,"logprobs":true})");
  response_builder b(r, llama3().tok.get(), "chatcmpl-s", k_created);
  std::vector<std::string> payloads;
  feed_choice(b, 0, 0, finish_reason::stop, payloads);
  feed_choice(b, 0, 1, finish_reason::length, payloads);
  const stream_log log = read_stream(payloads, H);
  ASSERT_EQ(log.chunks.size(), 10U);  // per choice: role, 2 tokens, "!", finish
  for (const json::object& o : log.chunks) {
    expect_envelope(o, "chat.completion.chunk", "chatcmpl-s");
    EXPECT_FALSE(o.contains("usage"));
  }
  for (std::size_t start : {0U, 5U}) {
    const json::object& role = log.chunks[start].at("choices").at(0).as_object();
    EXPECT_EQ(role.at("delta"), (json::object{{"role", "assistant"}, {"content", ""}}));
    EXPECT_TRUE(role.at("finish_reason").is_null());
    const json::object& token = log.chunks[start + 1].at("choices").at(0).as_object();
    EXPECT_EQ(token.at("delta"), (json::object{{"content", "Hello"}}));
    const json::array& content = token.at("logprobs").at("content").as_array();
    ASSERT_EQ(content.size(), 1U);
    EXPECT_EQ(content[0].at("token").as_string(), "Hello");
    EXPECT_EQ(content[0].at("logprob").as_double(), -0.5);
    EXPECT_TRUE(content[0].at("top_logprobs").as_array().empty() ||
                content[0].at("top_logprobs").as_array().size() == 1U);
    const json::object& last = log.chunks[start + 4].at("choices").at(0).as_object();
    EXPECT_EQ(last.at("delta"), json::object());
  }
  EXPECT_EQ(log.text.at(0), "Hello world!");
  EXPECT_EQ(log.text.at(1), "Hello world!");
  EXPECT_EQ(log.finish_reason.at(0), "stop");
  EXPECT_EQ(log.finish_reason.at(1), "length");
  EXPECT_TRUE(b.finish().empty());
}

TEST(response_builder, StreamedChatWithContinuousUsageCountsTokensSoFar) {
  const api_request r = parse_ok(H, R"({"messages":[{"role":"user","content":"x"}],
      "stream":true,"stream_options":{"include_usage":true,"continuous_usage_stats":true}})");
  const std::int64_t prompt_len =
      static_cast<std::int64_t>(r.prompts[0].request.prompt_token_ids.size());
  response_builder b(r, llama3().tok.get(), "chatcmpl-u", k_created);
  std::vector<std::string> payloads;
  feed_choice(b, 0, 0, finish_reason::stop, payloads);
  ASSERT_EQ(payloads.size(), 5U);
  const std::int64_t tokens_so_far[] = {0, 1, 2, 2, 2};
  for (std::size_t i = 0; i < payloads.size(); ++i) {
    expect_usage(parsed(payloads[i]).at("usage"), prompt_len, tokens_so_far[i]);
  }
  const json::object last = parsed(b.finish().at(0));
  expect_envelope(last, "chat.completion.chunk", "chatcmpl-u");
  EXPECT_TRUE(last.at("choices").as_array().empty());
  expect_usage(last.at("usage"), prompt_len, 2);
}

TEST(response_builder, ErrorsAreReportedAndMapToFinishReasonError) {
  const api_request r = parse_ok(C, R"({"prompt":"Hello","n":2})");
  response_builder b(r, llama3().tok.get(), "cmpl-err", k_created);
  std::vector<std::string> payloads;
  request_final failed = final_of(1, finish_reason::error, 0);
  failed.error_message = "step failed";
  b.on_final(0, failed, payloads);
  feed_choice(b, 0, 0, finish_reason::length, payloads);
  ASSERT_TRUE(b.error_message().has_value());
  EXPECT_EQ(*b.error_message(), "step failed");
  const json::object body = parsed(b.finish().at(0));
  EXPECT_EQ(body.at("choices").at(1).at("finish_reason").as_string(), "error");
}

// As vLLM does: clients time tokens by chunks, so a token whose text is held back (e.g. a
// possible stop string) still gets a chunk, with empty text.
TEST(response_builder, AChunkWhoseTextIsHeldBackIsStillSentWithEmptyText) {
  const api_request r = parse_ok(C, R"({"prompt":"Hello","stream":true})");
  response_builder b(r, llama3().tok.get(), "cmpl-h", k_created);
  std::vector<std::string> payloads;
  b.on_chunk(0, chunk(0, {9906}, ""), payloads);
  ASSERT_EQ(payloads.size(), 1U);
  const json::object body = parsed(payloads[0]);
  const json::object& choice = body.at("choices").at(0).as_object();
  EXPECT_EQ(choice.at("text").as_string(), "");
  EXPECT_TRUE(choice.at("finish_reason").is_null());
}

TEST(response_builder, MinusInfinityIsSentAsMinus9999) {
  const api_request r = parse_ok(
      H, R"({"messages":[{"role":"user","content":"x"}],"logprobs":true,"top_logprobs":1})");
  response_builder b(r, llama3().tok.get(), "chatcmpl-inf", k_created);
  std::vector<std::string> payloads;
  const float inf = std::numeric_limits<float>::infinity();
  b.on_chunk(0, chunk(0, {9906}, "Hello", {{9906, -inf, {{220, -inf}}}}), payloads);
  b.on_final(0, final_of(0, finish_reason::length, 1), payloads);
  const json::object body = parsed(b.finish().at(0));
  const json::object& entry =
      body.at("choices").at(0).at("logprobs").at("content").at(0).as_object();
  EXPECT_EQ(entry.at("logprob").as_double(), -9999.0);
  EXPECT_EQ(entry.at("top_logprobs").at(0).at("logprob").as_double(), -9999.0);
}

TEST(response_builder, FinishReasonNames) {
  EXPECT_EQ(finish_reason_name(finish_reason::length), "length");
  EXPECT_EQ(finish_reason_name(finish_reason::stop), "stop");
  EXPECT_EQ(finish_reason_name(finish_reason::cancelled), "abort");
  EXPECT_EQ(finish_reason_name(finish_reason::error), "error");
}

TEST(response_builder, ResponseIdsArePrefixedRandomHex) {
  const std::string a = make_response_id(api_kind::completion);
  const std::string b = make_response_id(api_kind::chat_completion);
  ASSERT_EQ(a.rfind("cmpl-", 0), 0U);
  ASSERT_EQ(b.rfind("chatcmpl-", 0), 0U);
  EXPECT_EQ(a.size(), 5U + 32U);
  EXPECT_EQ(b.size(), 9U + 32U);
  EXPECT_EQ(a.substr(5).find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_NE(a.substr(5), make_response_id(api_kind::completion).substr(5));
}

}  // namespace
}  // namespace pagedserve::net
