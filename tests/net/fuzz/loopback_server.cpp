#include "tests/net/fuzz/loopback_server.h"

#include <spdlog/spdlog.h>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

#include "net/http/http_session.h"

namespace pagedserve::net::fuzzing {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

// Small limits, so inputs of a few KiB reach every bound.
server_config fuzz_config() {
  server_config config;
  config.max_header_bytes = 2048;
  config.max_body_bytes = 8192;
  config.ws_max_message_bytes = 4096;
  config.ws_max_send_queue_bytes = 16384;
  config.max_connections = 64;
  return config;
}

}  // namespace

loopback_server::loopback_server()
    : config_(fuzz_config()), acceptor_(ioc_, tcp::endpoint(asio::ip::address_v4::loopback(), 0)) {
  spdlog::set_level(spdlog::level::off);
  if (auto chat = chat_template::for_tokenizer(*engine_.model().tok))
    chat_.emplace(std::move(*chat));
  ctx_.reset(new server_context{config_,
                                engine_,
                                metrics_,
                                0,
                                make_model_context(engine_.model(), {}, chat_ ? &*chat_ : nullptr),
                                session_registry(config_.max_connections),
                                call_counter{},
                                {},
                                {},
                                response_store(4, 1U << 16U)});
}

loopback_server::~loopback_server() = default;

std::string loopback_server::exchange(std::initializer_list<std::string_view> parts) {
  // Asynchronously: libFuzzer's timer signals interrupt blocking calls (EINTR).
  tcp::socket client(ioc_);
  tcp::socket accepted(ioc_);
  client.async_connect(acceptor_.local_endpoint(), [](boost::system::error_code) {});
  acceptor_.async_accept(accepted, [](boost::system::error_code) {});
  ioc_.run();
  ioc_.restart();
  std::make_shared<http_session>(std::move(accepted), *ctx_, connection_slot(&ctx_->sessions))
      ->run();

  std::string received;
  char piece[4096];
  bool reading = true;
  std::function<void()> read_more = [&] {
    client.async_read_some(asio::buffer(piece), [&](boost::system::error_code ec, std::size_t n) {
      received.append(piece, n);
      if (ec) {
        reading = false;
        return;
      }
      read_more();
    });
  };
  read_more();
  for (const std::string_view part : parts) {
    asio::async_write(client, asio::buffer(part.data(), part.size()),
                      [](boost::system::error_code, std::size_t) {});
    // Everything the server can answer before the next part (or the client's end) arrives.
    while (ioc_.poll() > 0) {
    }
  }
  boost::system::error_code ignored;
  client.shutdown(tcp::socket::shutdown_send, ignored);
  while (reading && ioc_.run_one() > 0) {
  }
  client.close(ignored);
  ioc_.run();  // the server side's last handlers
  ioc_.restart();
  return received;
}

}  // namespace pagedserve::net::fuzzing
