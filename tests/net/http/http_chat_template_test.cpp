// The chat template keys through a running server (the demo model): chat_template replaces
// the model's template, a bad one stops the start, and a request's own chat_template needs
// trust_request_chat_template. The rendered text is read back through /detokenize and
// compared with what the template, read by hand, writes.

#include <string>

#include "tests/net/http/test_client.h"

namespace pagedserve::net::testing {
namespace {

json::value post_json(http_client& c, const std::string& path, const std::string& body,
                      unsigned want_status = 200) {
  const auto response = c.request(http::verb::post, path, body);
  EXPECT_EQ(response.result_int(), want_status) << path << " " << body << ": " << response.body();
  return json::parse(response.body());
}

// The text a chat body renders to: /tokenize's ids decoded back (special tokens kept).
std::string rendered(http_client& c, const std::string& body) {
  const json::value ids = post_json(c, "/tokenize", body);
  if (!ids.is_object() || !ids.as_object().contains("tokens")) return "<error>";
  const json::value text =
      post_json(c, "/detokenize", R"({"tokens": )" + json::serialize(ids.at("tokens")) + "}");
  return std::string(text.at("prompt").as_string());
}

constexpr const char* hi = R"({"messages": [{"role": "user", "content": "Hi"},
                                            {"role": "assistant", "content": "Hello"}])";

TEST(HttpChatTemplate, TheKeysTemplateReplacesTheModels) {
  server_config config = demo_config();
  config.chat_template = "{% for m in messages %}<{{ m.role }}:{{ m.content }}>{% endfor %}";
  auto s = start_server(config);
  ASSERT_TRUE(s);
  http_client c(s->port());
  EXPECT_EQ(rendered(c, std::string(hi) + "}"), "<user:Hi><assistant:Hello>");
  // continue_final_message cuts right after "Hello".
  EXPECT_EQ(rendered(c, std::string(hi) +
                            R"(, "add_generation_prompt": false, "continue_final_message": true})"),
            "<user:Hi><assistant:Hello");
}

TEST(HttpChatTemplate, ATemplateThatDoesNotCompileStopsTheStart) {
  server_config config = demo_config();
  config.chat_template = "{% for m in messages %}";
  auto s = server::start(config);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.err().message.rfind("chat_template: the template does not compile", 0), 0U)
      << s.err().message;
  config.chat_template = "templates/missing.jinja";
  auto missing = server::start(config);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.err().message.find("looks like a file path"), std::string::npos);
}

TEST(HttpChatTemplate, RequestTemplatesNeedTheServersTrust) {
  const std::string body =
      std::string(hi) + R"(, "chat_template": "{{ messages[1].content }}!", "max_tokens": 1})";
  {
    auto s = start_server(demo_config());
    ASSERT_TRUE(s);
    http_client c(s->port());
    const json::value err = post_json(c, "/v1/chat/completions", body, 400);
    EXPECT_EQ(err.at("error").at("param").as_string(), "chat_template");
    EXPECT_EQ(post_json(c, "/tokenize", body, 400).at("error").at("param").as_string(),
              "chat_template");
  }
  server_config trusting = demo_config();
  trusting.trust_request_chat_template = true;
  auto s = start_server(trusting);
  ASSERT_TRUE(s);
  http_client c(s->port());
  EXPECT_EQ(rendered(c, body), "Hello!");
  const json::value chat = post_json(c, "/v1/chat/completions", body);
  const json::value count = post_json(c, "/tokenize", body);
  EXPECT_EQ(chat.at("usage").at("prompt_tokens").to_number<std::size_t>(),
            count.at("count").to_number<std::size_t>());
}

}  // namespace
}  // namespace pagedserve::net::testing
