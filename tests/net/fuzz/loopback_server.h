#pragma once
// loopback_server: the server's connection code without its listener or threads, for the
// fuzzers. One io_context on the calling thread; each exchange() connects a client socket
// over loopback, gives the accepted socket to an http_session (the fake engine behind it),
// writes each part of the bytes once the server has answered all it could of the ones
// before (as a WebSocket client waits for the 101), then half-closes and runs until both
// sides are done. Deterministic: no timer decides the outcome (a run that
// would wait for one is a hang, which libFuzzer reports).

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "net/config/server_config.h"
#include "net/config/server_metrics.h"
#include "net/http/server_context.h"
#include "runtime/chat/chat_template.h"
#include "tests/net/fuzz/fake_engine.h"

namespace pagedserve::net::fuzzing {

class loopback_server {
 public:
  loopback_server();
  ~loopback_server();
  loopback_server(const loopback_server&) = delete;
  loopback_server& operator=(const loopback_server&) = delete;

  // The bytes the server sent back before closing.
  std::string exchange(std::initializer_list<std::string_view> parts);
  [[nodiscard]] const server_config& config() const { return config_; }

 private:
  server_config config_;
  server_metrics metrics_;
  fake_engine engine_;
  std::optional<chat_template> chat_;
  std::unique_ptr<server_context> ctx_;
  boost::asio::io_context ioc_{1};
  boost::asio::ip::tcp::acceptor acceptor_;
};

}  // namespace pagedserve::net::fuzzing
