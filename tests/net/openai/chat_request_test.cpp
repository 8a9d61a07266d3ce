// Valid /v1/chat/completions bodies: the messages rendered through the model's template
// must give exactly the ids HF transformers gives (goldens/chat/llama3.json).

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "tests/net/openai/openai_fixture.h"

namespace pagedserve::net {
namespace {

using testing::k_test_max_model_len;
using testing::llama3;
using testing::parse_ok;

constexpr api_kind H = api_kind::chat_completion;

struct golden_chat {
  boost::json::array messages;
  bool add_generation_prompt = false;
  std::vector<token_id> ids;
};

std::vector<golden_chat> goldens() {
  std::ifstream in(pagedserve::testing::goldens_dir() / "chat" / "llama3.json");
  std::stringstream ss;
  ss << in.rdbuf();
  const boost::json::value doc = boost::json::parse(ss.str());
  std::vector<golden_chat> out;
  for (const auto& c : doc.at("cases").as_array()) {
    golden_chat g;
    g.messages = c.at("messages").as_array();
    g.add_generation_prompt = c.at("add_generation_prompt").as_bool();
    for (const auto& id : c.at("ids").as_array())
      g.ids.push_back(static_cast<token_id>(id.as_int64()));
    out.push_back(std::move(g));
  }
  return out;
}

std::string body_with(const boost::json::array& messages, const std::string& extra = "") {
  return testing::cat(
      {R"({"model":"llama-test","messages":)", boost::json::serialize(messages), extra, "}"});
}

TEST(chat_request, MessagesBecomeExactlyTheIdsOfTransformers) {
  const auto cases = goldens();
  ASSERT_FALSE(cases.empty());
  for (const golden_chat& g : cases) {
    SCOPED_TRACE(boost::json::serialize(g.messages));
    const std::string flag = g.add_generation_prompt ? "true" : "false";
    const api_request r =
        parse_ok(H, body_with(g.messages, testing::cat({R"(,"add_generation_prompt":)", flag})));
    ASSERT_EQ(r.prompts.size(), 1U);
    EXPECT_EQ(r.prompts[0].request.prompt_token_ids, g.ids);
    EXPECT_FALSE(r.prompts[0].request.add_special_tokens);
  }
}

TEST(chat_request, TheGenerationPromptIsAddedByDefault) {
  for (const golden_chat& g : goldens()) {
    if (!g.add_generation_prompt) continue;
    const api_request r = parse_ok(H, body_with(g.messages));
    EXPECT_EQ(r.prompts[0].request.prompt_token_ids, g.ids);
  }
}

TEST(chat_request, TextPartsAreTheSameAsAString) {
  const golden_chat g = goldens().front();  // [{"role":"user","content":"Hello!"}], gen prompt
  ASSERT_TRUE(g.add_generation_prompt);
  const api_request r =
      parse_ok(H, R"({"messages":[{"role":"user","content":[{"type":"text","text":"Hello!"}]}]})");
  EXPECT_EQ(r.prompts[0].request.prompt_token_ids, g.ids);
}

TEST(chat_request, SeveralTextPartsAreJoinedWithNewlines) {
  const api_request parts = parse_ok(
      H,
      R"({"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}]})");
  const api_request joined = parse_ok(H, R"({"messages":[{"role":"user","content":"a\nb"}]})");
  EXPECT_EQ(parts.prompts[0].request.prompt_token_ids, joined.prompts[0].request.prompt_token_ids);
}

TEST(chat_request, TheDefaultBudgetIsTheRestOfTheContext) {
  const golden_chat g = goldens().front();
  const api_request r = parse_ok(H, body_with(g.messages));
  EXPECT_EQ(r.prompts[0].request.sampling.max_tokens, k_test_max_model_len - g.ids.size());
}

TEST(chat_request, MaxCompletionTokensWinsOverMaxTokens) {
  const api_request both = parse_ok(
      H,
      R"({"messages":[{"role":"user","content":"x"}],"max_tokens":9,"max_completion_tokens":7})");
  EXPECT_EQ(both.prompts[0].request.sampling.max_tokens, 7U);
  const api_request legacy =
      parse_ok(H, R"({"messages":[{"role":"user","content":"x"}],"max_tokens":9})");
  EXPECT_EQ(legacy.prompts[0].request.sampling.max_tokens, 9U);
}

TEST(chat_request, LogprobsAndTopLogprobs) {
  const std::string m = R"({"messages":[{"role":"user","content":"x"}])";
  EXPECT_FALSE(parse_ok(H, m + "}").logprobs.has_value());
  EXPECT_FALSE(parse_ok(H, m + R"(,"logprobs":false})").logprobs.has_value());
  const api_request plain = parse_ok(H, m + R"(,"logprobs":true})");
  EXPECT_EQ(plain.logprobs, std::optional<std::int32_t>(0));
  EXPECT_EQ(plain.prompts[0].request.sampling.logprobs, std::optional<std::int32_t>(0));
  const api_request top = parse_ok(H, m + R"(,"logprobs":true,"top_logprobs":5})");
  EXPECT_EQ(top.logprobs, std::optional<std::int32_t>(5));
  EXPECT_EQ(top.prompts[0].request.sampling.logprobs, std::optional<std::int32_t>(5));
}

TEST(chat_request, SamplingStreamingAndNoOpToolFieldsAreAccepted) {
  const api_request r = parse_ok(H, R"({
      "messages":[{"role":"system","content":"s"},{"role":"user","content":"x"},
                  {"role":"assistant","content":null},{"role":"developer","content":"d"},
                  {"role":"tool","content":"t","tool_call_id":"c1"}],
      "temperature":0, "seed":7, "n":3, "stop":["</s>"], "stream":true,
      "stream_options":{"include_usage":true}, "response_format":{"type":"text"},
      "tools":[], "tool_choice":"none", "parallel_tool_calls":false, "user":"u"})");
  ASSERT_EQ(r.prompts.size(), 1U);
  const generation_request& g = r.prompts[0].request;
  EXPECT_FLOAT_EQ(g.sampling.temperature, 0.0f);
  EXPECT_EQ(g.sampling.seed, std::optional<std::uint64_t>(7));
  EXPECT_EQ(g.sampling.n, 3U);
  EXPECT_EQ(r.n, 3U);
  EXPECT_EQ(g.sampling.stop, std::vector<std::string>{"</s>"});
  EXPECT_TRUE(r.stream);
  EXPECT_TRUE(r.include_usage);
  EXPECT_EQ(r.kind, api_kind::chat_completion);
}

TEST(chat_request, ChatTemplateKwargsReachTheTemplate) {
  auto tmpl =
      chat_template::compile("{{ greeting }}{% for m in messages %}{{ m['content'] }}{% endfor %}");
  ASSERT_TRUE(tmpl.ok()) << tmpl.err().message;
  model_context custom = llama3().context;
  custom.template_ = &tmpl.value();
  const api_request r = parse_ok(
      H,
      R"({"messages":[{"role":"user","content":" world"}],"chat_template_kwargs":{"greeting":"Hello"}})",
      custom);
  // "Hello world" in goldens/tokenizers/llama3.json.
  EXPECT_EQ(r.prompts[0].request.prompt_token_ids, (std::vector<token_id>{9906, 1917}));
}

}  // namespace
}  // namespace pagedserve::net
