// The WebSocket protocol at /v1/stream (docs/websocket.md) against the in-process server.

#include <map>
#include <set>
#include <string>

#include "tests/net/http/test_client.h"
#include "tests/net/http/ws_client.h"

namespace pagedserve::net::testing {
namespace {

json::value completion(const std::string& id, std::uint32_t max_tokens) {
  return json::object{{"type", "completion"},     {"id", id},           {"prompt", "Hi"},
                      {"max_tokens", max_tokens}, {"ignore_eos", true}, {"temperature", 0.0}};
}

std::string type_of(const json::value& message) {
  return std::string(message.at("type").as_string());
}

TEST(WebSocketServer, TwoConcurrentRequestsOnOneSocket) {
  auto s = start_server();
  ASSERT_TRUE(s);
  ws_client ws(s->port());
  ASSERT_FALSE(ws.handshake_error());
  ws.send(completion("a", 5));
  ws.send(completion("b", 7));
  std::map<std::string, std::size_t> num_tokens;
  std::map<std::string, json::value> done;
  while (done.size() < 2) {
    const json::value message = ws.receive();
    ASSERT_FALSE(message.is_null());
    const std::string id(message.at("id").as_string());
    ASSERT_FALSE(done.contains(id)) << "a message after done for " << id;
    if (type_of(message) == "delta") {
      EXPECT_EQ(message.at("index").to_number<int>(), 0);
      num_tokens[id] += message.at("token_ids").as_array().size();
    } else {
      ASSERT_EQ(type_of(message), "done") << json::serialize(message);
      done[id] = message;
    }
  }
  EXPECT_EQ(num_tokens["a"], 5u);
  EXPECT_EQ(num_tokens["b"], 7u);
  EXPECT_EQ(done["a"].at("finish_reason").as_string(), "length");
  EXPECT_EQ(done["b"].at("usage").at("completion_tokens").to_number<int>(), 7);
  EXPECT_EQ(done["b"].at("usage").at("total_tokens").to_number<int>(),
            7 + done["b"].at("usage").at("prompt_tokens").to_number<int>());
}

TEST(WebSocketServer, CancelAnswersDoneWithAbort) {
  auto s = start_server();
  ASSERT_TRUE(s);
  ws_client ws(s->port());
  ws.send(completion("long", 480));
  json::value first = ws.receive();
  ASSERT_EQ(type_of(first), "delta");
  ws.send(json::object{{"type", "cancel"}, {"id", "long"}});
  json::value message;
  do {
    message = ws.receive();
    ASSERT_FALSE(message.is_null());
  } while (type_of(message) == "delta");
  EXPECT_EQ(type_of(message), "done");
  EXPECT_EQ(message.at("finish_reason").as_string(), "abort");
  EXPECT_TRUE(wait_pool_refilled(s->port()));
}

TEST(WebSocketServer, BadMessagesAreAnsweredAndTheSocketStaysOpen) {
  auto s = start_server();
  ASSERT_TRUE(s);
  ws_client ws(s->port());
  ws.send_text("not json");
  EXPECT_EQ(type_of(ws.receive()), "error");
  ws.send(json::object{{"type", "teleport"}, {"id", "x"}});
  const json::value unknown = ws.receive();
  EXPECT_EQ(type_of(unknown), "error");
  EXPECT_EQ(unknown.at("id").as_string(), "x");
  ws.send(json::object{{"type", "completion"}, {"id", "y"}, {"max_tokens", -1}, {"prompt", "a"}});
  const json::value invalid = ws.receive();
  EXPECT_EQ(type_of(invalid), "error");
  EXPECT_EQ(invalid.at("error").at("type").as_string(), "invalid_request_error");
  ws.send(json::object{{"type", "cancel"}, {"id", "nobody"}});
  EXPECT_EQ(type_of(ws.receive()), "error");
  // Still serving.
  ws.send(completion("ok", 2));
  json::value message;
  do {
    message = ws.receive();
    ASSERT_FALSE(message.is_null());
  } while (type_of(message) == "delta");
  EXPECT_EQ(type_of(message), "done");
}

TEST(WebSocketServer, DuplicateActiveIdIsAnError) {
  auto s = start_server();
  ASSERT_TRUE(s);
  ws_client ws(s->port());
  ws.send(completion("same", 480));
  ws.send(completion("same", 4));
  bool saw_duplicate_error = false;
  for (;;) {
    const json::value message = ws.receive();
    ASSERT_FALSE(message.is_null());
    if (type_of(message) == "error") {
      saw_duplicate_error = true;
      ws.send(json::object{{"type", "cancel"}, {"id", "same"}});
    }
    if (type_of(message) == "done") break;
  }
  EXPECT_TRUE(saw_duplicate_error);
}

TEST(WebSocketServer, ClosingTheSocketCancelsItsRequests) {
  auto s = start_server();
  ASSERT_TRUE(s);
  {
    ws_client ws(s->port());
    ws.send(completion("a", 480));
    ws.send(completion("b", 480));
    ASSERT_EQ(type_of(ws.receive()), "delta");
    ws.close();
  }
  EXPECT_TRUE(wait_pool_refilled(s->port()));
}

TEST(WebSocketServer, AClientThatNeverReadsGetsItsRequestsCancelled) {
  server_config config = test_config();
  config.ws_max_send_queue_bytes = 1;  // the first queued message passes it
  auto s = start_server(config);
  ASSERT_TRUE(s);
  ws_client ws(s->port());
  ws.send(completion("a", 480));
  ws.send(completion("b", 480));
  EXPECT_TRUE(wait_pool_refilled(s->port()));
  // Reading now: the requests ended with the backpressure error.
  std::set<std::string> failed;
  while (failed.size() < 2) {
    const json::value message = ws.receive();
    ASSERT_FALSE(message.is_null());
    ASSERT_NE(type_of(message), "done");
    if (type_of(message) == "error") {
      EXPECT_EQ(message.at("error").at("type").as_string(), "backpressure");
      failed.insert(std::string(message.at("id").as_string()));
    }
  }
}

TEST(WebSocketServer, UpgradeNeedsTheApiKey) {
  server_config config = test_config();
  config.api_key = "k";
  auto s = start_server(config);
  ASSERT_TRUE(s);
  ws_client refused(s->port());
  EXPECT_TRUE(refused.handshake_error());
  EXPECT_EQ(refused.handshake_status(), 401u);
  ws_client allowed(s->port(), "k");
  EXPECT_FALSE(allowed.handshake_error());
}

TEST(WebSocketServer, MessageOverTheLimitClosesTheSocket) {
  server_config config = test_config();
  config.ws_max_message_bytes = 256;
  auto s = start_server(config);
  ASSERT_TRUE(s);
  ws_client ws(s->port());
  ws.send_text(std::string(1024, ' '));
  EXPECT_TRUE(ws.receive().is_null());
}

}  // namespace
}  // namespace pagedserve::net::testing
