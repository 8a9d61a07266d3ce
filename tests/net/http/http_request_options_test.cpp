// vLLM's request options that change the prompt or the returned text, over HTTP against the
// built-in demo model: truncate_prompt_tokens (the completion equals one asked with only the
// kept tokens; usage counts them), include_stop_str_in_output (the text of a plain greedy
// run, cut after the stop string instead of before it), bad_words and allowed_token_ids.

#include <set>
#include <string>

#include "tests/net/http/test_client.h"

namespace pagedserve::net::testing {
namespace {

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

json::array greedy_tokens(http_client& c, const std::string& extra) {
  const json::value out =
      post_ok(c, "/v1/completions",
              R"({"prompt": "Once upon a time", "max_tokens": 8, "temperature": 0, "logprobs": 0)" +
                  extra + "}");
  return out.at("choices").at(0).at("logprobs").at("tokens").as_array();
}

std::size_t num_tokens(http_client& c, const std::string& text) {
  const json::value ids = post_ok(
      c, "/tokenize",
      R"({"prompt": )" + json::serialize(json::value(text)) + R"(, "add_special_tokens": false})");
  return ids.at("count").to_number<std::size_t>();
}

// vLLM's bad_words: the word is tokenized alone, and after a space when that is another
// sequence of as many tokens. A generated " w" whose "w" and " w" are one token each is
// banned both ways: the greedy run keeps its tokens before it and takes another there.
TEST(HttpRequestOptions, BadWordsKeepTheWordOut) {
  auto s = start_server(demo_config());
  ASSERT_TRUE(s);
  http_client c(s->port());
  const json::array plain = greedy_tokens(c, "");
  std::size_t at = 0;
  std::string word;
  for (std::size_t k = 1; k < plain.size() && word.empty(); ++k) {
    const std::string t = plain.at(k).as_string().c_str();
    if (t.size() < 2 || t[0] != ' ' || t[1] == ' ') continue;
    if (num_tokens(c, t) == 1 && num_tokens(c, t.substr(1)) == 1) {
      at = k;
      word = t.substr(1);
    }
  }
  ASSERT_FALSE(word.empty()) << "no one-token word in the greedy output";
  const json::array banned =
      greedy_tokens(c, R"(, "bad_words": [)" + json::serialize(json::value(word)) + "]");
  for (std::size_t k = 0; k < at; ++k) EXPECT_EQ(banned.at(k), plain.at(k)) << k;
  for (const json::value& t : banned) {
    EXPECT_NE(t.as_string(), " " + word);
    EXPECT_NE(t.as_string(), word);
  }
}

// allowed_token_ids: every generated token is one of them.
TEST(HttpRequestOptions, AllowedTokenIdsAreTheOnlyTokens) {
  auto s = start_server(demo_config());
  ASSERT_TRUE(s);
  http_client c(s->port());
  const json::value ids =
      post_ok(c, "/tokenize", R"({"prompt": "a cat and a dog ran", "add_special_tokens": false})");
  std::set<std::string> allowed;
  for (const json::value& id : ids.at("tokens").as_array()) {
    const json::value text =
        post_ok(c, "/detokenize", R"({"tokens": [)" + json::serialize(id) + "]}");
    allowed.insert(text.at("prompt").as_string().c_str());
  }
  const json::array out =
      greedy_tokens(c, R"(, "allowed_token_ids": )" + json::serialize(ids.at("tokens")));
  ASSERT_EQ(out.size(), 8U);
  for (const json::value& t : out) EXPECT_TRUE(allowed.contains(t.as_string().c_str())) << t;
}

}  // namespace
}  // namespace pagedserve::net::testing
