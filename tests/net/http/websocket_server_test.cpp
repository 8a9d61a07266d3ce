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

// A completion with "lifecycle": true (ignore_eos, greedy).
json::value lifecycle_completion(const std::string& id, const json::value& prompt,
                                 std::uint32_t max_tokens, bool lifecycle = true) {
  return json::object{{"type", "completion"},     {"id", id},           {"prompt", prompt},
                      {"max_tokens", max_tokens}, {"ignore_eos", true}, {"temperature", 0.0},
                      {"lifecycle", lifecycle}};
}

// Every message of request `id` up to its done (one request on the socket at a time).
std::vector<json::value> until_done(ws_client& ws) {
  std::vector<json::value> out;
  do {
    out.push_back(ws.receive());
    if (out.back().is_null()) break;
  } while (type_of(out.back()) != "done" && type_of(out.back()) != "error");
  return out;
}

// Choice `index`'s messages as "delta", "done" or the lifecycle stage; the tokens it got.
std::vector<std::string> kinds_of(const std::vector<json::value>& messages, std::int64_t index,
                                  std::size_t* num_tokens = nullptr) {
  std::vector<std::string> out;
  for (const json::value& m : messages) {
    const std::string type = type_of(m);
    if (type == "done" || type == "error") {
      out.push_back(type);
      continue;
    }
    if (m.at("index").to_number<std::int64_t>() != index) continue;
    if (type == "lifecycle") out.emplace_back(m.at("stage").as_string());
    if (type != "delta") continue;
    out.push_back(type);
    if (num_tokens != nullptr) *num_tokens += m.at("token_ids").as_array().size();
  }
  return out;
}

const json::value* stage_of(const std::vector<json::value>& messages, const std::string& stage) {
  for (const json::value& m : messages) {
    if (type_of(m) == "lifecycle" && m.at("stage").as_string() == stage) return &m;
  }
  return nullptr;
}

// Queued and scheduled before the first delta, finished after the last one, then done.
void expect_lifecycle_around_deltas(const std::vector<std::string>& kinds) {
  ASSERT_GE(kinds.size(), 4u);
  EXPECT_EQ(kinds[0], "queued");
  EXPECT_EQ(kinds[1], "scheduled");
  for (std::size_t i = 2; i + 2 < kinds.size(); ++i) EXPECT_EQ(kinds[i], "delta") << i;
  EXPECT_EQ(kinds[kinds.size() - 2], "finished");
  EXPECT_EQ(kinds.back(), "done");
}

TEST(WebSocketServer, LifecycleMessagesComeInOrderWithTheDeltasOnlyWhenAsked) {
  auto s = start_server();
  ASSERT_TRUE(s);
  ws_client ws(s->port());
  // 40 bytes (41 tokens with BOS): a repeat finds floor((41 - 1) / 16) = 2 blocks of 16 in
  // the prefix cache, and 2 for 40 tokens too (runtime/kv/kv_cache_manager.cpp,
  // get_computed_blocks: whole blocks, never the prompt's last token): 32 tokens.
  const std::string prompt = "0123456789abcdefghijklmnopqrstuvwxyzABCD";
  for (const std::uint32_t expected_cached : {0u, 32u}) {
    ws.send(lifecycle_completion("l", json::string(prompt), 4));
    const std::vector<json::value> messages = until_done(ws);
    std::size_t num_tokens = 0;
    expect_lifecycle_around_deltas(kinds_of(messages, 0, &num_tokens));
    EXPECT_EQ(num_tokens, 4u);
    const json::value* scheduled = stage_of(messages, "scheduled");
    ASSERT_NE(scheduled, nullptr);
    EXPECT_EQ(scheduled->at("cached_tokens").to_number<std::uint32_t>(), expected_cached);
    EXPECT_EQ(scheduled->at("id").as_string(), "l");
    EXPECT_TRUE(scheduled->at("step").is_number());
    EXPECT_TRUE(scheduled->at("time").is_number());
  }
  ws.send(lifecycle_completion("plain", json::string(prompt), 4, false));
  for (const json::value& m : until_done(ws)) EXPECT_NE(type_of(m), "lifecycle");
}

TEST(WebSocketServer, LifecycleMessagesNameTheirChoice) {
  auto s = start_server();
  ASSERT_TRUE(s);
  ws_client ws(s->port());
  ws.send(lifecycle_completion("two", json::array{"first prompt", "second prompt"}, 3));
  const std::vector<json::value> messages = until_done(ws);
  for (const std::int64_t choice : {0, 1}) {
    std::size_t num_tokens = 0;
    expect_lifecycle_around_deltas(kinds_of(messages, choice, &num_tokens));
    EXPECT_EQ(num_tokens, 3u) << "choice " << choice;
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
