#include "tests/net/http/test_client.h"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace pagedserve::net::testing {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

struct http_client::connection {
  asio::io_context ioc;
  beast::tcp_stream stream{ioc};
  beast::flat_buffer buffer;
  std::optional<http::response_parser<http::string_body>> parser;
  beast::error_code ec;

  // Runs the operation just started to its completion (or the stream's expiry).
  void run() {
    ioc.restart();
    ioc.run();
  }
};

http_client::http_client(std::uint16_t port) : connection_(std::make_unique<connection>()) {
  auto& c = *connection_;
  c.stream.expires_after(k_deadline);
  c.stream.async_connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port),
                         [&c](beast::error_code ec) { c.ec = ec; });
  c.run();
  EXPECT_FALSE(c.ec) << "connect: " << c.ec.message();
}

http_client::~http_client() = default;

beast::error_code http_client::send_raw(const std::string& bytes) {
  auto& c = *connection_;
  c.stream.expires_after(k_deadline);
  asio::async_write(c.stream, asio::buffer(bytes),
                    [&c](beast::error_code ec, std::size_t) { c.ec = ec; });
  c.run();
  return c.ec;
}

beast::error_code http_client::send(http::request<http::string_body> req) {
  auto& c = *connection_;
  req.version(11);
  req.set(http::field::host, "127.0.0.1");
  req.prepare_payload();
  c.stream.expires_after(k_deadline);
  http::async_write(c.stream, req, [&c](beast::error_code ec, std::size_t) { c.ec = ec; });
  c.run();
  return c.ec;
}

http::response<http::string_body> http_client::read(bool head_request) {
  auto& c = *connection_;
  http::response_parser<http::string_body> parser;
  parser.body_limit(64 * 1024 * 1024);
  parser.skip(head_request);
  c.stream.expires_after(k_deadline);
  http::async_read(c.stream, c.buffer, parser,
                   [&c](beast::error_code ec, std::size_t) { c.ec = ec; });
  c.run();
  EXPECT_FALSE(c.ec) << "read: " << c.ec.message();
  return parser.release();
}

http::response<http::string_body> http_client::request(
    http::verb method, const std::string& target, std::string body,
    std::vector<std::pair<std::string, std::string>> headers) {
  http::request<http::string_body> req{method, target, 11};
  for (auto& [name, value] : headers) req.set(name, value);
  if (!body.empty()) req.set(http::field::content_type, "application/json");
  req.body() = std::move(body);
  EXPECT_FALSE(send(std::move(req)));
  return read();
}

http::response<http::string_body> http_client::read_until(
    const std::function<bool(const std::string&)>& enough) {
  auto& c = *connection_;
  c.parser.emplace();
  c.stream.expires_after(k_deadline);
  http::async_read_header(c.stream, c.buffer, *c.parser,
                          [&c](beast::error_code ec, std::size_t) { c.ec = ec; });
  c.run();
  EXPECT_FALSE(c.ec) << "read header: " << c.ec.message();
  return read_more(enough);
}

http::response<http::string_body> http_client::read_more(
    const std::function<bool(const std::string&)>& enough) {
  auto& c = *connection_;
  while (!c.ec && !c.parser->is_done() && !enough(c.parser->get().body())) {
    c.stream.expires_after(k_deadline);
    http::async_read_some(c.stream, c.buffer, *c.parser,
                          [&c](beast::error_code ec, std::size_t) { c.ec = ec; });
    c.run();
  }
  return c.parser->get();
}

bool http_client::closed_by_server(std::chrono::steady_clock::duration deadline) {
  auto& c = *connection_;
  c.stream.expires_after(deadline);
  char byte = 0;
  beast::error_code result;
  for (;;) {
    c.stream.async_read_some(asio::buffer(&byte, 1),
                             [&](beast::error_code ec, std::size_t) { result = ec; });
    c.run();
    if (result) break;
  }
  return result != beast::error::timeout;
}

void http_client::close() {
  auto& c = *connection_;
  beast::error_code ignored;
  c.stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
  c.stream.close();
}

}  // namespace pagedserve::net::testing
