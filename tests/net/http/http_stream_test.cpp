// Completions over HTTP: JSON bodies, SSE streams, disconnects and shutdown.

#include <chrono>
#include <future>
#include <string>
#include <thread>

#include <spdlog/spdlog.h>

#include "tests/net/http/test_client.h"

namespace pagedserve::net::testing {
namespace {

TEST(HttpCompletion, NonStreamingAnswerHasTheRequestedTokens) {
  auto s = start_server();
  ASSERT_TRUE(s);
  http_client c(s->port());
  const auto res = c.request(http::verb::post, "/v1/completions", completion_body(5, false));
  ASSERT_EQ(res.result_int(), 200u) << res.body();
  EXPECT_EQ(res[http::field::content_type], "application/json");
  const json::value body = json::parse(res.body());
  EXPECT_EQ(body.at("object").as_string(), "text_completion");
  EXPECT_EQ(body.at("model").as_string(), "demo-random");
  const json::value& choice = body.at("choices").at(0);
  EXPECT_EQ(choice.at("finish_reason").as_string(), "length");
  EXPECT_EQ(body.at("usage").at("completion_tokens").to_number<int>(), 5);
  // "Hello" is BOS + 5 bytes with the demo tokenizer.
  EXPECT_EQ(body.at("usage").at("prompt_tokens").to_number<int>(), 6);
}

TEST(HttpCompletion, ChatNonStreamingAnswers) {
  auto s = start_server();
  ASSERT_TRUE(s);
  http_client c(s->port());
  const std::string req = R"({"messages": [{"role": "user", "content": "Hi"}],
                              "max_tokens": 3, "ignore_eos": true, "temperature": 0})";
  const auto res = c.request(http::verb::post, "/v1/chat/completions", req);
  ASSERT_EQ(res.result_int(), 200u) << res.body();
  const json::value body = json::parse(res.body());
  EXPECT_EQ(body.at("object").as_string(), "chat.completion");
  EXPECT_EQ(body.at("choices").at(0).at("message").at("role").as_string(), "assistant");
  EXPECT_EQ(body.at("usage").at("completion_tokens").to_number<int>(), 3);
}

TEST(HttpCompletion, StreamIsServerSentEventsEndingWithDone) {
  auto s = start_server();
  ASSERT_TRUE(s);
  http_client c(s->port());
  const auto res = c.request(http::verb::post, "/v1/completions", completion_body(6, true));
  ASSERT_EQ(res.result_int(), 200u);
  EXPECT_EQ(res[http::field::content_type], "text/event-stream");
  EXPECT_EQ(res[http::field::cache_control], "no-cache");
  EXPECT_TRUE(res.chunked());
  const std::vector<std::string> payloads = sse_payloads(res.body());
  ASSERT_GE(payloads.size(), 2u);
  EXPECT_EQ(payloads.back(), "[DONE]");
  std::string finish_reason;
  for (std::size_t i = 0; i + 1 < payloads.size(); ++i) {
    const json::value chunk = json::parse(payloads[i]);
    EXPECT_EQ(chunk.at("object").as_string(), "text_completion");
    const json::value& reason = chunk.at("choices").at(0).at("finish_reason");
    if (reason.is_string()) finish_reason = std::string(reason.as_string());
  }
  EXPECT_EQ(finish_reason, "length");
  // Keep-alive: the next request on the same connection works.
  EXPECT_EQ(c.request(http::verb::get, "/health").result_int(), 200u);
}

TEST(HttpCompletion, StreamedTextMatchesTheNonStreamedText) {
  auto s = start_server();
  ASSERT_TRUE(s);
  http_client c(s->port());
  const auto whole = c.request(http::verb::post, "/v1/completions", completion_body(12, false));
  const auto streamed = c.request(http::verb::post, "/v1/completions", completion_body(12, true));
  std::string text;
  for (const std::string& p : sse_payloads(streamed.body())) {
    if (p == "[DONE]") continue;
    const json::value chunk = json::parse(p);
    if (!chunk.at("choices").as_array().empty()) {
      text += std::string(chunk.at("choices").at(0).at("text").as_string());
    }
  }
  EXPECT_EQ(text,
            std::string(json::parse(whole.body()).at("choices").at(0).at("text").as_string()));
}

// The head goes out as soon as the engine accepted the request; the demo model's tokens may
// decode to no text, so the tests wait for the head rather than for a data event.
TEST(HttpCompletion, DisconnectMidStreamFreesTheBlocks) {
  auto s = start_server();
  ASSERT_TRUE(s);
  {
    http_client c(s->port());
    http::request<http::string_body> req{http::verb::post, "/v1/completions", 11};
    req.body() = completion_body(480, true);
    ASSERT_FALSE(c.send(std::move(req)));
    const auto head = c.read_until([](const std::string&) { return true; });
    EXPECT_EQ(head.result_int(), 200u);
    c.close();
  }
  EXPECT_TRUE(wait_pool_refilled(s->port()));
  // The engine counted the cancelled completion once, as vLLM's "abort".
  http_client m(s->port());
  const std::string metrics = m.request(http::verb::get, "/metrics").body();
  EXPECT_EQ(finished_count(metrics, "abort"), 1.0) << metrics;
  EXPECT_EQ(finished_count(metrics, "length"), 0.0);
}

