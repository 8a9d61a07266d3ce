// Chat templates of the usual families, written as they appear in tokenizer_config.json on
// the hub. The expected texts of ChatML, Mistral and Llama-2 are hand-derived by reading
// the templates with Jinja's semantics (and agree with jinja2 3.1.6); the Qwen3 tool-use
// texts are jinja2 3.1.6's output under transformers' environment.

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <boost/json.hpp>

#include "runtime/chat/chat_template.h"
#include "tests/support/fixtures.h"
#include "tests/support/llama31_tool_template.h"

namespace pagedserve {
namespace {

constexpr const char* chatml_source =
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + "
    "message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ "
    "'<|im_start|>assistant\\n' }}{% endif %}";

constexpr const char* mistral_source =
    "{{ bos_token }}{% for message in messages %}{% if (message['role'] == 'user') != "
    "(loop.index0 % 2 == 0) %}{{ raise_exception('Conversation roles must alternate "
    "user/assistant/user/assistant/...') }}{% endif %}{% if message['role'] == 'user' %}{{ "
    "'[INST] ' + message['content'] + ' [/INST]' }}{% elif message['role'] == 'assistant' %}{{ "
    "message['content'] + eos_token}}{% else %}{{ raise_exception('Only user and assistant "
    "roles are supported!') }}{% endif %}{% endfor %}";

constexpr const char* llama2_source =
    "{% if messages[0]['role'] == 'system' %}{% set loop_messages = messages[1:] %}{% set "
    "system_message = messages[0]['content'] %}{% else %}{% set loop_messages = messages %}{% "
    "set system_message = false %}{% endif %}{% for message in loop_messages %}{% if "
    "(message['role'] == 'user') != (loop.index0 % 2 == 0) %}{{ raise_exception('Conversation "
    "roles must alternate user/assistant/user/assistant/...') }}{% endif %}{% if loop.index0 == "
    "0 and system_message != false %}{% set content = '<<SYS>>\\n' + system_message + "
    "'\\n<</SYS>>\\n\\n' + message['content'] %}{% else %}{% set content = message['content'] "
    "%}{% endif %}{% if message['role'] == 'user' %}{{ bos_token + '[INST] ' + content.strip() "
    "+ ' [/INST]' }}{% elif message['role'] == 'assistant' %}{{ ' '  + content.strip() + ' ' + "
    "eos_token }}{% endif %}{% endfor %}";

// clang-format off
// Qwen3 with tools, tool calls, tool responses and enable_thinking=false.
constexpr const char* qwen3_tools_request = R"~~({"messages": [{"role": "system", "content": "You are a weather bot."}, {"role": "user", "content": "Weather in Paris?"}, {"role": "assistant", "content": "<think>\nNeed the tool.\n</think>\n\nLet me check.", "tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris", "unit": "°C"}}}]}, {"role": "tool", "content": "{\"temp\": 21}"}, {"role": "tool", "content": "sunny"}, {"role": "assistant", "content": "It is 21 °C and sunny."}, {"role": "user", "content": "Thanks"}], "tools": [{"type": "function", "function": {"name": "get_weather", "description": "Current weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["°C", "°F"]}}, "required": ["city"]}}}], "add_generation_prompt": true, "enable_thinking": false})~~";
constexpr const char* qwen3_tools_text = R"~~(<|im_start|>system
You are a weather bot.

# Tools

You may call one or more functions to assist with the user query.

You are provided with function signatures within <tools></tools> XML tags:
<tools>
{"type": "function", "function": {"name": "get_weather", "description": "Current weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "unit": {"type": "string", "enum": ["°C", "°F"]}}, "required": ["city"]}}}
</tools>

For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:
<tool_call>
{"name": <function-name>, "arguments": <args-json-object>}
</tool_call><|im_end|>
<|im_start|>user
Weather in Paris?<|im_end|>
<|im_start|>assistant
Let me check.
<tool_call>
{"name": "get_weather", "arguments": {"city": "Paris", "unit": "°C"}}
</tool_call><|im_end|>
<|im_start|>user
<tool_response>
{"temp": 21}
</tool_response>
<tool_response>
sunny
</tool_response><|im_end|>
<|im_start|>assistant
It is 21 °C and sunny.<|im_end|>
<|im_start|>user
Thanks<|im_end|>
<|im_start|>assistant
<think>

</think>

)~~";

// Qwen3 keeps the reasoning of an assistant turn after the last user query.
constexpr const char* qwen3_reasoning_request = R"~~({"messages": [{"role": "user", "content": "2+2?"}, {"role": "assistant", "content": "<think>\nsimple\n</think>\n\n4"}], "add_generation_prompt": false})~~";
constexpr const char* qwen3_reasoning_text = R"~~(<|im_start|>user
2+2?<|im_end|>
<|im_start|>assistant
<think>
simple
</think>

4<|im_end|>
)~~";
// A Llama-3.1-style tool-use template (multi-line, {%- -%}, tojson(indent=4), items,
// reject, raise_exception); expected texts are jinja2 3.1.6's output.
constexpr const char* llama31_source = pagedserve::testing::llama31_tool_template;
constexpr const char* llama31_request_1 = R"~~({"messages": [{"role": "system", "content": "  Be helpful.  "}, {"role": "user", "content": "Weather in Oslo?"}, {"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Oslo"}}}]}, {"role": "tool", "content": "{\"temp\": -3}"}], "tools": [{"type": "function", "function": {"name": "get_weather", "description": "Get the weather", "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "City name"}}, "required": ["city"]}}}], "add_generation_prompt": true})~~";
constexpr const char* llama31_expected_1 = R"~~(<|begin_of_text|><|start_header_id|>system<|end_header_id|>

Environment: ipython
Cutting Knowledge Date: December 2023
Today Date: 26 Jul 2024

Be helpful.<|eot_id|><|start_header_id|>user<|end_header_id|>

Given the following functions, please respond with a JSON for a function call with its proper arguments that best answers the given prompt.

Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}.Do not use variables.

{
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the weather",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {
                    "type": "string",
                    "description": "City name"
                }
            },
            "required": [
                "city"
            ]
        }
    }
}

Weather in Oslo?<|eot_id|><|start_header_id|>assistant<|end_header_id|>

{"name": "get_weather", "parameters": {"city": "Oslo"}}<|eot_id|><|start_header_id|>ipython<|end_header_id|>

"{\"temp\": -3}"<|eot_id|><|start_header_id|>assistant<|end_header_id|>

)~~";
constexpr const char* llama31_request_2 = R"~~({"messages": [{"role": "user", "content": "Run it"}, {"role": "assistant", "tool_calls": [{"function": {"name": "brave_search", "arguments": {"query": "pagedattention"}}}]}], "builtin_tools": ["brave_search", "code_interpreter"], "date_string": "01 Dec 2026", "add_generation_prompt": false})~~";
constexpr const char* llama31_expected_2 = R"~~(<|begin_of_text|><|start_header_id|>system<|end_header_id|>

