// vLLM's /tokenize, /detokenize and /version, and OpenAI's GET /v1/models/{id}, against the
// built-in demo model (a Llama-3-style BPE tokenizer and chat template). The expectations
// come from outside the endpoints: the model's config.json (its BOS id), the completion
// endpoints' usage counts for the same prompt, and the round trip back to the text.

#include <string>

#include "tests/net/http/test_client.h"

namespace pagedserve::net::testing {
namespace {

constexpr std::int64_t k_demo_bos = 4091;  // models/pagedserve-demo/config.json bos_token_id

server_config demo_config() {
  server_config config = test_config();
  config.engine.model_dir = "pagedserve-demo";
  return config;
}

json::value post_json(http_client& c, const std::string& path, const std::string& body,
                      unsigned want_status = 200) {
  const auto response = c.request(http::verb::post, path, body);
  EXPECT_EQ(response.result_int(), want_status) << path << " " << body << ": " << response.body();
  return json::parse(response.body());
}

TEST(HttpTokenize, APromptCountsAsTheCompletionEndpointDoesAndRoundTrips) {
  auto s = start_server(demo_config());
  ASSERT_TRUE(s);
  http_client c(s->port());
  const std::string text = "The jury said it did find that the city had been well run.";
  const json::value out =
      post_json(c, "/tokenize", R"({"prompt": ")" + text + R"(", "return_token_strs": true})");
  const json::array& tokens = out.at("tokens").as_array();
  ASSERT_GT(tokens.size(), 3U);
  EXPECT_EQ(out.at("count").to_number<std::size_t>(), tokens.size());
  EXPECT_EQ(out.at("max_model_len").to_number<std::int64_t>(), 512);
  EXPECT_EQ(tokens.at(0).to_number<std::int64_t>(), k_demo_bos);  // add_special_tokens: true
  EXPECT_EQ(out.at("token_strs").as_array().size(), tokens.size());

  const json::value completion =
      post_json(c, "/v1/completions", R"({"prompt": ")" + text + R"(", "max_tokens": 1})");
  EXPECT_EQ(completion.at("usage").at("prompt_tokens").to_number<std::size_t>(), tokens.size());

  const json::value without =
      post_json(c, "/tokenize", R"({"prompt": ")" + text + R"(", "add_special_tokens": false})");
  EXPECT_EQ(without.at("count").to_number<std::size_t>(), tokens.size() - 1);
  EXPECT_TRUE(without.at("token_strs").is_null());
  const json::value back =
      post_json(c, "/detokenize", R"({"tokens": )" + json::serialize(without.at("tokens")) + "}");
  EXPECT_EQ(back.at("prompt").as_string(), text);
}

TEST(HttpTokenize, MessagesCountAsTheChatEndpointDoes) {
  auto s = start_server(demo_config());
  ASSERT_TRUE(s);
  http_client c(s->port());
  const std::string messages = R"([{"role": "user", "content": "Where is the city?"}])";
  const json::value out = post_json(c, "/tokenize", R"({"messages": )" + messages + "}");
  const json::value chat =
      post_json(c, "/v1/chat/completions", R"({"messages": )" + messages + R"(, "max_tokens": 1})");
  EXPECT_EQ(out.at("count").to_number<std::size_t>(),
            chat.at("usage").at("prompt_tokens").to_number<std::size_t>());
  const json::value text =
      post_json(c, "/detokenize", R"({"tokens": )" + json::serialize(out.at("tokens")) + "}");
  const std::string rendered(text.at("prompt").as_string());
  EXPECT_NE(rendered.find("<|start_header_id|>user<|end_header_id|>"), std::string::npos);
  EXPECT_NE(rendered.find("Where is the city?"), std::string::npos);
  // Without the generation prompt the assistant header is gone.
  const json::value bare = post_json(
      c, "/tokenize", R"({"messages": )" + messages + R"(, "add_generation_prompt": false})");
  EXPECT_LT(bare.at("count").to_number<std::size_t>(), out.at("count").to_number<std::size_t>());
}

TEST(HttpTokenize, BadBodiesAre400sNamingTheField) {
  auto s = start_server(demo_config());
  ASSERT_TRUE(s);
  http_client c(s->port());
  auto param = [&](const std::string& path, const std::string& body, unsigned status = 400) {
    return std::string(post_json(c, path, body, status).at("error").at("param").as_string());
  };
  EXPECT_EQ(param("/tokenize", R"({"prompt": "a", "messages": []})"), "messages");
  EXPECT_EQ(param("/tokenize", R"({})"), "prompt");
  EXPECT_EQ(param("/tokenize", R"({"prompt": 7})"), "prompt");
  EXPECT_EQ(param("/tokenize", R"({"prompt": "a", "model": "other"})", 404), "model");
  EXPECT_EQ(param("/tokenize", R"({"messages": [{"role": "user", "content": "a"}],
                                   "continue_final_message": true})"),
            "continue_final_message");
  EXPECT_EQ(param("/detokenize", R"({})"), "tokens");
  EXPECT_EQ(param("/detokenize", R"({"tokens": [1, 4096]})"), "tokens");
  EXPECT_EQ(param("/detokenize", R"({"tokens": ["a"]})"), "tokens");
  EXPECT_EQ(c.request(http::verb::post, "/tokenize", "{\"prompt\": ").result_int(), 400U);
}

TEST(HttpTokenize, VersionAndModelRetrieve) {
  server_config config = demo_config();
  config.api_key = "sekret";
  auto s = start_server(config);
  ASSERT_TRUE(s);
  http_client c(s->port());
  const std::pair<std::string, std::string> key{"Authorization", "Bearer sekret"};
  // Guarded, unlike vLLM's: with a key only /health and the playground are public.
  EXPECT_EQ(c.request(http::verb::get, "/version").result_int(), 401U);
  const auto version = c.request(http::verb::get, "/version", {}, {key});
  ASSERT_EQ(version.result_int(), 200U);
  EXPECT_EQ(json::parse(version.body()).at("version").as_string(), PAGEDSERVE_PROJECT_VERSION);

  EXPECT_EQ(c.request(http::verb::get, "/v1/models/pagedserve-demo").result_int(), 401U);
  EXPECT_EQ(c.request(http::verb::post, "/tokenize", R"({"prompt": "a"})").result_int(), 401U);
  const auto card = c.request(http::verb::get, "/v1/models/pagedserve-demo", {}, {key});
  ASSERT_EQ(card.result_int(), 200U) << card.body();
  const json::value model = json::parse(card.body());
  EXPECT_EQ(model.at("id").as_string(), "pagedserve-demo");
  EXPECT_EQ(model.at("object").as_string(), "model");
  const auto list = c.request(http::verb::get, "/v1/models", {}, {key});
  EXPECT_EQ(json::parse(list.body()).at("data").at(0), model);  // the same card
  const auto other = c.request(http::verb::get, "/v1/models/gpt-4o", {}, {key});
  EXPECT_EQ(other.result_int(), 404U);
  EXPECT_EQ(json::parse(other.body()).at("error").at("code").as_string(), "model_not_found");
}

// usage.prompt_tokens_details.cached_tokens: the second of two equal 40-token prompts finds
// its two full 16-token blocks in the prefix cache (the last block is partial).
TEST(HttpTokenize, UsageCountsThePromptTokensTheCacheHeld) {
  auto s = start_server(demo_config());
  ASSERT_TRUE(s);
  http_client c(s->port());
  std::string ids;
  for (int i = 0; i < 40; ++i) {
    if (i > 0) ids += ',';
    ids += std::to_string(100 + i);  // appended, not "," + ...: GCC 12's false -Wrestrict
  }
  const std::string body = R"({"prompt": [)" + ids + R"(], "max_tokens": 1})";
  const json::value first = post_json(c, "/v1/completions", body);
  EXPECT_EQ(first.at("usage").at("prompt_tokens_details").at("cached_tokens").to_number<int>(), 0);
  const json::value second = post_json(c, "/v1/completions", body);
  EXPECT_EQ(second.at("usage").at("prompt_tokens_details").at("cached_tokens").to_number<int>(),
            32);
}

}  // namespace
}  // namespace pagedserve::net::testing
