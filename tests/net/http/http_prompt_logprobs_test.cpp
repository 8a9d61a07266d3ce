// Prompt logprobs over HTTP against the built-in demo model, as lm-eval's loglikelihood
// tasks ask for them: /v1/completions with echo + logprobs (also max_tokens 0) and vLLM's
// prompt_logprobs. The reference for each prompt position i is another path through the
// engine: a request with the first i tokens as its prompt whose one generated token is
// forced to be token i by logit_bias (logprobs are the raw distribution, before the bias),
// so its sampled token's logprob (the decode path, held to the HF goldens elsewhere) must
// equal the echoed logprob (the prefill rows read back).

#include <cmath>
#include <string>
#include <vector>

#include "tests/net/http/test_client.h"

namespace pagedserve::net::testing {
namespace {

constexpr double k_tolerance = 1e-4;

json::value post_ok(http_client& c, const std::string& body, const char* path = "/v1/completions") {
  const auto response = c.request(http::verb::post, path, body);
  EXPECT_EQ(response.result_int(), 200U) << body << ": " << response.body();
  return json::parse(response.body());
}

std::vector<std::int64_t> prompt_ids(http_client& c, const std::string& text) {
  const json::value tokens =
      post_ok(c, R"({"prompt": )" + json::serialize(json::value(text)) + "}", "/tokenize");
  std::vector<std::int64_t> ids;
  for (const json::value& id : tokens.at("tokens").as_array()) ids.push_back(id.as_int64());
  return ids;
}

std::string ids_json(const std::vector<std::int64_t>& ids, std::size_t count) {
  json::array a;
  for (std::size_t i = 0; i < count; ++i) a.emplace_back(ids[i]);
  return json::serialize(a);
}

// The logprob of `ids[i]` after ids[0..i) through a one-token generation forced to it.
double forced_logprob(http_client& c, const std::vector<std::int64_t>& ids, std::size_t i) {
  const json::value out =
      post_ok(c, R"({"prompt": )" + ids_json(ids, i) + R"(, "max_tokens": 1, "temperature": 0,
             "logprobs": 0, "logit_bias": {")" +
                     std::to_string(ids[i]) + R"(": 100}})");
  const json::object& lp = out.at("choices").at(0).at("logprobs").as_object();
  return lp.at("token_logprobs").at(0).to_number<double>();
}

TEST(HttpPromptLogprobs, EchoedLogprobsAreEachPrefixsForcedNextTokenLogprob) {
  auto s = start_server(demo_config());
  ASSERT_TRUE(s);
  http_client c(s->port());
  const std::string text = "The jury said it did find that the city";
  const std::vector<std::int64_t> ids = prompt_ids(c, text);
  ASSERT_GE(ids.size(), 6U);
  const json::value out =
      post_ok(c, R"({"prompt": )" + json::serialize(json::value(text)) +
                     R"(, "echo": true, "logprobs": 3, "max_tokens": 2, "temperature": 0})");
  const json::object& choice = out.at("choices").at(0).as_object();
  EXPECT_EQ(choice.at("text").as_string().subview().substr(0, text.size()), text);
  const json::object& lp = choice.at("logprobs").as_object();
  ASSERT_EQ(lp.at("tokens").as_array().size(), ids.size() + 2);
  EXPECT_TRUE(lp.at("token_logprobs").at(0).is_null());
  EXPECT_TRUE(lp.at("top_logprobs").at(0).is_null());
  const json::array& prompt_lps = choice.at("prompt_logprobs").as_array();
  ASSERT_EQ(prompt_lps.size(), ids.size());
  EXPECT_TRUE(prompt_lps.at(0).is_null());
  for (std::size_t i = 1; i < ids.size(); ++i) {
    SCOPED_TRACE(i);
    const double echoed = lp.at("token_logprobs").at(i).to_number<double>();
    EXPECT_NEAR(echoed, forced_logprob(c, ids, i), k_tolerance);
    EXPECT_LE(lp.at("top_logprobs").at(i).as_object().size(), 4U);  // 3 + the prompt token
    const json::object& entry = prompt_lps.at(i).at(std::to_string(ids[i])).as_object();
    EXPECT_EQ(entry.at("logprob").to_number<double>(), echoed);
    EXPECT_GE(entry.at("rank").to_number<int>(), 1);
    EXPECT_EQ(entry.at("decoded_token").as_string(), lp.at("tokens").at(i).as_string());
  }
  // text_offset counts the token strings before each token.
  EXPECT_EQ(lp.at("text_offset").at(0).to_number<int>(), 0);
}

TEST(HttpPromptLogprobs, MaxTokensZeroWithEchoIsThePromptAloneStreamedOrNot) {
  auto s = start_server(demo_config());
  ASSERT_TRUE(s);
  http_client c(s->port());
  const std::string text = "Once upon a time there was";
  const std::vector<std::int64_t> ids = prompt_ids(c, text);
  const std::string body = R"({"prompt": )" + json::serialize(json::value(text)) +
                           R"(, "echo": true, "logprobs": 1, "max_tokens": 0)";
  const json::value out = post_ok(c, body + "}");
  const json::object& choice = out.at("choices").at(0).as_object();
  EXPECT_EQ(choice.at("text").as_string(), text);
  EXPECT_EQ(choice.at("finish_reason").as_string(), "length");
  const json::array& tokens = choice.at("logprobs").at("tokens").as_array();
  ASSERT_EQ(tokens.size(), ids.size());
  EXPECT_NEAR(choice.at("logprobs").at("token_logprobs").at(1).to_number<double>(),
              forced_logprob(c, ids, 1), k_tolerance);

  const auto streamed =
      c.request(http::verb::post, "/v1/completions", body + R"(, "stream": true})");
  ASSERT_EQ(streamed.result_int(), 200U);
  std::string joined;
  std::size_t num_tokens = 0;
  for (const std::string& payload : sse_payloads(streamed.body())) {
    if (payload == "[DONE]") continue;
    const json::value chunk = json::parse(payload);
    for (const json::value& ch : chunk.at("choices").as_array()) {
      joined += ch.at("text").as_string();
      if (!ch.at("logprobs").is_null()) {
        num_tokens += ch.at("logprobs").at("tokens").as_array().size();
      }
    }
  }
  EXPECT_EQ(joined, text);
  EXPECT_EQ(num_tokens, ids.size());
}

// n = 2: completion 0 computes the prompt's logprobs (without reading the prefix cache,
// which holds this prompt from the request before); both choices lead with them.
TEST(HttpPromptLogprobs, EveryChoiceLeadsWithTheSamePromptLogprobs) {
  auto s = start_server(demo_config());
  ASSERT_TRUE(s);
  http_client c(s->port());
  const std::string prompt = R"("In the beginning the city council had")";
  const json::value first =
      post_ok(c, R"({"prompt": )" + prompt + R"(, "echo": true, "logprobs": 2, "max_tokens": 1})");
  const json::value twice =
      post_ok(c, R"({"prompt": )" + prompt +
                     R"(, "echo": true, "logprobs": 2, "max_tokens": 3, "n": 2, "seed": 5})");
  const json::array& want =
      first.at("choices").at(0).at("logprobs").at("token_logprobs").as_array();
  const std::size_t num_prompt = want.size() - 1;
  for (const json::value& choice : twice.at("choices").as_array()) {
    const json::array& got = choice.at("logprobs").at("token_logprobs").as_array();
    ASSERT_EQ(got.size(), num_prompt + 3);
    EXPECT_TRUE(got.at(0).is_null());
    for (std::size_t i = 1; i < num_prompt; ++i) {
      EXPECT_NEAR(got.at(i).to_number<double>(), want.at(i).to_number<double>(), k_tolerance) << i;
    }
  }
}

TEST(HttpPromptLogprobs, ChatAnswersCarryThemAtTheTopLevel) {
  auto s = start_server(demo_config());
  ASSERT_TRUE(s);
  http_client c(s->port());
  const json::value out =
      post_ok(c, R"({"messages": [{"role": "user", "content": "Tell me a story."}],
             "prompt_logprobs": 2, "max_tokens": 1})",
              "/v1/chat/completions");
  const json::array& lps = out.at("prompt_logprobs").as_array();
  ASSERT_EQ(lps.size(), out.at("usage").at("prompt_tokens").to_number<std::size_t>());
  EXPECT_TRUE(lps.at(0).is_null());
  for (std::size_t i = 1; i < lps.size(); ++i) {
    const json::object& position = lps.at(i).as_object();
    EXPECT_GE(position.size(), 2U);  // the prompt token and 2 alternatives (one may be it)
    EXPECT_LE(position.size(), 3U);
    for (const auto& [id, entry] : position) {
      EXPECT_LE(entry.at("logprob").to_number<double>(), 0.0) << id;
    }
  }
}

}  // namespace
}  // namespace pagedserve::net::testing
