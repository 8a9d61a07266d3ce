// Tool calls in OpenAI's shapes: a hermes answer (Qwen3's format) with content before two
// calls, streamed in small pieces and whole; a required answer (the grammar's JSON list); a
// named function's arguments. Expected shapes are OpenAI's published ones
// (message.tool_calls[i].{id, type, function.{name, arguments}}; delta.tool_calls[i] with
// index, the first piece carrying id/type/name).

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "net/openai/response_builder.h"
#include "tests/net/openai/openai_fixture.h"

namespace pagedserve::net {
namespace {

namespace json = boost::json;
using testing::parse_ok;
constexpr std::int64_t k_created = 1700000000;

// A chat request whose answer is read as tool calls in `format`.
api_request tool_request(bool stream, tool_call_format format, std::string named = {},
                         bool parallel = true) {
  api_request r = parse_ok(api_kind::chat_completion,
                           stream ? R"({"messages":[{"role":"user","content":"x"}],"stream":true})"
                                  : R"({"messages":[{"role":"user","content":"x"}]})");
  r.tool_calls = tool_call_options{format, std::move(named), parallel};
  return r;
}

// The answer's text in pieces of `piece` bytes, then a final with finish_reason stop.
std::vector<std::string> feed(response_builder& b, const std::string& text, std::size_t piece) {
  std::vector<std::string> payloads;
  for (std::size_t at = 0; at < text.size(); at += piece) {
    token_chunk c;
    c.token_ids = {1};
    c.text = text.substr(at, piece);
    b.on_chunk(0, c, payloads);
  }
  request_final f;
  f.reason = finish_reason::stop;
  f.usage.completion_tokens = 1;
  b.on_final(0, f, payloads);
  return payloads;
}

const std::string k_hermes =
    "Let me check.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": "
    "\"Paris\", \"days\": 3}}\n</tool_call>\n<tool_call>\n{\"name\": \"get_time\", "
    "\"arguments\": {}}\n</tool_call>";

TEST(response_tool_calls, HermesAnswerWhole) {
  const api_request r = tool_request(false, tool_call_format::hermes);
  response_builder b(r, nullptr, "chatcmpl-x", k_created);
  feed(b, k_hermes, 7);
  const json::object body = json::parse(b.finish().at(0)).as_object();
  const json::object& choice = body.at("choices").as_array().at(0).as_object();
  EXPECT_EQ(choice.at("finish_reason").as_string(), "tool_calls");
  const json::object& message = choice.at("message").as_object();
  // The text before the calls is content; the newline between the blocks is not.
  EXPECT_EQ(message.at("content").as_string(), "Let me check.\n");
  const json::array& calls = message.at("tool_calls").as_array();
  ASSERT_EQ(calls.size(), 2U);
  for (const json::value& call : calls) {
    EXPECT_TRUE(call.at("id").as_string().starts_with("chatcmpl-tool-"));
    EXPECT_EQ(call.at("type").as_string(), "function");
  }
  EXPECT_NE(calls[0].at("id"), calls[1].at("id"));
  EXPECT_EQ(calls[0].at("function").at("name").as_string(), "get_weather");
  EXPECT_EQ(json::parse(calls[0].at("function").at("arguments").as_string()),
            json::parse(R"({"city":"Paris","days":3})"));
  EXPECT_EQ(calls[1].at("function").at("name").as_string(), "get_time");
  EXPECT_EQ(json::parse(calls[1].at("function").at("arguments").as_string()), json::object());
}

TEST(response_tool_calls, HermesAnswerStreamedInPieces) {
  for (const std::size_t piece : {1U, 3U, 16U}) {
    const api_request r = tool_request(true, tool_call_format::hermes);
    response_builder b(r, nullptr, "chatcmpl-x", k_created);
    std::string content;
    std::vector<std::string> names;
    std::vector<std::string> arguments;
    std::vector<std::string> ids;
    std::string finish;
    for (const std::string& payload : feed(b, k_hermes, piece)) {
      const json::value parsed = json::parse(payload);
      const json::object& choice = parsed.at("choices").as_array().at(0).as_object();
      if (!choice.at("finish_reason").is_null()) finish = choice.at("finish_reason").as_string();
      const json::object& delta = choice.at("delta").as_object();
      if (const json::value* c = delta.if_contains("content")) content += c->as_string();
      const json::value* calls = delta.if_contains("tool_calls");
      if (calls == nullptr) continue;
      for (const json::value& call : calls->as_array()) {
        const auto index = static_cast<std::size_t>(call.at("index").to_number<std::int64_t>());
        if (const json::value* id = call.as_object().if_contains("id")) {
          ASSERT_EQ(index, names.size()) << "a new call's first delta comes in order";
          ids.emplace_back(id->as_string());
          EXPECT_EQ(call.at("type").as_string(), "function");
          names.emplace_back(call.at("function").at("name").as_string());
          arguments.emplace_back();
        }
        ASSERT_LT(index, arguments.size()) << "arguments before the call's name";
        arguments[index] += call.at("function").at("arguments").as_string();
      }
    }
    SCOPED_TRACE("pieces of " + std::to_string(piece));
    EXPECT_EQ(content, "Let me check.\n");
    EXPECT_EQ(names, (std::vector<std::string>{"get_weather", "get_time"}));
    ASSERT_EQ(arguments.size(), 2U);
    EXPECT_EQ(json::parse(arguments[0]), json::parse(R"({"city":"Paris","days":3})"));
    EXPECT_EQ(json::parse(arguments[1]), json::object());
    EXPECT_EQ(finish, "tool_calls");
  }
}

TEST(response_tool_calls, RequiredListWithoutParallelCallsKeepsTheFirst) {
  const api_request r = tool_request(false, tool_call_format::json_array, {}, false);
  response_builder b(r, nullptr, "chatcmpl-x", k_created);
  feed(
      b,
      R"([{"name":"get_time","parameters":{"zone":"UTC"}},{"name":"get_weather","parameters":{}}])",
      5);
  const json::value body = json::parse(b.finish().at(0));
  const json::object& choice = body.at("choices").as_array().at(0).as_object();
  EXPECT_EQ(choice.at("finish_reason").as_string(), "tool_calls");
  EXPECT_TRUE(choice.at("message").at("content").is_null());
  const json::array& calls = choice.at("message").at("tool_calls").as_array();
  ASSERT_EQ(calls.size(), 1U);
  EXPECT_EQ(calls[0].at("function").at("name").as_string(), "get_time");
  EXPECT_EQ(calls[0].at("function").at("arguments").as_string(), R"({"zone":"UTC"})");
}

TEST(response_tool_calls, NamedFunctionEndsWithStop) {
  const api_request r = tool_request(false, tool_call_format::named, "get_weather", false);
  response_builder b(r, nullptr, "chatcmpl-x", k_created);
  feed(b, R"({"city":"Oslo"})", 4);
  const json::value body = json::parse(b.finish().at(0));
  const json::object& choice = body.at("choices").as_array().at(0).as_object();
  EXPECT_EQ(choice.at("finish_reason").as_string(), "stop");
  const json::array& calls = choice.at("message").at("tool_calls").as_array();
  ASSERT_EQ(calls.size(), 1U);
  EXPECT_EQ(calls[0].at("function").at("name").as_string(), "get_weather");
  EXPECT_EQ(calls[0].at("function").at("arguments").as_string(), R"({"city":"Oslo"})");
}

}  // namespace
}  // namespace pagedserve::net