Environment: ipython
Tools: brave_search

Cutting Knowledge Date: December 2023
Today Date: 01 Dec 2026

<|eot_id|><|start_header_id|>user<|end_header_id|>

Run it<|eot_id|><|start_header_id|>assistant<|end_header_id|>

<|python_tag|>brave_search.call(query="pagedattention")<|eom_id|>)~~";
constexpr const char* llama31_request_3 = R"~~({"messages": [{"role": "user", "content": "a"}, {"role": "assistant", "tool_calls": [{"function": {"name": "x", "arguments": {}}}, {"function": {"name": "y", "arguments": {}}}]}]})~~";
constexpr const char* llama31_expected_3 = R"~~(This model only supports single tool-calls at once!)~~";
// clang-format on

chat_request request(const char* json) {
  auto r = parse_chat_request(boost::json::parse(json).as_object());
  EXPECT_TRUE(r.ok()) << r.err().message;
  return r.ok() ? std::move(r.value()) : chat_request{};
}

chat_request conversation(bool with_system) {
  return request(with_system ? R"({"messages": [{"role": "system", "content": "Be brief."},
                               {"role": "user", "content": "Hi"},
                               {"role": "assistant", "content": "Hello!"},
                               {"role": "user", "content": "Bye"}]})"
                             : R"({"messages": [{"role": "user", "content": "Hi"},
                               {"role": "assistant", "content": "Hello!"},
                               {"role": "user", "content": "Bye"}]})");
}

special_tokens sentencepiece_specials() {
  special_tokens s;
  s.bos_token = "<s>";
  s.eos_token = "</s>";
  return s;
}

std::string render_ok(const char* source, const chat_request& r) {
  auto tmpl = chat_template::compile(source);
  EXPECT_TRUE(tmpl.ok()) << tmpl.err().message;
  if (!tmpl.ok()) return {};
  auto text = tmpl->render(r);
  EXPECT_TRUE(text.ok()) << text.err().message;
  return text.ok() ? *text : std::string();
}

TEST(chat_families, ChatMLWithGenerationPrompt) {
  chat_request r = conversation(false);
  r.add_generation_prompt = true;
  EXPECT_EQ(render_ok(chatml_source, r),
            "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHello!<|im_end|>\n"
            "<|im_start|>user\nBye<|im_end|>\n<|im_start|>assistant\n");
}

TEST(chat_families, MistralInstAlternatesTurns) {
  chat_request r = conversation(false);
  r.specials = sentencepiece_specials();
  EXPECT_EQ(render_ok(mistral_source, r), "<s>[INST] Hi [/INST]Hello!</s>[INST] Bye [/INST]");
}

