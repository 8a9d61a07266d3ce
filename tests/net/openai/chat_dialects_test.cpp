// The APIs that are chat underneath (chat_dialect.h). The reference for a translated request
// is parse_chat_request on the chat body a person writes by hand for the same conversation:
// both must give the same prompt tokens and sampling. The dialects' streams are checked
// against the event grammar their APIs document; the official SDKs check them end to end
// (tests/net/e2e/agent_apis.mjs).

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <boost/json.hpp>

#include "net/openai/anthropic_error.h"
#include "net/openai/messages_dialect.h"
#include "net/openai/messages_request.h"
#include "net/openai/response_store.h"
#include "net/openai/responses_dialect.h"
#include "net/openai/responses_request.h"
#include "tests/net/openai/openai_fixture.h"

namespace pagedserve::net {
namespace {

using testing::llama3;
using testing::parse_ok;

void expect_same_request(const api_request& got, const api_request& want) {
  ASSERT_EQ(got.prompts.size(), 1U);
  ASSERT_EQ(want.prompts.size(), 1U);
  const generation_request& g = got.prompts[0].request;
  const generation_request& w = want.prompts[0].request;
  EXPECT_EQ(g.prompt_token_ids, w.prompt_token_ids);
  EXPECT_EQ(g.sampling.max_tokens, w.sampling.max_tokens);
  EXPECT_EQ(g.sampling.temperature, w.sampling.temperature);
  EXPECT_EQ(g.sampling.top_k, w.sampling.top_k);
  EXPECT_EQ(g.sampling.seed, w.sampling.seed);
  EXPECT_EQ(g.sampling.stop, w.sampling.stop);
  EXPECT_EQ(got.stream, want.stream);
  EXPECT_EQ(got.tool_calls.has_value(), want.tool_calls.has_value());
  if (got.tool_calls && want.tool_calls) {
    EXPECT_EQ(got.tool_calls->format, want.tool_calls->format);
    EXPECT_EQ(got.tool_calls->named_function, want.tool_calls->named_function);
    EXPECT_EQ(got.tool_calls->parallel_tool_calls, want.tool_calls->parallel_tool_calls);
  }
}

api_request messages_ok(const std::string& body) {
  parse_outcome out =
      parse_messages_request(boost::json::parse(body), llama3().context, messages_endpoint::create);
  if (auto* err = std::get_if<api_error>(&out)) {
    ADD_FAILURE() << err->message;
    return {};
  }
  return std::get<api_request>(std::move(out));
}

TEST(messages_request, IsTheChatRequestOfTheSameConversation) {
  const api_request got = messages_ok(R"({
    "model": "llama-test", "max_tokens": 20, "system": [{"type": "text", "text": "Be brief."}],
    "temperature": 0.5, "top_k": 7, "seed": 3, "stop_sequences": ["END"], "stream": true,
    "tools": [{"name": "f", "description": "d", "input_schema": {"type": "object"}}],
    "tool_choice": {"type": "tool", "name": "f"},
    "messages": [
      {"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
      {"role": "assistant", "content": [{"type": "text", "text": "ok"},
                                        {"type": "tool_use", "id": "t1", "name": "f", "input": {"x": 1}}]},
      {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "42"},
                                   {"type": "text", "text": "and?"}]}]})");
  const api_request want = parse_ok(api_kind::chat_completion, R"({
    "model": "llama-test", "max_tokens": 20, "temperature": 0.5, "top_k": 7, "seed": 3,
    "stop": ["END"], "stream": true, "stream_options": {"include_usage": true},
    "tools": [{"type": "function", "function": {"name": "f", "description": "d", "parameters": {"type": "object"}}}],
    "tool_choice": {"type": "function", "function": {"name": "f"}},
    "messages": [
      {"role": "system", "content": "Be brief."},
      {"role": "user", "content": "a\nb"},
      {"role": "assistant", "content": "ok",
       "tool_calls": [{"id": "t1", "type": "function", "function": {"name": "f", "arguments": "{\"x\":1}"}}]},
      {"role": "tool", "tool_call_id": "t1", "content": "42"},
      {"role": "user", "content": "and?"}]})");
  expect_same_request(got, want);
  EXPECT_TRUE(got.include_usage);
}

