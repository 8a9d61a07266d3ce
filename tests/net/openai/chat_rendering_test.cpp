// Chat bodies rendered through the real Qwen3 and Llama-3 templates (and small templates
// that print one variable): assistant tool_calls with null content, tool messages,
// function.arguments parsed from JSON text as vLLM does, documents, continue_final_message.
// Every expected text is hand-derived by reading the template (tokenizer_config.json in
// tests/data/tokenizers) with Jinja's semantics and vLLM's preprocessing; the prompt ids must
// be the ids of that text.

#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "tests/net/openai/openai_fixture.h"

namespace pagedserve::net {
namespace {

using testing::llama3;
using testing::parse;
using testing::parse_ok;
using testing::served_model;

constexpr api_kind H = api_kind::chat_completion;

const served_model& qwen3() {
  static const served_model model = [] {
    served_model m = testing::load_served_model("qwen3");
    m.context.max_model_len = 1024;
    return m;
  }();
  return model;
}

// The body's prompt must be exactly `text` encoded as the chat path encodes it.
void expect_prompt(const std::string& body, const std::string& text, const model_context& model) {
  const api_request r = parse_ok(H, body, model);
  ASSERT_EQ(r.prompts.size(), 1U);
  const std::vector<token_id>& ids = r.prompts[0].request.prompt_token_ids;
  EXPECT_EQ(ids, encode_chat(*model.tok, text)) << "rendered: " << model.tok->decode(ids, false);
}

// A model_context whose template is `source` (kept alive for the test's duration).
struct custom_model {
  std::unique_ptr<chat_template> tmpl;
  model_context context;
};
custom_model with_template(const std::string& source) {
  custom_model m;
  auto compiled = chat_template::compile(source);
  EXPECT_TRUE(compiled) << compiled.err().message;
  if (compiled) m.tmpl = std::make_unique<chat_template>(std::move(compiled.value()));
  m.context = llama3().context;
  m.context.max_model_len = 1024;
  m.context.template_ = m.tmpl.get();
  return m;
}

constexpr const char* tool_turns = R"([
    {"role":"user","content":"Weather in Paris?"},
    {"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function",
     "function":{"name":"get_weather","arguments":"{\"city\":\"Paris\",\"unit\":\"°C\"}"}}]},
    {"role":"tool","tool_call_id":"call_1","content":"21"}])";

TEST(chat_rendering, Qwen3RendersToolCallsAndToolResponses) {
  // No `tools`: no system block. The last user query is message 0, so the assistant turn
  // (not last) has no <think> block; its content is "" (null), so no newline before the
  // call; the arguments, parsed to a dict, print with `tojson` (", " and ": ", °C as is).
  // The tool message opens a user turn with <tool_response>.
  const std::string expected =
      "<|im_start|>user\nWeather in Paris?<|im_end|>\n"
      "<|im_start|>assistant\n<tool_call>\n"
      "{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"unit\": \"°C\"}}\n"
      "</tool_call><|im_end|>\n"
      "<|im_start|>user\n<tool_response>\n21\n</tool_response><|im_end|>\n"
      "<|im_start|>assistant\n";
  expect_prompt(testing::cat({R"({"messages":)", tool_turns, "}"}), expected, qwen3().context);
}

TEST(chat_rendering, Llama3RendersAToolCallTurnWithNullContentAsEmpty) {
  // Llama-3's template prints role and `content | trim` per message: null content is "" (as
  // vLLM's string content format gives it), not "None".
  const std::string expected =
      "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nWeather in Paris?<|eot_id|>"
      "<|start_header_id|>assistant<|end_header_id|>\n\n<|eot_id|>"
      "<|start_header_id|>tool<|end_header_id|>\n\n21<|eot_id|>"
      "<|start_header_id|>assistant<|end_header_id|>\n\n";
  expect_prompt(testing::cat({R"({"messages":)", tool_turns, "}"}), expected, llama3().context);
}