TEST(chat_families, MistralRejectsAConversationStartingWithTheAssistant) {
  chat_request r = request(R"({"messages": [{"role": "assistant", "content": "x"}]})");
  auto tmpl = chat_template::compile(mistral_source);
  ASSERT_TRUE(tmpl.ok());
  auto text = tmpl->render(r);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.err().message,
            "Conversation roles must alternate user/assistant/user/assistant/...");
}

TEST(chat_families, Llama2FoldsTheSystemPromptIntoTheFirstTurn) {
  chat_request r = conversation(true);
  r.specials = sentencepiece_specials();
  EXPECT_EQ(
      render_ok(llama2_source, r),
      "<s>[INST] <<SYS>>\nBe brief.\n<</SYS>>\n\nHi [/INST] Hello! </s><s>[INST] Bye [/INST]");
}

TEST(chat_families, Llama2StripsContentWithoutASystemPrompt) {
  chat_request r = request(R"({"messages": [{"role": "user", "content": "  Hi  "}]})");
  r.specials = sentencepiece_specials();
  EXPECT_EQ(render_ok(llama2_source, r), "<s>[INST] Hi [/INST]");
}

std::string qwen3_source() {
  std::ifstream in(testing::tokenizers_dir() / "qwen3" / "tokenizer_config.json");
  std::stringstream ss;
  ss << in.rdbuf();
  return std::string(boost::json::parse(ss.str()).at("chat_template").as_string());
}

special_tokens qwen3_specials() {
  special_tokens s;
  s.eos_token = "<|im_end|>";
  s.pad_token = "<|endoftext|>";
  return s;
}

TEST(chat_families, Qwen3WithToolsToolCallsAndThinkingDisabled) {
  chat_request r = request(qwen3_tools_request);
  r.specials = qwen3_specials();
  EXPECT_EQ(render_ok(qwen3_source().c_str(), r), qwen3_tools_text);
}

TEST(chat_families, Qwen3KeepsReasoningAfterTheLastQuery) {
  chat_request r = request(qwen3_reasoning_request);
  r.specials = qwen3_specials();
  EXPECT_EQ(render_ok(qwen3_source().c_str(), r), qwen3_reasoning_text);
}

special_tokens llama3_specials() {
  special_tokens s;
  s.bos_token = "<|begin_of_text|>";
  s.eos_token = "<|eot_id|>";
  return s;
}

TEST(chat_families, Llama31CustomToolsGoInTheFirstUserMessage) {
  chat_request r = request(llama31_request_1);
  r.specials = llama3_specials();
  EXPECT_EQ(render_ok(llama31_source, r), llama31_expected_1);
}

TEST(chat_families, Llama31BuiltinToolCallsUsePythonTag) {
  chat_request r = request(llama31_request_2);
  r.specials = llama3_specials();
  EXPECT_EQ(render_ok(llama31_source, r), llama31_expected_2);
}

TEST(chat_families, Llama31RejectsParallelToolCalls) {
  chat_request r = request(llama31_request_3);
  r.specials = llama3_specials();
  auto tmpl = chat_template::compile(llama31_source);
  ASSERT_TRUE(tmpl.ok()) << tmpl.err().message;
  auto text = tmpl->render(r);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.err().message, llama31_expected_3);
}

TEST(chat_families, DefaultTemplateIsChatML) {
  chat_request r = conversation(false);
  r.add_generation_prompt = true;
  EXPECT_EQ(render_ok(chat_template::default_source().c_str(), r), render_ok(chatml_source, r));
}

TEST(chat_families, RequestParsingKeepsUnknownKeysAsTemplateKwargs) {
  chat_request r = request(R"({"messages": [], "add_generation_prompt": true,
                               "enable_thinking": false, "tools": null})");
  EXPECT_TRUE(r.add_generation_prompt);
  EXPECT_FALSE(r.tools.has_value());
  ASSERT_TRUE(r.extra.contains("enable_thinking"));
  EXPECT_FALSE(r.extra.at("enable_thinking").as_bool());
}

TEST(chat_families, RequestParsingRejectsMalformedFields) {
  EXPECT_FALSE(parse_chat_request(boost::json::parse(R"({"messages": "hi"})").as_object()).ok());
  EXPECT_FALSE(
      parse_chat_request(boost::json::parse(R"({"add_generation_prompt": true})").as_object())
          .ok());
  EXPECT_FALSE(
      parse_chat_request(
          boost::json::parse(R"({"messages": [], "add_generation_prompt": 1})").as_object())
          .ok());
}

TEST(chat_families, ToolsAndDocumentsAreNoneWhenAbsent) {
  chat_request r = request(R"({"messages": []})");
  EXPECT_EQ(render_ok("{{ tools is none }} {{ documents is none }} {{ tools is defined }}", r),
            "True True True");
}

}  // namespace
}  // namespace pagedserve
