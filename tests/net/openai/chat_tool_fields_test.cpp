// The tool fields of a chat request: what each tool_choice asks of the engine (nothing; the
// server's parser; a grammar forcing a list of calls or the named function's arguments),
// and the tools reaching the chat template (Qwen3's renders them into the prompt).

#include <gtest/gtest.h>

#include <string>

#include "net/openai/chat_tool_fields.h"
#include "tests/net/openai/openai_fixture.h"

namespace pagedserve::net {
namespace {

using testing::cat;
using testing::parse;
using testing::parse_ok;
constexpr api_kind H = api_kind::chat_completion;

constexpr const char* k_weather_tool =
    R"({"type":"function","function":{"name":"get_weather","description":"Weather of a city",)"
    R"("parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}})";
constexpr const char* k_time_tool = R"({"type":"function","function":{"name":"get_time"}})";

// Llama-3 with room for its tool prompt (the fixture's 256 tokens are too few).
const testing::served_model& llama3_with_tools() {
  static const testing::served_model model = [] {
    testing::served_model m = testing::load_served_model("llama3");
    m.context.max_model_len = 4096;
    return m;
  }();
  return model;
}

api_request parse_tools(const std::string& body) {
  return parse_ok(H, body, llama3_with_tools().context);
}

std::string chat_with(const std::string& fields) {
  return cat({R"({"messages":[{"role":"user","content":"Weather in Paris?"}],"tools":[)",
              k_weather_tool, ",", k_time_tool, "],", fields, "}"});
}

TEST(chat_tool_fields, NoneAsksNothingButTheTemplateStillSeesTheTools) {
  testing::served_model qwen3 = testing::load_served_model("qwen3");
  qwen3.context.max_model_len = 4096;
  const api_request r = parse_ok(H, chat_with(R"("tool_choice":"none")"), qwen3.context);
  EXPECT_FALSE(r.tool_calls.has_value());
  ASSERT_EQ(r.prompts.size(), 1U);
  EXPECT_FALSE(r.prompts[0].request.sampling.structured_outputs.has_value());
  // Qwen3's template prints each tool's JSON in its <tools> block.
  const std::string prompt = qwen3.tok->decode(r.prompts[0].request.prompt_token_ids, false);
  EXPECT_NE(prompt.find("\"get_weather\""), std::string::npos) << prompt;
  EXPECT_NE(prompt.find("Weather of a city"), std::string::npos) << prompt;
}

TEST(chat_tool_fields, NamedFunctionForcesItsParameters) {
  const api_request r = parse_tools(
      chat_with(R"("tool_choice":{"type":"function","function":{"name":"get_weather"}})"));
  ASSERT_TRUE(r.tool_calls.has_value());
  EXPECT_EQ(r.tool_calls->format, tool_call_format::named);
  EXPECT_EQ(r.tool_calls->named_function, "get_weather");
  const auto& so = r.prompts[0].request.sampling.structured_outputs;
  ASSERT_TRUE(so.has_value());
  EXPECT_EQ(so->type, structured_outputs_params::kind::json);
  EXPECT_EQ(
      boost::json::parse(so->spec),
      boost::json::parse(
          R"({"type":"object","properties":{"city":{"type":"string"}},"required":["city"]})"));
}

TEST(chat_tool_fields, RequiredForcesAListOfCallsOfTheTools) {
  for (const bool parallel : {true, false}) {
    const api_request r = parse_tools(chat_with(
        cat({R"("tool_choice":"required","parallel_tool_calls":)", parallel ? "true" : "false"})));
    ASSERT_TRUE(r.tool_calls.has_value());
    EXPECT_EQ(r.tool_calls->format, tool_call_format::json_array);
    EXPECT_EQ(r.tool_calls->parallel_tool_calls, parallel);
    const auto& so = r.prompts[0].request.sampling.structured_outputs;
    ASSERT_TRUE(so.has_value());
    // vLLM's schema: 1.. objects {"name": one tool's name, "parameters": its parameters}.
    boost::json::value want = boost::json::parse(R"({"type":"array","minItems":1,"items":{"anyOf":[
        {"type":"object","properties":{"name":{"enum":["get_weather"]},"parameters":
          {"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}},
         "required":["name","parameters"],"additionalProperties":false},
        {"type":"object","properties":{"name":{"enum":["get_time"]},"parameters":{"type":"object"}},
         "required":["name","parameters"],"additionalProperties":false}]}})");
    if (!parallel) want.as_object()["maxItems"] = 1;
    EXPECT_EQ(boost::json::parse(so->spec), want);
  }
}

TEST(chat_tool_fields, AutoUsesTheServersParserWhenEnabled) {
  testing::served_model model = testing::load_served_model("llama3");
  model.context.max_model_len = 4096;
  model.context.tool_call_parser = tool_call_format::llama3_json;
  model.context.enable_auto_tool_choice = true;
  for (const char* choice : {"", R"("tool_choice":"auto",)"}) {
    const api_request r =
        parse_ok(H, chat_with(cat({choice, R"("parallel_tool_calls":false)"})), model.context);
    ASSERT_TRUE(r.tool_calls.has_value());
    EXPECT_EQ(r.tool_calls->format, tool_call_format::llama3_json);
    EXPECT_FALSE(r.tool_calls->parallel_tool_calls);
    EXPECT_FALSE(r.prompts[0].request.sampling.structured_outputs.has_value());
  }
  // Without it, auto is vLLM's 400 naming tool_choice.
  const parse_outcome refused =
      parse(H, chat_with(R"("tool_choice":"auto")"), llama3_with_tools().context);
  ASSERT_TRUE(std::holds_alternative<api_error>(refused));
  EXPECT_EQ(std::get<api_error>(refused).param, "tool_choice");
}

}  // namespace
}  // namespace pagedserve::net
