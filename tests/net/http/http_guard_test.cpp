// No exception escapes a connection (io_guard.h): each stage of the io threads' work is made
// to throw once through the server's io_hooks. The process must survive (an escaped
// exception terminates this test binary), the connection hit gets a 500 or a close, and
// the other connections, a stream in flight included, carry on.

#include <atomic>
#include <memory>
#include <stdexcept>
#include <string>

#include "tests/net/http/test_client.h"
#include "tests/net/http/ws_client.h"

namespace pagedserve::net::testing {
namespace {

// Throws once, the next time `stage` starts, once armed.
struct one_shot_fault {
  std::atomic<int> armed{-1};
  std::atomic<int> fired{0};

  void arm(io_stage stage) { armed.store(static_cast<int>(stage)); }
  io_hooks hooks() {
    return io_hooks{[this](io_stage stage) {
      int expected = static_cast<int>(stage);
      if (armed.compare_exchange_strong(expected, -1)) {
        fired.fetch_add(1);
        throw std::runtime_error("injected fault");
      }
    }};
  }
};

// A streamed completion whose head and first event have arrived.
struct stream_in_flight {
  explicit stream_in_flight(std::uint16_t port, std::uint32_t max_tokens) : client(port) {
    http::request<http::string_body> req{http::verb::post, "/v1/completions", 11};
    req.set(http::field::content_type, "application/json");
    req.body() = completion_body(max_tokens, true);
    EXPECT_FALSE(client.send(std::move(req)));
    const auto res = client.read_until([](const std::string& body) { return !body.empty(); });
    EXPECT_EQ(res.result_int(), 200u);
  }
  // True once the stream ended with [DONE].
  bool completes() {
    const auto res = client.read_more([](const std::string&) { return false; });
    return res.body().find("data: [DONE]") != std::string::npos;
  }
  http_client client;
};

bool completion_works(std::uint16_t port) {
  http_client c(port);
  const auto res = c.request(http::verb::post, "/v1/completions", completion_body(3, false));
  return res.result_int() == 200u;
}

class HttpGuard : public ::testing::TestWithParam<io_stage> {};

// The stages a new request goes through: the request that hits the fault gets a 500 and
// its connection closes; a stream already in flight does not enter them and completes.
TEST_P(HttpGuard, AThrowInARequestStageAnswers500AndSparesTheOthers) {
  one_shot_fault fault;
  auto s = start_server(test_config(), fault.hooks());
  ASSERT_TRUE(s);
  stream_in_flight stream(s->port(), 48);
  fault.arm(GetParam());
  http_client victim(s->port());
  const auto res = victim.request(http::verb::post, "/v1/completions", completion_body(3, false));
  EXPECT_EQ(fault.fired.load(), 1);
  EXPECT_EQ(res.result_int(), 500u);
  EXPECT_EQ(json::parse(res.body()).at("error").at("type").as_string(), "server_error");
  EXPECT_TRUE(victim.closed_by_server());
  EXPECT_TRUE(stream.completes());
  EXPECT_TRUE(completion_works(s->port()));
  EXPECT_TRUE(wait_pool_refilled(s->port()));
}

INSTANTIATE_TEST_SUITE_P(Stages, HttpGuard,
                         ::testing::Values(io_stage::read, io_stage::parse, io_stage::route,
                                           io_stage::body),
                         [](const auto& stage) { return std::string(to_string(stage.param)); });

// The stages a stream in flight goes through (its writes, its engine events): the stream hit
// is closed mid-way (a 500 is too late once its head went out), its request is cancelled,
// and a connection opened before goes on.
TEST(HttpGuardStream, AThrowInAStreamsWriteOrEventClosesOnlyThatStream) {
  for (const io_stage stage : {io_stage::write, io_stage::engine_event}) {
    one_shot_fault fault;
    auto s = start_server(test_config(), fault.hooks());
    ASSERT_TRUE(s);
    http_client bystander(s->port());
    EXPECT_EQ(bystander.request(http::verb::get, "/health").result_int(), 200u);
    stream_in_flight stream(s->port(), 400);
    fault.arm(stage);
    EXPECT_FALSE(stream.completes()) << to_string(stage);
    EXPECT_EQ(fault.fired.load(), 1);
    EXPECT_EQ(bystander.request(http::verb::get, "/health").result_int(), 200u);
    EXPECT_TRUE(completion_works(s->port()));
    EXPECT_TRUE(wait_pool_refilled(s->port())) << "the cut stream's request was not cancelled";
  }
}

TEST(HttpGuardStream, AThrowAtAcceptLosesOnlyThatConnection) {
  one_shot_fault fault;
  auto s = start_server(test_config(), fault.hooks());
  ASSERT_TRUE(s);
  fault.arm(io_stage::accept);
  http_client lost(s->port());
  EXPECT_TRUE(lost.closed_by_server());
  EXPECT_EQ(fault.fired.load(), 1);
  EXPECT_TRUE(completion_works(s->port()));
}

TEST(HttpGuardStream, AThrowInAWebSocketClosesItWith1011AndSparesTheOthers) {
  one_shot_fault fault;
  auto s = start_server(test_config(), fault.hooks());
  ASSERT_TRUE(s);
  stream_in_flight stream(s->port(), 48);
  ws_client ws(s->port());
  ASSERT_FALSE(ws.handshake_error());
  fault.arm(io_stage::websocket);
  ws.send(json::object{{"type", "completion"},
                       {"id", "a"},
                       {"prompt", "Hi"},
                       {"max_tokens", 400},
                       {"ignore_eos", true}});
  json::value message = ws.receive();
  while (!message.is_null()) message = ws.receive();
  EXPECT_EQ(ws.close_code(), static_cast<std::uint16_t>(websocket::close_code::internal_error));
  EXPECT_EQ(fault.fired.load(), 1);
  EXPECT_TRUE(stream.completes());
  ws_client again(s->port());
  EXPECT_FALSE(again.handshake_error());
  EXPECT_TRUE(wait_pool_refilled(s->port()));
}

}  // namespace
}  // namespace pagedserve::net::testing
