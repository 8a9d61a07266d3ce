// The server's HTTP surface without generation: routes, auth, limits, timeouts, keep-alive.

#include <string>

#include "tests/net/http/test_client.h"

namespace pagedserve::net::testing {
namespace {

json::value parse_json(const std::string& text) { return json::parse(text); }

std::string error_type(const std::string& body) {
  return std::string(parse_json(body).at("error").at("type").as_string());
}

TEST(HttpServer, HealthModelsAndMetricsAnswer) {
  auto s = start_server();
  ASSERT_TRUE(s);
  http_client c(s->port());
  const auto health = c.request(http::verb::get, "/health");
  EXPECT_EQ(health.result_int(), 200u);
  EXPECT_EQ(health.body(), "{}");

  const auto models = c.request(http::verb::get, "/v1/models");  // same connection
  ASSERT_EQ(models.result_int(), 200u);
  const json::value list = parse_json(models.body());
  EXPECT_EQ(list.at("object").as_string(), "list");
  const json::value& model = list.at("data").as_array().at(0);
  EXPECT_EQ(model.at("id").as_string(), "demo-random");
  EXPECT_EQ(model.at("object").as_string(), "model");
  EXPECT_EQ(model.at("owned_by").as_string(), "pagedserve");
  EXPECT_EQ(model.at("max_model_len").to_number<std::int64_t>(), 512);
  EXPECT_TRUE(model.at("created").is_int64());

  const auto metrics = c.request(http::verb::get, "/metrics");
  ASSERT_EQ(metrics.result_int(), 200u);
  EXPECT_EQ(metrics[http::field::content_type], "text/plain; version=0.0.4");
  EXPECT_NE(metrics.body().find("# TYPE pagedserve:kv_cache_usage_perc gauge"), std::string::npos);
  // The two earlier responses were counted.
  EXPECT_GE(metric(metrics.body(), "pagedserve:http_responses_total").value_or(0), 2.0);
}

TEST(HttpServer, ServedModelNameIsConfigurable) {
  server_config config = test_config();
  config.served_model_name = "my-model";
  auto s = start_server(config);
  ASSERT_TRUE(s);
  http_client c(s->port());
  const auto models = c.request(http::verb::get, "/v1/models");
  EXPECT_EQ(parse_json(models.body()).at("data").at(0).at("id").as_string(), "my-model");
}

TEST(HttpServer, UnknownPathIs404AndWrongMethodIs405WithAllow) {
  auto s = start_server();
  ASSERT_TRUE(s);
  http_client c(s->port());
  const auto missing = c.request(http::verb::get, "/v1/nothing");
  EXPECT_EQ(missing.result_int(), 404u);
  EXPECT_TRUE(parse_json(missing.body()).at("error").is_object());

  const auto wrong = c.request(http::verb::get, "/v1/completions");
  EXPECT_EQ(wrong.result_int(), 405u);
  EXPECT_EQ(wrong[http::field::allow], "POST");
  EXPECT_TRUE(parse_json(wrong.body()).at("error").is_object());

  const auto query = c.request(http::verb::get, "/health?verbose=1");  // query ignored
  EXPECT_EQ(query.result_int(), 200u);
}

// With a key, only /health and the playground's files answer without it (issue 26: the page
// must load before it can ask for the key; /metrics and /version need it, unlike vLLM).
TEST(HttpServer, ApiKeyGuardsAllButHealthAndThePlayground) {
  server_config config = test_config();
  config.api_key = "sekret";
  auto s = start_server(config);
  ASSERT_TRUE(s);
  http_client c(s->port());
  EXPECT_EQ(c.request(http::verb::get, "/v1/models").result_int(), 401u);
  EXPECT_EQ(c.request(http::verb::get, "/v1/models", {}, {{"Authorization", "Bearer wrong"}})
                .result_int(),
            401u);
  EXPECT_EQ(c.request(http::verb::get, "/v1/models", {}, {{"Authorization", "Bearer sekret"}})
                .result_int(),
            200u);
  EXPECT_EQ(c.request(http::verb::post, "/v1/completions", completion_body(2, false)).result_int(),
            401u);
  EXPECT_EQ(c.request(http::verb::get, "/health").result_int(), 200u);
  EXPECT_EQ(c.request(http::verb::get, "/").result_int(), 200u);
  EXPECT_EQ(c.request(http::verb::get, "/ui/main.js").result_int(), 200u);
  EXPECT_EQ(c.request(http::verb::get, "/metrics").result_int(), 401u);
  EXPECT_EQ(c.request(http::verb::get, "/version").result_int(), 401u);
  EXPECT_EQ(
      c.request(http::verb::get, "/metrics", {}, {{"Authorization", "Bearer sekret"}}).result_int(),
      200u);
}

TEST(HttpServer, PlaygroundIsServedWithRevalidation) {
  auto s = start_server();
  ASSERT_TRUE(s);
  http_client c(s->port());
  const auto page = c.request(http::verb::get, "/");
  ASSERT_EQ(page.result_int(), 200u);
  EXPECT_EQ(page[http::field::content_type], "text/html; charset=utf-8");
  EXPECT_NE(page.body().find("<script type=\"module\" src=\"ui/main.js\">"), std::string::npos);
  const std::string etag(page[http::field::etag]);
  ASSERT_FALSE(etag.empty());
  const auto again = c.request(http::verb::get, "/", {}, {{"If-None-Match", etag}});
  EXPECT_EQ(again.result_int(), 304u);
  EXPECT_TRUE(again.body().empty());
  EXPECT_EQ(c.request(http::verb::get, "/ui/nothing.js").result_int(), 404u);
  EXPECT_EQ(c.request(http::verb::post, "/", "{}").result_int(), 405u);
}

TEST(HttpServer, UiOffAnswers404AndKeepsTheApi) {
  server_config config = test_config();
  config.ui = false;
  auto s = start_server(config);
  ASSERT_TRUE(s);
  http_client c(s->port());
  const auto page = c.request(http::verb::get, "/");
  EXPECT_EQ(page.result_int(), 404u);
  EXPECT_NE(page.body().find("ui: off"), std::string::npos) << page.body();
  EXPECT_EQ(c.request(http::verb::get, "/ui/main.js").result_int(), 404u);
  EXPECT_EQ(c.request(http::verb::get, "/v1/models").result_int(), 200u);
}

TEST(HttpServer, InvalidJsonAndInvalidFieldsAre400) {
  auto s = start_server();
  ASSERT_TRUE(s);
  http_client c(s->port());
  const auto bad_json = c.request(http::verb::post, "/v1/completions", "{\"prompt\": ");
  EXPECT_EQ(bad_json.result_int(), 400u);
  EXPECT_EQ(error_type(bad_json.body()), "invalid_request_error");
  const auto bad_field =
      c.request(http::verb::post, "/v1/completions", R"({"prompt": "x", "max_tokens": -3})");
  EXPECT_EQ(bad_field.result_int(), 400u);
  const auto too_long = c.request(http::verb::post, "/v1/completions",
                                  completion_body(10, false, std::string(2000, 'a')));
  EXPECT_EQ(too_long.result_int(), 400u);
  // The connection is still usable after client errors.
  EXPECT_EQ(c.request(http::verb::get, "/health").result_int(), 200u);
}

TEST(HttpServer, BodyOverTheLimitIs413AndCloses) {
  server_config config = test_config();
  config.max_body_bytes = 1024;
  auto s = start_server(config);
  ASSERT_TRUE(s);
  http_client c(s->port());
  const auto res = c.request(http::verb::post, "/v1/completions",
                             completion_body(4, false, std::string(4096, 'a')));
  EXPECT_EQ(res.result_int(), 413u);
  EXPECT_TRUE(parse_json(res.body()).at("error").is_object());
  EXPECT_TRUE(c.closed_by_server());
}

TEST(HttpServer, HeaderOverTheLimitIs431AndCloses) {
  server_config config = test_config();
  config.max_header_bytes = 1024;
  auto s = start_server(config);
  ASSERT_TRUE(s);
  http_client c(s->port());
  const auto res =
      c.request(http::verb::get, "/health", {}, {{"X-Padding", std::string(4096, 'p')}});
  EXPECT_EQ(res.result_int(), 431u);
  EXPECT_TRUE(parse_json(res.body()).at("error").is_object());
  EXPECT_TRUE(c.closed_by_server());
}

TEST(HttpServer, MalformedRequestIs400) {
  auto s = start_server();
  ASSERT_TRUE(s);
  http_client c(s->port());
  ASSERT_FALSE(c.send_raw("GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: zz\r\n\r\n"));
  EXPECT_EQ(c.read().result_int(), 400u);
  EXPECT_TRUE(c.closed_by_server());
}

TEST(HttpServer, HalfAHeaderIsClosedAfterTheReadTimeout) {
  server_config config = test_config();
  config.read_timeout_s = 0.2;
  auto s = start_server(config);
  ASSERT_TRUE(s);
  http_client c(s->port());
  ASSERT_FALSE(c.send_raw("GET /health HTTP/1.1\r\nHost: 127"));
  EXPECT_TRUE(c.closed_by_server(std::chrono::seconds(10)));
}

TEST(HttpServer, IdleKeepAliveConnectionIsClosed) {
  server_config config = test_config();
  config.idle_timeout_s = 0.2;
  auto s = start_server(config);
  ASSERT_TRUE(s);
  http_client c(s->port());
  EXPECT_EQ(c.request(http::verb::get, "/health").result_int(), 200u);
  EXPECT_TRUE(c.closed_by_server(std::chrono::seconds(10)));
}

TEST(HttpServer, PipelinedRequestsAreAnsweredInOrder) {
  auto s = start_server();
  ASSERT_TRUE(s);
  http_client c(s->port());
  ASSERT_FALSE(
      c.send_raw("GET /health HTTP/1.1\r\nHost: x\r\n\r\n"
                 "GET /nope HTTP/1.1\r\nHost: x\r\n\r\n"
                 "GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n"));
  EXPECT_EQ(c.read().result_int(), 200u);
  EXPECT_EQ(c.read().result_int(), 404u);
  EXPECT_EQ(c.read().result_int(), 200u);
}

TEST(HttpServer, ConnectionsPastTheLimitAreClosed) {
  server_config config = test_config();
  config.max_connections = 1;
  auto s = start_server(config);
  ASSERT_TRUE(s);
  http_client first(s->port());
  EXPECT_EQ(first.request(http::verb::get, "/health").result_int(), 200u);
  http_client second(s->port());
  EXPECT_TRUE(second.closed_by_server());
  EXPECT_EQ(first.request(http::verb::get, "/health").result_int(), 200u);
}

TEST(HttpServer, BindErrorNamesTheAddress) {
  auto s = start_server();
  ASSERT_TRUE(s);
  server_config config = test_config();
  config.port = s->port();  // taken
  auto second = server::start(config);
  ASSERT_FALSE(second);
  EXPECT_NE(second.err().message.find("127.0.0.1:" + std::to_string(s->port())), std::string::npos)
      << second.err().message;
}

TEST(HttpServer, NonUpgradeRequestToStreamIsRefused) {
  auto s = start_server();
  ASSERT_TRUE(s);
  http_client c(s->port());
  EXPECT_EQ(c.request(http::verb::get, "/v1/stream").result_int(), 426u);
}

}  // namespace
}  // namespace pagedserve::net::testing