TEST(messages_request, ErrorsNameTheMessagesField) {
  const auto refused = [](const std::string& body) {
    parse_outcome out = parse_messages_request(boost::json::parse(body), llama3().context,
                                               messages_endpoint::create);
    return std::get<api_error>(out);
  };
  const std::string msgs = R"("messages": [{"role": "user", "content": "hi"}])";
  const api_error stop =
      refused(R"({"model": "llama-test", "max_tokens": 4, "stop_sequences": [1], )" + msgs + "}");
  EXPECT_EQ(stop.param.value_or(""), "stop_sequences");
  EXPECT_NE(stop.message.find("'stop_sequences"), std::string::npos) << stop.message;
  const api_error budget = refused(R"({"model": "llama-test", )" + msgs + "}");
  EXPECT_EQ(budget.param.value_or(""), "max_tokens");
  const boost::json::object shaped = to_anthropic_json(budget);
  EXPECT_EQ(shaped.at("type"), "error");
  EXPECT_EQ(shaped.at("error").at("type"), "invalid_request_error");
  EXPECT_EQ(std::string(shaped.at("error").at("message").as_string()).rfind("max_tokens: ", 0), 0U);
  EXPECT_EQ(anthropic_error_type(401), "authentication_error");
  EXPECT_EQ(anthropic_error_type(404), "not_found_error");
  EXPECT_EQ(anthropic_error_type(429), "rate_limit_error");
  EXPECT_EQ(anthropic_error_type(500), "api_error");
}

TEST(renamed_param, RenamesTheFieldAndItsPathsOnly) {
  api_error err =
      bad_request("Invalid value for 'messages[2].content': x 'messagesX'", "messages[2].content");
  err = renamed_param(std::move(err), "messages", "input");
  EXPECT_EQ(err.param.value_or(""), "input[2].content");
  EXPECT_EQ(err.message, "Invalid value for 'input[2].content': x 'messagesX'");
  const api_error other =
      renamed_param(bad_request("'stopper' bad", "stopper"), "stop", "stop_sequences");
  EXPECT_EQ(other.param.value_or(""), "stopper");
}

TEST(response_store, KeepsTheNewestWithinCountAndBytes) {
  response_store store(2, 1 << 20);
  for (const char* id : {"a", "b", "c"}) store.put(id, stored_response{{{"id", id}}, {}});
  EXPECT_FALSE(store.get("a"));
  EXPECT_TRUE(store.get("b"));
  EXPECT_TRUE(store.get("c"));
  EXPECT_TRUE(store.erase("b"));
  EXPECT_FALSE(store.erase("b"));
  EXPECT_EQ(store.size(), 1U);

  // Bytes: each entry is its id plus the serialized response and conversation.
  const std::string big(100, 'x');
  const std::uint64_t one = 1 + boost::json::serialize(boost::json::object{{"t", big}}).size() + 2;
  response_store bounded(100, 2 * one);
  for (const char* id : {"p", "q", "r"}) bounded.put(id, stored_response{{{"t", big}}, {}});
  EXPECT_FALSE(bounded.get("p"));
  EXPECT_EQ(bounded.bytes(), 2 * one);
  bounded.put("huge", stored_response{{{"t", std::string(4 * one, 'y')}}, {}});
  EXPECT_FALSE(bounded.get("huge"));  // larger than the bound alone: not kept
  EXPECT_TRUE(bounded.get("r"));
}

TEST(responses_request, PreviousResponseIdContinuesTheStoredConversation) {
  response_store store;
  boost::json::array earlier = boost::json::parse(R"([
    {"role": "user", "content": "hi"},
    {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function",
      "function": {"name": "f", "arguments": "{}"}}]}])")
                                   .as_array();
  store.put("resp_1", stored_response{{}, earlier});
  auto out = parse_responses_request(boost::json::parse(R"({
    "model": "llama-test", "instructions": "sys", "previous_response_id": "resp_1",
    "input": [{"type": "function_call_output", "call_id": "c1", "output": "9"},
              {"role": "user", "content": [{"type": "input_text", "text": "so?"}]}],
    "max_output_tokens": 12, "temperature": 0})"),
                                     llama3().context, store);
  ASSERT_TRUE(std::holds_alternative<responses_request>(out)) << std::get<api_error>(out).message;
  const responses_request& got = std::get<responses_request>(out);
  const api_request want = parse_ok(api_kind::chat_completion, R"({
    "model": "llama-test", "max_completion_tokens": 12, "temperature": 0,
    "messages": [{"role": "system", "content": "sys"}, {"role": "user", "content": "hi"},
      {"role": "assistant", "content": "", "tool_calls": [{"id": "c1", "type": "function",
        "function": {"name": "f", "arguments": "{}"}}]},
      {"role": "tool", "tool_call_id": "c1", "content": "9"}, {"role": "user", "content": "so?"}]})");
  expect_same_request(got.chat, want);
  EXPECT_EQ(got.conversation.size(), 4U);  // the instructions are not carried to the next turn

  auto missing = parse_responses_request(
      boost::json::parse(R"({"input": "x", "previous_response_id": "resp_gone"})"),
      llama3().context, store);
  const api_error& err = std::get<api_error>(missing);
  EXPECT_EQ(err.status, 404U);
  EXPECT_EQ(err.param.value_or(""), "previous_response_id");
}

