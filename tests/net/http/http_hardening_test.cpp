// The attacks of issue 17, each against the in-process server as a client would send them.
// On 03b41d6 the trailer cases killed the process (an exception out of an io thread), the
// floods were held in memory, and the protocol cases were answered wrongly.

#include <string>

#include "tests/net/http/test_client.h"

namespace pagedserve::net::testing {
namespace {

std::string chunked_get(const std::string& path, const std::string& after_last_chunk) {
  return "GET " + path + " HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n" +
         after_last_chunk + "\r\n";
}

json::value error_of(const http::response<http::string_body>& res) {
  return json::parse(res.body()).at("error");
}

bool still_serves(std::uint16_t port) {
  http_client c(port);
  return c.request(http::verb::get, "/health").result_int() == 200u;
}

TEST(HttpHardening, HugeTrailerFieldIs431BeforeAuthAndTheServerLives) {
  server_config config = test_config();
  config.api_key = "k";
  auto s = start_server(config);
  ASSERT_TRUE(s);
  {
    http_client c(s->port());
    ASSERT_FALSE(
        c.send_raw(chunked_get("/nonexistent", "X-T: " + std::string(70000, 'a') + "\r\n")));
    EXPECT_EQ(c.read().result_int(), 431u);
    EXPECT_TRUE(c.closed_by_server());
  }
  {
    http_client c(s->port());
    ASSERT_FALSE(c.send_raw(chunked_get("/nonexistent", std::string(70000, 'a') + ": v\r\n")));
    EXPECT_EQ(c.read().result_int(), 431u);
  }
  EXPECT_TRUE(still_serves(s->port()));
}

TEST(HttpHardening, ManySmallTrailersAreRefusedPastTheHeaderLimit) {
  auto s = start_server();
  ASSERT_TRUE(s);
  http_client c(s->port());
  std::string trailers;
  while (trailers.size() < 256 * 1024) trailers += "X-F: " + std::string(90, 'f') + "\r\n";
  c.send_raw(chunked_get("/health", trailers));  // may fail once the server has answered
  const auto res = c.read();
  EXPECT_EQ(res.result_int(), 431u);
  EXPECT_EQ(error_of(res).at("code").as_string(), "headers_too_large");
}

TEST(HttpHardening, ChunkExtensionsAreBounded) {
  auto s = start_server();
  ASSERT_TRUE(s);
  http_client c(s->port());
  c.send_raw("POST /v1/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2;" +
             std::string(1024 * 1024, 'e') + "\r\n{}\r\n0\r\n\r\n");
  EXPECT_EQ(c.read().result_int(), 431u);  // refused before the line ends
  http_client d(s->port());
  ASSERT_FALSE(d.send_raw(
      "POST /v1/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2;" +
      std::string(2000, 'e') + "\r\n{}\r\n0\r\n\r\n"));
  EXPECT_EQ(d.read().result_int(), 400u);
}

// 03b41d6 sent a body with the 405 to HEAD; the client then read it as the next response.
TEST(HttpHardening, HeadKeepsKeepAliveFraming) {
  auto s = start_server();
  ASSERT_TRUE(s);
  http_client c(s->port());
  ASSERT_FALSE(c.send_raw("HEAD /health HTTP/1.1\r\nHost: x\r\n\r\n"));
  const auto head = c.read(/*head_request=*/true);
  EXPECT_EQ(head.result_int(), 200u);
  EXPECT_EQ(head[http::field::content_length], "2");  // GET's body is "{}"
  ASSERT_FALSE(c.send_raw("HEAD /v1/completions HTTP/1.1\r\nHost: x\r\n\r\n"));
  const auto refused = c.read(/*head_request=*/true);
  EXPECT_EQ(refused.result_int(), 405u);
  EXPECT_EQ(refused[http::field::allow], "POST");
  ASSERT_FALSE(c.send_raw("HEAD /nope HTTP/1.1\r\nHost: x\r\n\r\n"));
  EXPECT_EQ(c.read(/*head_request=*/true).result_int(), 404u);
  const auto models = c.request(http::verb::get, "/v1/models");  // same connection
  ASSERT_EQ(models.result_int(), 200u);
  EXPECT_EQ(json::parse(models.body()).at("object").as_string(), "list");
}

TEST(HttpHardening, HostRulesOfRfc9112) {
  auto s = start_server();
  ASSERT_TRUE(s);
  for (const std::string head :
       {"GET /health HTTP/1.1\r\n\r\n", "GET /health HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"}) {
    http_client c(s->port());
    ASSERT_FALSE(c.send_raw(head));
    EXPECT_EQ(c.read().result_int(), 400u) << head;
    EXPECT_TRUE(c.closed_by_server());
  }
  http_client old(s->port());
  ASSERT_FALSE(old.send_raw("GET /health HTTP/1.0\r\n\r\n"));
  EXPECT_EQ(old.read().result_int(), 200u);
}

TEST(HttpHardening, OnlyChunkedIsATransferCoding) {
  auto s = start_server();
  ASSERT_TRUE(s);
  const auto send = [&](const std::string& codings) {
    http_client c(s->port());
    c.send_raw("POST /v1/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: " + codings +
               "\r\n\r\n2\r\n{}\r\n0\r\n\r\n");
    return c.read().result_int();
  };
  EXPECT_EQ(send("gzip, chunked"), 501u);
  EXPECT_EQ(send("chunked, gzip"), 400u);
  EXPECT_EQ(send("chunked"), 400u);  // framed fine: "{}" has no prompt
}

TEST(HttpHardening, AbsoluteFormTargetIsServed) {
  auto s = start_server();
  ASSERT_TRUE(s);
  http_client c(s->port());
  ASSERT_FALSE(c.send_raw("GET http://127.0.0.1/v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"));
  EXPECT_EQ(c.read().result_int(), 200u);
}

TEST(HttpHardening, WebSocketKeyMustDecodeTo16Bytes) {
  auto s = start_server();
  ASSERT_TRUE(s);
  http_client c(s->port());
  ASSERT_FALSE(c.send_raw(
      "GET /v1/stream HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
      "Sec-WebSocket-Key: abc\r\nSec-WebSocket-Version: 13\r\n\r\n"));
  const auto res = c.read();
  EXPECT_EQ(res.result_int(), 400u);
  EXPECT_NE(error_of(res).at("message").as_string().find("Sec-WebSocket-Key"), std::string::npos);
}

// 03b41d6: 400 with param null and the engine's internal wording ("top_p must be in (0, 1],
// got 0": the value had become 0 as a float). Now it keeps only the most likely token, as a
// tiny top_p does, so its answer is the greedy one.
TEST(HttpHardening, TopPBelowFloatRangeActsAsTheSmallestTopP) {
  auto s = start_server();
  ASSERT_TRUE(s);
  http_client c(s->port());
  const auto tiny = c.request(http::verb::post, "/v1/completions",
                              R"({"prompt": "Hello", "max_tokens": 8, "ignore_eos": true,
                                  "top_p": 1e-320, "seed": 7})");
  ASSERT_EQ(tiny.result_int(), 200u) << tiny.body();
  const auto greedy = c.request(http::verb::post, "/v1/completions", completion_body(8, false));
  ASSERT_EQ(greedy.result_int(), 200u);
  EXPECT_EQ(json::parse(tiny.body()).at("choices").at(0).at("text"),
            json::parse(greedy.body()).at("choices").at(0).at("text"));
}

TEST(HttpHardening, HundredThousandDigitMaxTokensIsOutOfRangeNotANumber) {
  auto s = start_server();
  ASSERT_TRUE(s);
  http_client c(s->port());
  const auto res =
      c.request(http::verb::post, "/v1/completions",
                R"({"prompt": "Hello", "max_tokens": )" + std::string(100000, '9') + "}");
  ASSERT_EQ(res.result_int(), 400u);
  const json::value err = error_of(res);
  EXPECT_EQ(err.at("param").as_string(), "max_tokens");
  const std::string message(err.at("message").as_string());
  EXPECT_EQ(message.find("got a number instead"), std::string::npos) << message;
  EXPECT_EQ(message.find("Infinity"), std::string::npos) << message;
  EXPECT_NE(message.find("expected an integer in [1, "), std::string::npos) << message;
}

}  // namespace
}  // namespace pagedserve::net::testing
