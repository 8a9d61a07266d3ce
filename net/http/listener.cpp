#include "net/http/listener.h"

#include <spdlog/spdlog.h>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/bind_handler.hpp>

#include "net/http/http_session.h"

namespace pagedserve::net {

namespace asio = boost::asio;

listener::listener(asio::io_context& ioc, tcp::acceptor acceptor, server_context& ctx)
    : ioc_(ioc), acceptor_(std::move(acceptor)), ctx_(ctx) {}

void listener::run() {
  asio::dispatch(acceptor_.get_executor(),
                 boost::beast::bind_front_handler(&listener::accept_next, shared_from_this()));
}

void listener::stop() {
  asio::post(acceptor_.get_executor(), [self = shared_from_this()] {
    boost::beast::error_code ignored;
    self->acceptor_.close(ignored);
  });
}

void listener::accept_next() {
  if (!acceptor_.is_open()) return;
  acceptor_.async_accept(asio::make_strand(ioc_), boost::beast::bind_front_handler(
                                                      &listener::on_accept, shared_from_this()));
}

void listener::on_accept(boost::beast::error_code ec, tcp::socket socket) {
  if (ec == asio::error::operation_aborted || !acceptor_.is_open()) return;
  // A throw (no memory for the session) loses this connection only: its socket closes as
  // it unwinds, and accepting goes on.
  guarded(
      ctx_.hooks, io_stage::accept, [&] { start_session(ec, std::move(socket)); }, [] {});
  accept_next();
}

void listener::start_session(boost::beast::error_code ec, tcp::socket socket) {
  if (ec) {
    // Out of descriptors and friends: keep listening, the condition may pass.
    spdlog::warn("accept failed: {}", ec.message());
  } else if (!ctx_.sessions.try_reserve()) {
    spdlog::warn("connection refused: {} connections open (max_connections)",
                 ctx_.sessions.num_open());
    boost::beast::error_code ignored;
    socket.close(ignored);
  } else {
    connection_slot slot(&ctx_.sessions);
    // Streams are many small writes: with Nagle's algorithm each would wait for the ACK of the
    // previous one, which a client's delayed ACK holds back up to 40 ms.
    boost::beast::error_code ignored;
    socket.set_option(tcp::no_delay(true), ignored);
    std::make_shared<http_session>(std::move(socket), ctx_, std::move(slot))->run();
  }
}

}  // namespace pagedserve::net
