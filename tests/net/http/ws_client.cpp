#include "tests/net/http/ws_client.h"

#include <chrono>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>

namespace pagedserve::net::testing {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

struct ws_client::connection {
  bool done = false;
  asio::io_context ioc;
  websocket::stream<beast::tcp_stream> ws{ioc};
  websocket::response_type response;
  beast::error_code handshake_error;

  // Runs handlers until the operation completed: the websocket's own timers keep the
  // io_context busy, so run() would not return.
  void run() {
    ioc.restart();
    const auto deadline = std::chrono::steady_clock::now() + k_deadline;
    while (!done && std::chrono::steady_clock::now() < deadline) ioc.run_one_until(deadline);
    EXPECT_TRUE(done) << "operation did not complete";
    done = false;
  }
  // A completion handler that records `ec` and ends run().
  auto recorder(beast::error_code& ec) {
    return [this, &ec](beast::error_code e, auto&&...) {
      ec = e;
      done = true;
    };
  }
};

ws_client::ws_client(std::uint16_t port, const std::string& api_key)
    : connection_(std::make_unique<connection>()) {
  auto& c = *connection_;
  beast::error_code ec;
  auto& tcp_stream = beast::get_lowest_layer(c.ws);
  tcp_stream.expires_after(k_deadline);
  tcp_stream.async_connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port),
                           c.recorder(ec));
  c.run();
  EXPECT_FALSE(ec) << ec.message();
  tcp_stream.expires_never();
  websocket::stream_base::timeout timeouts =
      websocket::stream_base::timeout::suggested(beast::role_type::client);
  timeouts.handshake_timeout = k_deadline;
  timeouts.idle_timeout = k_deadline;
  c.ws.set_option(timeouts);
  c.ws.set_option(websocket::stream_base::decorator([api_key](websocket::request_type& req) {
    if (!api_key.empty()) req.set(http::field::authorization, "Bearer " + api_key);
  }));
  c.ws.async_handshake(c.response, "127.0.0.1", "/v1/stream", c.recorder(ec));
  c.run();
  c.handshake_error = ec;
}

ws_client::~ws_client() = default;

beast::error_code ws_client::handshake_error() const { return connection_->handshake_error; }
unsigned ws_client::handshake_status() const { return connection_->response.result_int(); }

void ws_client::send_text(const std::string& text) {
  auto& c = *connection_;
  beast::error_code ec;
  c.ws.async_write(asio::buffer(text), c.recorder(ec));
  c.run();
  EXPECT_FALSE(ec) << ec.message();
}

json::value ws_client::receive() {
  auto& c = *connection_;
  beast::flat_buffer buffer;
  beast::error_code ec;
  c.ws.async_read(buffer, c.recorder(ec));
  c.run();
  if (ec) return nullptr;
  return json::parse(beast::buffers_to_string(buffer.data()));
}

std::uint16_t ws_client::close_code() const { return connection_->ws.reason().code; }

void ws_client::close() {
  auto& c = *connection_;
  beast::error_code ec;
  c.ws.async_close(websocket::close_code::normal, c.recorder(ec));
  c.run();
}

}  // namespace pagedserve::net::testing
