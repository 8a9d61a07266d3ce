// CORS as the Fetch standard's preflight and Starlette's CORSMiddleware (vLLM's) answer it:
// a preflight from an allowed origin gets the allowed methods and headers, one from another
// origin a 400; every answer to an allowed origin (JSON, error, SSE) names it; with
// allowed_origins empty (the default) there are no CORS headers and OPTIONS is a 405.

#include <string>

#include "tests/net/http/test_client.h"

namespace pagedserve::net::testing {
namespace {

constexpr const char* k_app = "https://app.example";

server_config cors_config() {
  server_config config = test_config();
  config.allowed_origins = {k_app};
  config.allowed_methods = {"GET", "POST"};
  config.allowed_headers = {"Content-Type", "Authorization"};
  return config;
}

using header_list = std::vector<std::pair<std::string, std::string>>;

header_list preflight_headers(const std::string& origin, const std::string& method,
                              const std::string& headers) {
  return {{"Origin", origin},
          {"Access-Control-Request-Method", method},
          {"Access-Control-Request-Headers", headers}};
}

TEST(HttpCors, PreflightFromAnAllowedOriginIsAnswered) {
  auto s = start_server(cors_config());
  ASSERT_TRUE(s);
  http_client c(s->port());
  const auto ok = c.request(http::verb::options, "/v1/chat/completions", {},
                            preflight_headers(k_app, "POST", "content-type, authorization"));
  EXPECT_EQ(ok.result_int(), 200U);
  EXPECT_EQ(ok[http::field::access_control_allow_origin], k_app);
  EXPECT_EQ(ok[http::field::vary], "Origin");
  EXPECT_EQ(ok[http::field::access_control_allow_methods], "GET, POST");
  EXPECT_EQ(ok[http::field::access_control_allow_headers], "Content-Type, Authorization");
  EXPECT_EQ(ok[http::field::access_control_max_age], "600");
  for (const auto& [origin, method, headers] :
       {std::tuple{"https://evil.example", "POST", "content-type"},
        std::tuple{k_app, "DELETE", "content-type"}, std::tuple{k_app, "POST", "x-secret"}}) {
    const auto refused = c.request(http::verb::options, "/v1/completions", {},
                                   preflight_headers(origin, method, headers));
    EXPECT_EQ(refused.result_int(), 400U) << origin << " " << method << " " << headers;
    EXPECT_NE(refused.body().find("Disallowed CORS"), std::string::npos) << refused.body();
    // Starlette names an allowed origin even in a refusal; never another one.
    EXPECT_EQ(refused[http::field::access_control_allow_origin],
              std::string(origin) == k_app ? k_app : "");
  }
}

TEST(HttpCors, EveryAnswerToAnAllowedOriginNamesIt) {
  auto s = start_server(cors_config());
  ASSERT_TRUE(s);
  http_client c(s->port());
  const header_list from_app = {{"Origin", k_app}};
  const auto ok = c.request(http::verb::post, "/v1/completions",
                            R"({"prompt": "hi", "max_tokens": 2})", from_app);
  EXPECT_EQ(ok.result_int(), 200U);
  EXPECT_EQ(ok[http::field::access_control_allow_origin], k_app);
  const auto bad = c.request(http::verb::post, "/v1/completions", R"({"prompt": 5})", from_app);
  EXPECT_EQ(bad.result_int(), 400U);
  EXPECT_EQ(bad[http::field::access_control_allow_origin], k_app);
  const auto stream = c.request(http::verb::post, "/v1/completions",
                                R"({"prompt": "hi", "max_tokens": 2, "stream": true})", from_app);
  EXPECT_EQ(stream[http::field::content_type], "text/event-stream");
  EXPECT_EQ(stream[http::field::access_control_allow_origin], k_app);
  const auto other =
      c.request(http::verb::get, "/v1/models", {}, {{"Origin", "https://b.example"}});
  EXPECT_EQ(other.result_int(), 200U);
  EXPECT_EQ(other[http::field::access_control_allow_origin], "");
}

TEST(HttpCors, AStarAllowsEveryOriginAndEchoesTheRequestedHeaders) {
  server_config config = test_config();
  config.allowed_origins = {"*"};
  auto s = start_server(config);
  ASSERT_TRUE(s);
  http_client c(s->port());
  const auto ok = c.request(http::verb::options, "/v1/models", {},
                            preflight_headers("http://localhost:3000", "GET", "x-anything"));
  EXPECT_EQ(ok.result_int(), 200U);
  EXPECT_EQ(ok[http::field::access_control_allow_origin], "*");
  EXPECT_EQ(ok[http::field::vary], "");
  EXPECT_EQ(ok[http::field::access_control_allow_headers], "x-anything");
}

TEST(HttpCors, OffByDefault) {
  auto s = start_server();
  ASSERT_TRUE(s);
  http_client c(s->port());
  const auto preflight = c.request(http::verb::options, "/v1/completions", {},
                                   preflight_headers(k_app, "POST", "content-type"));
  EXPECT_EQ(preflight.result_int(), 405U);
  EXPECT_EQ(preflight[http::field::access_control_allow_origin], "");
  const auto get = c.request(http::verb::get, "/v1/models", {}, {{"Origin", k_app}});
  EXPECT_EQ(get[http::field::access_control_allow_origin], "");
}

}  // namespace
}  // namespace pagedserve::net::testing
