// Valid /v1/completions bodies of every prompt form become the right generation_requests.
// Token ids are checked against the HF tokenizer goldens, not against our own encoder.

#include <fstream>
#include <limits>
#include <sstream>

#include <gtest/gtest.h>

#include <algorithm>

#include "tests/net/openai/openai_fixture.h"

namespace pagedserve::net {
namespace {

using testing::k_test_max_model_len;
using testing::k_test_model;
using testing::llama3;
using testing::parse_ok;

constexpr api_kind C = api_kind::completion;

// ids_with_special of a text in goldens/tokenizers/llama3.json (HF, add_special_tokens=True).
std::vector<token_id> golden_ids(const std::string& text) {
  std::ifstream in(pagedserve::testing::goldens_dir() / "tokenizers" / "llama3.json");
  std::stringstream ss;
  ss << in.rdbuf();
  const boost::json::value doc = boost::json::parse(ss.str());
  for (const auto& c : doc.at("cases").as_array()) {
    if (c.at("text").as_string() != text) continue;
    std::vector<token_id> ids;
    for (const auto& id : c.at("ids_with_special").as_array()) {
      ids.push_back(static_cast<token_id>(id.as_int64()));
    }
    return ids;
  }
  ADD_FAILURE() << "no golden for " << text;
  return {};
}

TEST(completion_request, AStringPromptIsTokenizedWithSpecialTokensAndTheDefaults) {
  const api_request r = parse_ok(C, R"({"model":"llama-test","prompt":"Hello world"})");
  ASSERT_EQ(r.prompts.size(), 1U);
  const generation_request& g = r.prompts[0].request;
  EXPECT_EQ(g.prompt_token_ids, golden_ids("Hello world"));
  EXPECT_TRUE(g.prompt.empty());
  EXPECT_EQ(r.prompts[0].prompt_text, "Hello world");
  EXPECT_EQ(r.kind, api_kind::completion);
  EXPECT_EQ(r.model, k_test_model);
  EXPECT_EQ(g.sampling.max_tokens, 16U);  // OpenAI's default for completions
  EXPECT_EQ(g.sampling.n, 1U);
  EXPECT_FLOAT_EQ(g.sampling.temperature, 1.0f);
  EXPECT_FLOAT_EQ(g.sampling.top_p, 1.0f);
  EXPECT_EQ(g.sampling.top_k, 0);
  EXPECT_FLOAT_EQ(g.sampling.min_p, 0.0f);
  EXPECT_FALSE(g.sampling.seed.has_value());
  EXPECT_FALSE(g.sampling.logprobs.has_value());
  EXPECT_TRUE(g.sampling.stop.empty());
  EXPECT_FALSE(g.sampling.ignore_eos);
  EXPECT_TRUE(g.sampling.skip_special_tokens);
  EXPECT_FALSE(r.stream);
  EXPECT_FALSE(r.echo);
  EXPECT_FALSE(r.logprobs.has_value());
}

TEST(completion_request, TokenIdsAreKeptAndDecodedForEcho) {
  const auto ids = golden_ids("Hello world");
  const api_request r = parse_ok(C, R"({"prompt":[9906,1917],"echo":true})");
  ASSERT_EQ(r.prompts.size(), 1U);
  EXPECT_EQ(r.prompts[0].request.prompt_token_ids, ids);
  EXPECT_EQ(r.prompts[0].prompt_text, "Hello world");
  EXPECT_TRUE(r.echo);
  EXPECT_EQ(r.model, k_test_model);  // left out: the served name
}

TEST(completion_request, ArraysOfStringsAndOfIdArraysAreSeveralPrompts) {
  const api_request strings = parse_ok(C, R"({"prompt":["Hello","Hello world"],"n":2})");
  ASSERT_EQ(strings.prompts.size(), 2U);
  EXPECT_EQ(strings.prompts[0].request.prompt_token_ids, golden_ids("Hello"));
  EXPECT_EQ(strings.prompts[1].request.prompt_token_ids, golden_ids("Hello world"));
  EXPECT_EQ(strings.prompts[1].request.sampling.n, 2U);
  EXPECT_EQ(strings.n, 2U);

  const api_request arrays = parse_ok(C, R"({"prompt":[[9906],[9906,1917]]})");
  ASSERT_EQ(arrays.prompts.size(), 2U);
  EXPECT_EQ(arrays.prompts[0].request.prompt_token_ids, std::vector<token_id>{9906});
  EXPECT_EQ(arrays.prompts[1].request.prompt_token_ids, (std::vector<token_id>{9906, 1917}));
  EXPECT_EQ(arrays.prompts[1].prompt_text, "Hello world");
}

TEST(completion_request, EveryFieldReachesTheEngineRequest) {
  const api_request r = parse_ok(C, R"({
    "model": "llama-test", "prompt": "Hello", "max_tokens": 5, "temperature": 0.5,
    "top_p": 0.9, "top_k": 40, "min_p": 0.05, "seed": -1, "stop": ["\n", "END"],
    "stop_token_ids": [128001, 128009], "n": 2, "best_of": 2, "logprobs": 3,
    "ignore_eos": true, "stream": true,
    "stream_options": {"include_usage": true, "continuous_usage_stats": true},
    "presence_penalty": 0.5, "frequency_penalty": -1.25, "repetition_penalty": 1.1,
    "logit_bias": {"13": 100, "7": -2.5}, "min_tokens": 3, "user": "u-1", "skip_special_tokens": false, "priority": -3,
    "suffix": null, "add_special_tokens": false, "some_future_field": {"x": [1]}})");
  ASSERT_EQ(r.prompts.size(), 1U);
  const generation_request& g = r.prompts[0].request;
  EXPECT_EQ(g.sampling.max_tokens, 5U);
  EXPECT_FLOAT_EQ(g.sampling.temperature, 0.5f);
  EXPECT_FLOAT_EQ(g.sampling.top_p, 0.9f);
  EXPECT_EQ(g.sampling.top_k, 40);
  EXPECT_FLOAT_EQ(g.sampling.min_p, 0.05f);
  EXPECT_EQ(g.sampling.seed, std::optional<std::uint64_t>(~std::uint64_t{0}));
  EXPECT_EQ(g.sampling.logprobs, std::optional<std::int32_t>(3));
  EXPECT_EQ(g.sampling.stop, (std::vector<std::string>{"\n", "END"}));
  EXPECT_EQ(g.sampling.stop_token_ids, (std::vector<token_id>{128001, 128009}));
  EXPECT_EQ(g.sampling.n, 2U);
  EXPECT_TRUE(g.sampling.ignore_eos);
  EXPECT_FALSE(g.sampling.skip_special_tokens);
  EXPECT_EQ(g.priority, -3);
  EXPECT_FALSE(g.add_special_tokens);
  EXPECT_FLOAT_EQ(g.sampling.presence_penalty, 0.5f);
  EXPECT_FLOAT_EQ(g.sampling.frequency_penalty, -1.25f);
  EXPECT_FLOAT_EQ(g.sampling.repetition_penalty, 1.1f);
  std::vector<std::pair<token_id, float>> bias = g.sampling.logit_bias;
  std::sort(bias.begin(), bias.end());
  EXPECT_EQ(bias, (std::vector<std::pair<token_id, float>>{{7, -2.5f}, {13, 100.0f}}));
  EXPECT_EQ(g.sampling.min_tokens, 3U);
  EXPECT_TRUE(g.sampling.validate().ok());
  EXPECT_TRUE(r.stream);
  EXPECT_TRUE(r.include_usage);
  EXPECT_TRUE(r.continuous_usage_stats);
  EXPECT_EQ(r.logprobs, std::optional<std::int32_t>(3));
  EXPECT_EQ(r.user, "u-1");
}

// A top_p below float's range (1e-320) would become 0 as the sampler's float, which the
// engine refuses with its own wording (03b41d6: a 400 with param null); the smallest normal
// float keeps the same tokens.
TEST(completion_request, TopPBelowFloatRangeBecomesTheSmallestFloat) {
  const api_request r = parse_ok(C, R"({"prompt":"Hi","top_p":1e-320})");
  EXPECT_EQ(r.prompts[0].request.sampling.top_p, std::numeric_limits<float>::min());
  EXPECT_TRUE(r.prompts[0].request.sampling.validate().ok());
}

// Boost.JSON reads a literal beyond the double range as infinity: the message quotes neither
// "a number" as the wrong type nor "Infinity" (which the client did not send).
TEST(completion_request, AnOverflowingIntegerIsOutOfRangeNotTheWrongType) {
  const parse_outcome out =
      testing::parse(C, R"({"prompt":"Hi","max_tokens":)" + std::string(400, '9') + "}");
  ASSERT_TRUE(std::holds_alternative<api_error>(out));
  const api_error& err = std::get<api_error>(out);
  EXPECT_EQ(err.param, "max_tokens");
  EXPECT_EQ(err.message,
            "Invalid value for 'max_tokens': expected an integer in [1, 4294967295], but got a "
            "number above 1.8e308 instead.");
}

TEST(completion_request, AStopStringAloneIsAOneElementList) {
  const api_request r = parse_ok(C, R"({"prompt":"Hi","stop":"\n\n"})");
  EXPECT_EQ(r.prompts[0].request.sampling.stop, std::vector<std::string>{"\n\n"});
}

TEST(completion_request, NullFieldsMeanTheirDefaults) {
  const api_request r = parse_ok(C, R"({"prompt":"Hi","temperature":null,"n":null,
      "stop":null,"logprobs":null,"stream":null,"stream_options":null,"seed":null,"user":null})");
  EXPECT_FLOAT_EQ(r.prompts[0].request.sampling.temperature, 1.0f);
  EXPECT_EQ(r.n, 1U);
  EXPECT_FALSE(r.logprobs.has_value());
}

