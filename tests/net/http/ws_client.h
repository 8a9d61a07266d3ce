#pragma once
// ws_client: a Beast WebSocket client for the server tests; every operation has a deadline.

#include <string>

#include "tests/net/http/test_client.h"

namespace pagedserve::net::testing {

class ws_client {
 public:
  explicit ws_client(std::uint16_t port, const std::string& api_key = {}) : ws_(ioc_) {
    beast::error_code ec;
    auto& tcp_stream = beast::get_lowest_layer(ws_);
    tcp_stream.expires_after(k_deadline);
    tcp_stream.async_connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port),
                             [&](beast::error_code e) {
                               ec = e;
                               done_ = true;
                             });
    run();
    EXPECT_FALSE(ec) << ec.message();
    tcp_stream.expires_never();
    websocket::stream_base::timeout timeouts =
        websocket::stream_base::timeout::suggested(beast::role_type::client);
    timeouts.handshake_timeout = k_deadline;
    timeouts.idle_timeout = k_deadline;
    ws_.set_option(timeouts);
    ws_.set_option(websocket::stream_base::decorator([api_key](websocket::request_type& req) {
      if (!api_key.empty()) req.set(http::field::authorization, "Bearer " + api_key);
    }));
    ws_.async_handshake(response_, "127.0.0.1", "/v1/stream", [&](beast::error_code e) {
      ec = e;
      done_ = true;
    });
    run();
    handshake_error_ = ec;
  }

  [[nodiscard]] beast::error_code handshake_error() const { return handshake_error_; }
  [[nodiscard]] unsigned handshake_status() const { return response_.result_int(); }

  void send(const json::value& message) { send_text(json::serialize(message)); }
  void send_text(const std::string& text) {
    beast::error_code ec;
    ws_.async_write(asio::buffer(text), [&](beast::error_code e, std::size_t) {
      ec = e;
      done_ = true;
    });
    run();
    EXPECT_FALSE(ec) << ec.message();
  }

  // The next message, or null when the connection ended.
  json::value receive() {
    beast::flat_buffer buffer;
    beast::error_code ec;
    ws_.async_read(buffer, [&](beast::error_code e, std::size_t) {
      ec = e;
      done_ = true;
    });
    run();
    if (ec) return nullptr;
    return json::parse(beast::buffers_to_string(buffer.data()));
  }

  // The close code the server sent, once receive() returned null.
  [[nodiscard]] std::uint16_t close_code() const { return ws_.reason().code; }

  void close() {
    beast::error_code ec;
    ws_.async_close(websocket::close_code::normal, [&](beast::error_code e) {
      ec = e;
      done_ = true;
    });
    run();
  }

 private:
  // Runs handlers until the operation completed: the websocket's own timers keep the
  // io_context busy, so run() would not return.
  void run() {
    ioc_.restart();
    const auto deadline = std::chrono::steady_clock::now() + k_deadline;
    while (!done_ && std::chrono::steady_clock::now() < deadline) {
      ioc_.run_one_until(deadline);
    }
    EXPECT_TRUE(done_) << "operation did not complete";
    done_ = false;
  }

  bool done_ = false;
  asio::io_context ioc_;
  websocket::stream<beast::tcp_stream> ws_;
  websocket::response_type response_;
  beast::error_code handshake_error_;
};

}  // namespace pagedserve::net::testing