TEST(chat_rendering, ArgumentsAreParsedAsVllmParsesThem) {
  // vLLM's _postprocess_messages: a JSON string becomes its value, text that is not JSON and
  // absent/null/scalar arguments become {}, objects and arrays stay.
  const custom_model m = with_template(
      "{% for m in messages %}{% for c in m.tool_calls %}{{ c.function.arguments | tojson }};"
      "{% endfor %}{% endfor %}");
  const std::string body = R"({"messages":[{"role":"assistant","content":"","tool_calls":[
      {"type":"function","function":{"name":"f","arguments":"{\"a\":1,\"b\":[true,null]}"}},
      {"type":"function","function":{"name":"f","arguments":"not json"}},
      {"type":"function","function":{"name":"f","arguments":""}},
      {"type":"function","function":{"name":"f"}},
      {"type":"function","function":{"name":"f","arguments":null}},
      {"type":"function","function":{"name":"f","arguments":7}},
      {"type":"function","function":{"name":"f","arguments":{"k":"v"}}},
      {"type":"function","function":{"name":"f","arguments":"[1, 2]"}},
      {"type":"function","function":{"name":"f","arguments":"\"s\""}}]}],
      "add_generation_prompt":false})";
  expect_prompt(body, "{\"a\": 1, \"b\": [true, null]};{};{};{};{};{};{\"k\": \"v\"};[1, 2];\"s\";",
                m.context);
}

TEST(chat_rendering, EmptyOrNullToolCallsAreDropped) {
  const custom_model m =
      with_template("{% for m in messages %}{{ m.tool_calls is defined }}{% endfor %}");
  expect_prompt(R"({"messages":[{"role":"assistant","content":"a","tool_calls":[]},
                               {"role":"assistant","content":"b","tool_calls":null}]})",
                "FalseFalse", m.context);
}

TEST(chat_rendering, DocumentsReachTheTemplate) {
  const custom_model m = with_template(
      "{% for d in documents %}[{{ d.title }}|{{ d.text }}]{% endfor %}"
      "{% for m in messages %}{{ m.content }}{% endfor %}");
  expect_prompt(R"({"messages":[{"role":"user","content":"Hi"}],
                    "documents":[{"title":"T1","text":"one"},{"title":"T2","text":"two"}]})",
                "[T1|one][T2|two]Hi", m.context);
  const custom_model none = with_template("{{ documents is none }}");
  expect_prompt(R"({"messages":[{"role":"user","content":"Hi"}]})", "True", none.context);
}

TEST(chat_rendering, Qwen3ContinuesTheFinalAssistantMessage) {
  // The assistant turn after the last query is rendered with an empty <think> block, then
  // cut right after its content: no <|im_end|>, no generation prompt.
  expect_prompt(R"({"messages":[{"role":"user","content":"Write a haiku"},
                               {"role":"assistant","content":"Autumn moon"}],
                    "add_generation_prompt":false,"continue_final_message":true})",
                "<|im_start|>user\nWrite a haiku<|im_end|>\n"
                "<|im_start|>assistant\n<think>\n\n</think>\n\nAutumn moon",
                qwen3().context);
}

TEST(chat_rendering, Llama3ContinuesAfterTheTrimmedContent) {
  // The template trims "Hello there " and always ends with an assistant header; the cut
  // follows the stripped text and drops both.
  expect_prompt(R"({"messages":[{"role":"user","content":"Hi"},
                               {"role":"assistant","content":"Hello there "}],
                    "add_generation_prompt":false,"continue_final_message":true})",
                "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>"
                "<|start_header_id|>assistant<|end_header_id|>\n\nHello there",
                llama3().context);
}

TEST(chat_rendering, AFinalUserMessageIsContinuedAsVllmDoes) {
  // vLLM (and transformers) do not check the final message's role.
  expect_prompt(R"({"messages":[{"role":"user","content":"Hi"}],
                    "add_generation_prompt":false,"continue_final_message":true})",
                "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi",
                llama3().context);
}

TEST(chat_rendering, ATemplateThatDropsTheFinalMessageCannotContinueIt) {
  const custom_model m = with_template("{% for m in messages %}{{ m.role }}{% endfor %}");
  const parse_outcome out = parse(H,
                                  R"({"messages":[{"role":"assistant","content":"gone"}],
                                      "add_generation_prompt":false,"continue_final_message":true})",
                                  m.context);
  ASSERT_TRUE(std::holds_alternative<api_error>(out));
  EXPECT_EQ(std::get<api_error>(out).param, "messages");
}

}  // namespace
}  // namespace pagedserve::net