TEST(completion_request, MaxTokensNullIsTheRestOfTheContext) {
  const api_request r = parse_ok(C, R"({"prompt":[9906,1917],"max_tokens":null})");
  EXPECT_EQ(r.prompts[0].request.sampling.max_tokens, k_test_max_model_len - 2);
}

TEST(completion_request, IntegralFloatsCountAsIntegers) {
  const api_request r = parse_ok(C, R"({"prompt":[9906.0],"max_tokens":16.0,"n":2.0})");
  EXPECT_EQ(r.prompts[0].request.prompt_token_ids, std::vector<token_id>{9906});
  EXPECT_EQ(r.prompts[0].request.sampling.max_tokens, 16U);
  EXPECT_EQ(r.n, 2U);
}

std::string ids_body(std::size_t count, const std::string& extra) {
  std::string body = R"({"prompt":[)";
  for (std::size_t i = 0; i < count; ++i) body += i ? ",9906" : "9906";
  return body + "]" + extra + "}";
}

TEST(completion_request, ThePromptAndTheBudgetMayFillTheContextExactly) {
  const api_request r = parse_ok(C, ids_body(200, R"(,"max_tokens":56)"));
  EXPECT_EQ(r.prompts[0].request.sampling.max_tokens, 56U);
  const parse_outcome over = testing::parse(C, ids_body(200, R"(,"max_tokens":57)"));
  ASSERT_TRUE(std::holds_alternative<api_error>(over));
  EXPECT_EQ(std::get<api_error>(over).code, "context_length_exceeded");
}

