#pragma once
// listener: accepts connections and starts an http_session for each, each on its own strand.
// Past max_connections a new connection is closed right after accept.

#include <memory>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/error.hpp>

#include "net/http/server_context.h"

namespace pagedserve::net {

class listener : public std::enable_shared_from_this<listener> {
 public:
  using tcp = boost::asio::ip::tcp;
  // `acceptor` is open, bound and listening (server::start does that to report errors).
  listener(boost::asio::io_context& ioc, tcp::acceptor acceptor, server_context& ctx);

  void run();
  void stop();  // any thread: closes the acceptor on its strand

 private:
  void accept_next();
  void on_accept(boost::beast::error_code ec, tcp::socket socket);
  void start_session(boost::beast::error_code ec, tcp::socket socket);

  boost::asio::io_context& ioc_;
  tcp::acceptor acceptor_;
  server_context& ctx_;
};

}  // namespace pagedserve::net
