#pragma once
// ws_client: a Beast WebSocket client for the server tests; every operation has a deadline.
// Compiled once, in ws_client.cpp (test_client.h says why).

#include <cstdint>
#include <memory>
#include <string>

#include <boost/beast/websocket/rfc6455.hpp>

#include "tests/net/http/test_client.h"

namespace pagedserve::net::testing {

namespace websocket = boost::beast::websocket;

class ws_client {
 public:
  explicit ws_client(std::uint16_t port, const std::string& api_key = {});
  ~ws_client();
  ws_client(const ws_client&) = delete;
  ws_client& operator=(const ws_client&) = delete;

  [[nodiscard]] beast::error_code handshake_error() const;
  [[nodiscard]] unsigned handshake_status() const;

  void send(const json::value& message) { send_text(json::serialize(message)); }
  void send_text(const std::string& text);

  // The next message, or null when the connection ended.
  json::value receive();

  // The close code the server sent, once receive() returned null.
  [[nodiscard]] std::uint16_t close_code() const;

  void close();

 private:
  struct connection;
  std::unique_ptr<connection> connection_;
};

}  // namespace pagedserve::net::testing
