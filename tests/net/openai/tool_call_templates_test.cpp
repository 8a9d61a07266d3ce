// The parsers against the real chat templates: an assistant message with tool calls is
// rendered by Qwen3's template (hermes) and a Llama-3.1 tool-use template (llama3_json), and
// the rendered assistant turn, taken as the model's text, must give back exactly those calls
// and the content the template wrote around them.

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <boost/json.hpp>

#include "net/openai/tool_call_parser.h"
#include "runtime/chat/chat_template.h"
#include "tests/net/openai/tool_call_test_support.h"
#include "tests/support/fixtures.h"
#include "tests/support/llama31_tool_template.h"

namespace pagedserve::net {
namespace {

namespace json = boost::json;

// Llama-3.1's tool-use template as on the hub (the shared llama3 tokenizer is Llama-3's,
// whose template has no tool calls); the same text as tests/runtime/chat's family tests.
constexpr const char* llama31_source = pagedserve::testing::llama31_tool_template;

std::string qwen3_source() {
  std::ifstream in(pagedserve::testing::tokenizers_dir() / "qwen3" / "tokenizer_config.json");
  std::stringstream ss;
  ss << in.rdbuf();
  return std::string(json::parse(ss.str()).at("chat_template").as_string());
}

// Renders {"messages": [...]} and returns the assistant turn: from after `open` up to `close`.
std::string assistant_turn(const std::string& source, std::string_view request,
                           std::string_view open, std::string_view close) {
  auto tmpl = chat_template::compile(source);
  EXPECT_TRUE(tmpl.ok());
  if (!tmpl.ok()) return {};
  auto r = parse_chat_request(json::parse(request).as_object());
  EXPECT_TRUE(r.ok());
  if (!r.ok()) return {};
  auto text = tmpl->render(*r);
  EXPECT_TRUE(text.ok()) << (text.ok() ? "" : text.err().message);
  if (!text.ok()) return {};
  const std::size_t from = text->rfind(open);
  EXPECT_NE(from, std::string::npos);
  const std::size_t begin = from + open.size();
  const std::size_t end = text->find(close, begin);
  EXPECT_NE(end, std::string::npos);
  return text->substr(begin, end - begin);
}

std::string qwen3_turn(std::string_view request) {
  return assistant_turn(qwen3_source(), request, "<|im_start|>assistant\n", "<|im_end|>");
}

std::string llama31_turn(std::string_view request) {
  return assistant_turn(llama31_source, request,
                        "<|start_header_id|>assistant<|end_header_id|>\n\n", "<|eot_id|>");
}

// Whether JSON text has no whitespace outside its strings.
bool is_compact(std::string_view text) {
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string && c == '\\') {
      ++i;  // the escaped byte
    } else if (c == '"') {
      in_string = !in_string;
    } else if (!in_string && (c == ' ' || c == '\n' || c == '\t' || c == '\r')) {
      return false;
    }
  }
  return true;
}

// The calls of the request's assistant message (messages[1]) came back: same names, same
// arguments as JSON, written compact.
void expect_round_trip(tool_call_format format, std::string_view request, const std::string& turn,
                       std::string_view content) {
  SCOPED_TRACE(turn);
  const json::value parsed = json::parse(request);
  const json::array& calls = parsed.at("messages").as_array().at(1).at("tool_calls").as_array();
  const extracted_tool_calls got = extract_tool_calls(format, turn);
  EXPECT_EQ(got.content, content);
  ASSERT_EQ(got.calls.size(), calls.size());
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const json::value& function = calls[i].at("function");
    EXPECT_EQ(got.calls[i].name, function.at("name").as_string());
    EXPECT_EQ(json::parse(got.calls[i].arguments), function.at("arguments"));
    EXPECT_TRUE(is_compact(got.calls[i].arguments)) << got.calls[i].arguments;
  }
  testing::expect_streaming_agrees(format, turn);
}

// clang-format off
constexpr std::string_view qwen3_one_call = R"~~({"messages": [{"role": "user", "content": "Weather in Paris?"}, {"role": "assistant", "content": "Let me check.", "tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris", "unit": "°C"}}}]}, {"role": "tool", "content": "21"}]})~~";
constexpr std::string_view qwen3_two_calls = R"~~({"messages": [{"role": "user", "content": "Paris and Oslo?"}, {"role": "assistant", "content": "Checking both.", "tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris", "days": [1, 2], "detail": {"wind": true, "note": "a \"quoted\" word\n"}}}}, {"type": "function", "function": {"name": "get_time", "arguments": {}}}]}, {"role": "tool", "content": "21"}]})~~";
constexpr std::string_view qwen3_no_content = R"~~({"messages": [{"role": "user", "content": "Oslo?"}, {"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Oslo", "lat": 59.91, "n": -3}}}]}, {"role": "tool", "content": "-3"}]})~~";
constexpr std::string_view llama31_one_call = R"~~({"messages": [{"role": "user", "content": "Weather in Oslo?"}, {"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Oslo", "units": ["C", "F"], "exact": false}}}]}, {"role": "tool", "content": "-3"}]})~~";
// clang-format on

TEST(tool_call_templates, Qwen3OneCallAfterContent) {
  const std::string turn = qwen3_turn(qwen3_one_call);
  // The template writes the content, "\n", then the block.
  EXPECT_EQ(turn,
            "Let me check.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": "
            "{\"city\": \"Paris\", \"unit\": \"°C\"}}\n</tool_call>");
  expect_round_trip(tool_call_format::hermes, qwen3_one_call, turn, "Let me check.\n");
}

TEST(tool_call_templates, Qwen3TwoCallsAfterContent) {
  const std::string turn = qwen3_turn(qwen3_two_calls);
  // Content, then "\n" before each block: the content before the first is kept as it is,
  // the whitespace between blocks is dropped.
  expect_round_trip(tool_call_format::hermes, qwen3_two_calls, turn, "Checking both.\n");
}

TEST(tool_call_templates, Qwen3CallWithoutContent) {
  const std::string turn = qwen3_turn(qwen3_no_content);
  EXPECT_TRUE(turn.starts_with("<tool_call>\n"));
  expect_round_trip(tool_call_format::hermes, qwen3_no_content, turn, "");
}

TEST(tool_call_templates, Llama31OneCall) {
  const std::string turn = llama31_turn(llama31_one_call);
  EXPECT_EQ(turn,
            "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Oslo\", \"units\": "
            "[\"C\", \"F\"], \"exact\": false}}");
  expect_round_trip(tool_call_format::llama3_json, llama31_one_call, turn, "");
}

// The template allows one call per message; two are written as Llama 3.1 writes them, after
// the python tag and separated by "; ", from the template's single-call text.
TEST(tool_call_templates, Llama31TwoCallsJoinedBySemicolon) {
  const std::string turn =
      "<|python_tag|>" + llama31_turn(llama31_one_call) + "; " + llama31_turn(llama31_one_call);
  const extracted_tool_calls got = extract_tool_calls(tool_call_format::llama3_json, turn);
  EXPECT_EQ(got.content, "");
  ASSERT_EQ(got.calls.size(), 2u);
  for (const parsed_tool_call& c : got.calls) {
    EXPECT_EQ(c.name, "get_weather");
    EXPECT_EQ(c.arguments, "{\"city\":\"Oslo\",\"units\":[\"C\",\"F\"],\"exact\":false}");
  }
  testing::expect_streaming_agrees(tool_call_format::llama3_json, turn);
}

}  // namespace
}  // namespace pagedserve::net