std::vector<std::string> names(const std::vector<sse_event>& events) {
  std::vector<std::string> out;
  for (const sse_event& e : events) out.push_back(e.name);
  return out;
}

// Chat chunks as response_builder streams them: reasoning, text, a tool call in two pieces,
// its finish and the usage chunk.
const char* const k_chunks[] = {
    R"({"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": null}]})",
    R"({"choices": [{"index": 0, "delta": {"reasoning_content": "hm"}, "finish_reason": null}]})",
    R"({"choices": [{"index": 0, "delta": {"content": "Hi"}, "finish_reason": null}]})",
    R"({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "c", "type": "function", "function": {"name": "f", "arguments": ""}}]}, "finish_reason": null}]})",
    R"({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "{\"a\":"}}]}, "finish_reason": null}]})",
    R"({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "1}"}}]}, "finish_reason": null}]})",
    R"({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls", "stop_reason": null}]})",
    R"({"choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 5, "total_tokens": 14, "prompt_tokens_details": {"cached_tokens": 4}}})",
};

template <class Dialect>
std::vector<sse_event> stream_through(Dialect& dialect) {
  std::vector<sse_event> events;
  for (const char* chunk : k_chunks)
    dialect.on_chunk(boost::json::parse(chunk).as_object(), events);
  dialect.close(events);
  return events;
}

TEST(messages_dialect, StreamsBlocksInAnthropicsOrder) {
  messages_dialect dialect("m", 9);
  const std::vector<sse_event> events = stream_through(dialect);
  const std::vector<std::string> want = {
      "message_start",       "content_block_start", "content_block_delta", "content_block_stop",
      "content_block_start", "content_block_delta", "content_block_stop",  "content_block_start",
      "content_block_delta", "content_block_delta", "content_block_stop",  "message_delta",
      "message_stop"};
  EXPECT_EQ(names(events), want);
  const boost::json::value delta = boost::json::parse(events[11].data);
  EXPECT_EQ(delta.at("delta").at("stop_reason"), "tool_use");
  EXPECT_EQ(delta.at("usage").at("input_tokens"), 5);  // 9 prompt tokens, 4 from the cache
  EXPECT_EQ(delta.at("usage").at("cache_read_input_tokens"), 4);
  EXPECT_EQ(delta.at("usage").at("output_tokens"), 5);
  EXPECT_EQ(boost::json::parse(events[7].data).at("index"), 2);
  EXPECT_EQ(boost::json::parse(events[8].data).at("delta").at("partial_json"), "{\"a\":");
}

TEST(responses_dialect, StreamsItemsAndStoresTheResponse) {
  response_store store;
  responses_dialect dialect(
      "m", {}, boost::json::parse(R"([{"role": "user", "content": "q"}])").as_array(), &store);
  const std::vector<sse_event> events = stream_through(dialect);
  const std::vector<std::string> want = {"response.created",
                                         "response.in_progress",
                                         "response.output_item.added",
                                         "response.reasoning_text.delta",
                                         "response.reasoning_text.done",
                                         "response.output_item.done",
                                         "response.output_item.added",
                                         "response.content_part.added",
                                         "response.output_text.delta",
                                         "response.output_text.done",
                                         "response.content_part.done",
                                         "response.output_item.done",
                                         "response.output_item.added",
                                         "response.function_call_arguments.delta",
                                         "response.function_call_arguments.delta",
                                         "response.function_call_arguments.done",
                                         "response.output_item.done",
                                         "response.completed"};
  EXPECT_EQ(names(events), want);
  for (std::size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(boost::json::parse(events[i].data).at("sequence_number"),
              static_cast<std::int64_t>(i));
  }
  const boost::json::object response =
      boost::json::parse(events.back().data).at("response").as_object();
  EXPECT_EQ(response.at("output").as_array().size(), 3U);
  EXPECT_EQ(response.at("output").at(2).at("arguments"), "{\"a\":1}");
  EXPECT_EQ(response.at("usage").at("input_tokens_details").at("cached_tokens"), 4);
  const auto stored = store.get(std::string(response.at("id").as_string()));
  ASSERT_TRUE(stored);
  ASSERT_EQ(stored->conversation.size(), 2U);  // the question, then the answer with its call
  EXPECT_EQ(stored->conversation.at(1).at("content"), "Hi");
  EXPECT_EQ(stored->conversation.at(1).at("tool_calls").at(0).at("id"), "c");
}

}  // namespace
}  // namespace pagedserve::net
