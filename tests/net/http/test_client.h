#pragma once
// Test support for the server tests: an in-process server on 127.0.0.1 with an ephemeral
// port and the demo model, and small Beast clients whose every operation has a deadline
// (asynchronous operations on a private io_context, bounded by tcp_stream expiry), so a
// broken server fails a test instead of hanging it.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/json.hpp>

#include "net/http/server.h"

namespace pagedserve::net::testing {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace websocket = boost::beast::websocket;
namespace json = boost::json;
using tcp = asio::ip::tcp;

inline constexpr auto k_deadline = std::chrono::seconds(20);

inline server_config test_config() {
  server_config config;
  config.engine.model_dir = "demo-random";  // in memory, byte-level tokenizer
  config.port = 0;
  config.handle_signals = false;
  config.num_io_threads = 2;
  config.engine.sched.max_num_seqs = 8;
  config.engine.sched.max_model_len = 512;
  config.shutdown_timeout_s = 5.0;
  config.log_level = "warn";
  return config;
}

// test_config() with the built-in pagedserve-demo model (a trained BPE model) instead.
inline server_config demo_config() {
  server_config config = test_config();
  config.engine.model_dir = "pagedserve-demo";
  return config;
}

inline std::unique_ptr<server> start_server(server_config config = test_config(),
                                            io_hooks hooks = {}) {
  auto s = server::start(std::move(config), std::move(hooks));
  if (!s) {
    ADD_FAILURE() << "server::start: " << s.err().message;
    return nullptr;
  }
  return std::move(s.value());
}

// One HTTP connection.
class http_client {
 public:
  explicit http_client(std::uint16_t port) : stream_(ioc_) {
    stream_.expires_after(k_deadline);
    stream_.async_connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port),
                          [this](beast::error_code ec) { ec_ = ec; });
    run();
    EXPECT_FALSE(ec_) << "connect: " << ec_.message();
  }

  beast::error_code send_raw(const std::string& bytes) {
    stream_.expires_after(k_deadline);
    asio::async_write(stream_, asio::buffer(bytes),
                      [this](beast::error_code ec, std::size_t) { ec_ = ec; });
    run();
    return ec_;
  }

  beast::error_code send(http::request<http::string_body> req) {
    req.version(11);
    req.set(http::field::host, "127.0.0.1");
    req.prepare_payload();
    stream_.expires_after(k_deadline);
    http::async_write(stream_, req, [this](beast::error_code ec, std::size_t) { ec_ = ec; });
    run();
    return ec_;
  }

  // The next response; for the answer to a HEAD request, pass head_request (its
  // Content-Length then describes a body that is not sent).
  http::response<http::string_body> read(bool head_request = false) {
    http::response_parser<http::string_body> parser;
    parser.body_limit(64 * 1024 * 1024);
    parser.skip(head_request);
    stream_.expires_after(k_deadline);
    http::async_read(stream_, buffer_, parser,
                     [this](beast::error_code ec, std::size_t) { ec_ = ec; });
    run();
    EXPECT_FALSE(ec_) << "read: " << ec_.message();
    return parser.release();
  }

  http::response<http::string_body> request(
      http::verb method, const std::string& target, std::string body = {},
      std::vector<std::pair<std::string, std::string>> headers = {}) {
    http::request<http::string_body> req{method, target, 11};
    for (auto& [name, value] : headers) req.set(name, value);
    if (!body.empty()) req.set(http::field::content_type, "application/json");
    req.body() = std::move(body);
    EXPECT_FALSE(send(std::move(req)));
    return read();
  }

  // Reads the response head and body bytes until `enough` holds for the body so far.
  http::response<http::string_body> read_until(
      const std::function<bool(const std::string&)>& enough) {
    parser_.emplace();
    stream_.expires_after(k_deadline);
    http::async_read_header(stream_, buffer_, *parser_,
                            [this](beast::error_code ec, std::size_t) { ec_ = ec; });
    run();
    EXPECT_FALSE(ec_) << "read header: " << ec_.message();
    return read_more(enough);
  }

  // Continues the response read_until started.
  http::response<http::string_body> read_more(
      const std::function<bool(const std::string&)>& enough) {
    while (!ec_ && !parser_->is_done() && !enough(parser_->get().body())) {
      stream_.expires_after(k_deadline);
      http::async_read_some(stream_, buffer_, *parser_,
                            [this](beast::error_code ec, std::size_t) { ec_ = ec; });
      run();
    }
    return parser_->get();
  }

  // True if the server closes the connection (EOF or reset) before the deadline.
  bool closed_by_server(std::chrono::steady_clock::duration deadline = k_deadline) {
    stream_.expires_after(deadline);
    char byte = 0;
    beast::error_code result;
    for (;;) {
      stream_.async_read_some(asio::buffer(&byte, 1),
                              [&](beast::error_code ec, std::size_t) { result = ec; });
      run();
      if (result) break;
    }
    return result != beast::error::timeout;
  }

  void close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.close();
  }

 private:
  void run() {
    ioc_.restart();
    ioc_.run();
  }

  asio::io_context ioc_;
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::response_parser<http::string_body>> parser_;
  beast::error_code ec_;
};

