// vLLM's request options that change the prompt or the returned text, over HTTP against the
// built-in demo model: truncate_prompt_tokens (the completion equals one asked with only the
// kept tokens; usage counts them) and include_stop_str_in_output (the text of a plain greedy
// run, cut after the stop string instead of before it).

#include <string>

#include "tests/net/http/test_client.h"

namespace pagedserve::net::testing {
namespace {

server_config demo_config() {
  server_config config = test_config();
  config.engine.model_dir = "pagedserve-demo";
  return config;
}

json::value post_ok(http_client& c, const std::string& path, const std::string& body) {
  const auto response = c.request(http::verb::post, path, body);
  EXPECT_EQ(response.result_int(), 200U) << path << " " << body << ": " << response.body();
  return json::parse(response.body());
}

TEST(HttpRequestOptions, TruncatePromptTokensKeepsTheLastTokens) {
  auto s = start_server(demo_config());
  ASSERT_TRUE(s);
  http_client c(s->port());
  const json::value tokens =
      post_ok(c, "/tokenize",
              R"({"prompt": "The jury said it did find that the city had been well run."})");
  const json::array& ids = tokens.at("tokens").as_array();
  ASSERT_GT(ids.size(), 6U);
  json::array last(ids.end() - 5, ids.end());
  const std::string greedy = R"(, "max_tokens": 6, "temperature": 0})";
  const json::value truncated = post_ok(
      c, "/v1/completions",
      R"({"prompt": )" + json::serialize(ids) + R"(, "truncate_prompt_tokens": 5)" + greedy);
  const json::value shorter =
      post_ok(c, "/v1/completions", R"({"prompt": )" + json::serialize(last) + greedy);
  EXPECT_EQ(truncated.at("usage").at("prompt_tokens").to_number<int>(), 5);
  EXPECT_EQ(truncated.at("choices").at(0).at("text"), shorter.at("choices").at(0).at("text"));
  // -1 is max_model_len: this prompt is shorter, so nothing is dropped.
  const json::value whole = post_ok(
      c, "/v1/completions",
      R"({"prompt": )" + json::serialize(ids) + R"(, "truncate_prompt_tokens": -1)" + greedy);
  EXPECT_EQ(whole.at("usage").at("prompt_tokens").to_number<std::size_t>(), ids.size());
  for (const char* bad : {"-2", "0", "513", "\"5\""}) {
    const auto response = c.request(
        http::verb::post, "/v1/completions",
        R"({"prompt": "x", "max_tokens": 1, "truncate_prompt_tokens": )" + std::string(bad) + "}");
    EXPECT_EQ(response.result_int(), 400U) << bad;
    EXPECT_NE(response.body().find("truncate_prompt_tokens"), std::string::npos) << bad;
  }
}

TEST(HttpRequestOptions, IncludeStopStrInOutputKeepsTheStopString) {
  auto s = start_server(demo_config());
  ASSERT_TRUE(s);
  http_client c(s->port());
  const std::string base = R"({"prompt": "Once upon a time", "max_tokens": 24, "temperature": 0)";
  const std::string plain =
      post_ok(c, "/v1/completions", base + "}").at("choices").at(0).at("text").as_string().c_str();
  ASSERT_GT(plain.size(), 8U);
  const std::string stop = plain.substr(4, 3);  // its first occurrence is at 4 or before
  const std::size_t at = plain.find(stop);
  const std::string with_stop = base + R"(, "stop": [)" + json::serialize(json::value(stop));
  const json::value kept =
      post_ok(c, "/v1/completions", with_stop + R"(], "include_stop_str_in_output": true})");
  EXPECT_EQ(kept.at("choices").at(0).at("text").as_string(), plain.substr(0, at + stop.size()));
  EXPECT_EQ(kept.at("choices").at(0).at("finish_reason").as_string(), "stop");
  const json::value cut = post_ok(c, "/v1/completions", with_stop + "]}");
  EXPECT_EQ(cut.at("choices").at(0).at("text").as_string(), plain.substr(0, at));
}

}  // namespace
}  // namespace pagedserve::net::testing