// request_success_total counts completions (vLLM's child requests): n = 2 ends twice.
TEST(HttpCompletion, EachChoiceOfARequestIsCountedOnceWhenItFinishes) {
  auto s = start_server();
  ASSERT_TRUE(s);
  http_client c(s->port());
  const std::string body =
      R"({"prompt": "Hello", "max_tokens": 3, "n": 2, "ignore_eos": true, "seed": 1})";
  ASSERT_EQ(c.request(http::verb::post, "/v1/completions", body).result_int(), 200u);
  ASSERT_EQ(c.request(http::verb::post, "/v1/completions", completion_body(2, true)).result_int(),
            200u);
  const std::string metrics = c.request(http::verb::get, "/metrics").body();
  EXPECT_EQ(finished_count(metrics, "length"), 3.0) << metrics;
  EXPECT_EQ(finished_count(metrics, "stop"), 0.0);
  EXPECT_EQ(finished_count(metrics, "abort"), 0.0);
  EXPECT_EQ(finished_count(metrics, "error"), 0.0);
}

TEST(HttpCompletion, DisconnectBeforeANonStreamedAnswerFreesTheBlocks) {
  auto s = start_server();
  ASSERT_TRUE(s);
  {
    http_client c(s->port());
    http::request<http::string_body> req{http::verb::post, "/v1/completions", 11};
    req.body() = completion_body(480, false);
    ASSERT_FALSE(c.send(std::move(req)));
    c.close();
  }
  EXPECT_TRUE(wait_pool_refilled(s->port()));
}

TEST(HttpCompletion, SlowStreamReaderIsCancelledAndClosed) {
  server_config config = test_config();
  config.ws_max_send_queue_bytes = 1;  // any queued event passes it
  auto s = start_server(config);
  ASSERT_TRUE(s);
  http_client c(s->port());
  http::request<http::string_body> req{http::verb::post, "/v1/completions", 11};
  req.body() = completion_body(480, true);
  ASSERT_FALSE(c.send(std::move(req)));
  EXPECT_TRUE(c.closed_by_server());
  EXPECT_TRUE(wait_pool_refilled(s->port()));
}

TEST(HttpCompletion, ShutdownWithAStreamInFlightReturnsWithinTheTimeout) {
  server_config config = test_config();
  config.shutdown_timeout_s = 0.5;
  auto s = start_server(config);
  ASSERT_TRUE(s);
  http_client c(s->port());
  http::request<http::string_body> req{http::verb::post, "/v1/completions", 11};
  req.body() = completion_body(480, true);
  ASSERT_FALSE(c.send(std::move(req)));
  const auto head = c.read_until([](const std::string&) { return true; });
  ASSERT_EQ(head.result_int(), 200u);

  const auto start = std::chrono::steady_clock::now();
  auto waited = std::async(std::launch::async, [&] { return s->wait(); });
  s->request_stop();
  ASSERT_EQ(waited.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  waited.get();
  // Drain (0.5 s) plus the flush bound (2 s) at most.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(4));
  // The stream ended properly: the rest of it, then [DONE].
  const auto rest = c.read_more([](const std::string&) { return false; });
  EXPECT_NE(rest.body().find("data: [DONE]\n\n"), std::string::npos);
}

TEST(HttpCompletion, HealthIs503AndRequestsAre503WhileDraining) {
  server_config config = test_config();
  config.shutdown_timeout_s = 2.0;
  auto s = start_server(config);
  ASSERT_TRUE(s);
  http_client streaming(s->port());
  http::request<http::string_body> req{http::verb::post, "/v1/completions", 11};
  req.body() = completion_body(480, true);
  ASSERT_FALSE(streaming.send(std::move(req)));
  streaming.read_until([](const std::string&) { return true; });
  // Connected and served before the stop, so the server holds its session (a connection still
  // in the listen backlog at the stop would be reset with the acceptor): served in the drain.
  http_client other(s->port());
  ASSERT_EQ(other.request(http::verb::get, "/health").result_int(), 200u);
  auto waited = std::async(std::launch::async, [&] { return s->wait(); });
  s->request_stop();
  // The drain lasts until the stream ends or 2 s pass; poll health until it says 503.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  unsigned health = 200;
  while (health == 200 && std::chrono::steady_clock::now() < deadline) {
    health = other.request(http::verb::get, "/health").result_int();
  }
  EXPECT_EQ(health, 503u);
  waited.get();
}

}  // namespace
}  // namespace pagedserve::net::testing