// The SSE payloads of a body ("data: <payload>\n\n" each).
inline std::vector<std::string> sse_payloads(const std::string& body) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < body.size()) {
    const std::size_t end = body.find("\n\n", pos);
    if (end == std::string::npos) break;
    const std::string event = body.substr(pos, end - pos);
    EXPECT_EQ(event.rfind("data: ", 0), 0u) << event;
    out.push_back(event.substr(6));
    pos = end + 2;
  }
  EXPECT_EQ(pos, body.size()) << "trailing bytes after the last event";
  return out;
}

// A /metrics sample's value, e.g. metric("pagedserve:kv_cache_usage_perc").
inline std::optional<double> metric(const std::string& text, const std::string& name) {
  std::size_t pos = 0;
  while ((pos = text.find(name, pos)) != std::string::npos) {
    const bool line_start = pos == 0 || text[pos - 1] == '\n';
    const std::size_t after = pos + name.size();
    if (line_start && after < text.size() && (text[after] == '{' || text[after] == ' ')) {
      const std::size_t value = text.find(' ', text[after] == '{' ? text.find('}', after) : after);
      return std::stod(text.substr(value + 1, text.find('\n', value) - value - 1));
    }
    pos = after;
  }
  return std::nullopt;
}

// Polls /metrics until every KV block is free and nothing runs, or the deadline passes.
inline bool wait_pool_refilled(std::uint16_t port) {
  const auto deadline = std::chrono::steady_clock::now() + k_deadline;
  while (std::chrono::steady_clock::now() < deadline) {
    http_client c(port);
    const auto res = c.request(http::verb::get, "/metrics");
    const auto usage = metric(res.body(), "pagedserve:kv_cache_usage_perc");
    const auto running = metric(res.body(), "pagedserve:num_requests_running");
    const auto waiting = metric(res.body(), "pagedserve:num_requests_waiting");
    if (usage && running && waiting && *usage == 0.0 && *running == 0.0 && *waiting == 0.0) {
      return true;
    }
    std::this_thread::yield();
  }
  return false;
}

// pagedserve:request_success_total for one finished_reason ("stop", "length", "abort",
// "error"), 0 when the sample is missing.
inline double finished_count(const std::string& metrics_text, const std::string& reason) {
  const std::string key = "finished_reason=\"" + reason + "\"} ";
  std::size_t pos = 0;
  while ((pos = metrics_text.find("pagedserve:request_success_total{", pos)) != std::string::npos) {
    const std::size_t end = metrics_text.find('\n', pos);
    const std::string line = metrics_text.substr(pos, end - pos);
    const std::size_t at = line.find(key);
    if (at != std::string::npos) return std::stod(line.substr(at + key.size()));
    pos = end;
  }
  return 0.0;
}

inline std::string completion_body(std::uint32_t max_tokens, bool stream,
                                   const std::string& prompt = "Hello") {
  json::object body{{"prompt", prompt},
                    {"max_tokens", max_tokens},
                    {"temperature", 0.0},
                    {"ignore_eos", true},
                    {"stream", stream}};
  return json::serialize(body);
}

}  // namespace pagedserve::net::testing