TEST(completion_request, TheDefaultBudgetShrinksToTheContextLeft) {
  const api_request r = parse_ok(C, ids_body(250, ""));
  EXPECT_EQ(r.prompts[0].request.sampling.max_tokens, 6U);
}

TEST(completion_request, EachPromptGetsItsOwnBudget) {
  const api_request r = parse_ok(C, R"({"prompt":[[9906],[9906,1917]],"max_tokens":null})");
  EXPECT_EQ(r.prompts[0].request.sampling.max_tokens, k_test_max_model_len - 1);
  EXPECT_EQ(r.prompts[1].request.sampling.max_tokens, k_test_max_model_len - 2);
}

// generation_config auto: a field the request leaves out takes the model's recommendation
// (runtime/model/generation_defaults.h); one it sends wins, on both endpoints.
TEST(completion_request, ModelDefaultsFillOnlyTheFieldsLeftOut) {
  model_context model = testing::llama3().context;
  model.sampling_defaults.temperature = 0.6f;
  model.sampling_defaults.top_p = 0.95f;
  model.sampling_defaults.top_k = 20;
  model.sampling_defaults.repetition_penalty = 1.05f;
  const api_request left_out = parse_ok(C, R"({"prompt":"Hi"})", model);
  const sampling_params& a = left_out.prompts.at(0).request.sampling;
  EXPECT_EQ(a.temperature, 0.6f);
  EXPECT_EQ(a.top_p, 0.95f);
  EXPECT_EQ(a.top_k, 20);
  EXPECT_EQ(a.min_p, 0.0f);  // no recommendation: the API's default
  EXPECT_EQ(a.repetition_penalty, 1.05f);
  const api_request sent = parse_ok(
      api_kind::chat_completion,
      R"({"messages":[{"role":"user","content":"x"}],"temperature":1.0,"top_k":-1,"repetition_penalty":1})",
      model);
  const sampling_params& b = sent.prompts.at(0).request.sampling;
  EXPECT_EQ(b.temperature, 1.0f);
  EXPECT_EQ(b.top_k, -1);
  EXPECT_EQ(b.top_p, 0.95f);
  EXPECT_EQ(b.repetition_penalty, 1.0f);
}

}  // namespace
}  // namespace pagedserve::net
