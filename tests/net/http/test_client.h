#pragma once
// Test support for the server tests: an in-process server on 127.0.0.1 with an ephemeral
// port and the demo model, and small Beast clients whose every operation has a deadline
// (asynchronous operations on a private io_context, bounded by tcp_stream expiry), so a
// broken server fails a test instead of hanging it. The clients are compiled once, in
// test_client.cpp and ws_client.cpp (library pagedserve_http_test_client).

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
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/field.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/verb.hpp>
#include <boost/json.hpp>

#include "net/http/server.h"

namespace pagedserve::net::testing {

namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace json = boost::json;

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

// One HTTP connection. Its Beast stream and composed operations live in test_client.cpp,
// compiled once: instantiated in every test file they cost minutes of compile time each.
class http_client {
 public:
  explicit http_client(std::uint16_t port);
  ~http_client();
  http_client(const http_client&) = delete;
  http_client& operator=(const http_client&) = delete;

  beast::error_code send_raw(const std::string& bytes);
  beast::error_code send(http::request<http::string_body> req);

  // The next response; for the answer to a HEAD request, pass head_request (its
  // Content-Length then describes a body that is not sent).
  http::response<http::string_body> read(bool head_request = false);

  http::response<http::string_body> request(
      http::verb method, const std::string& target, std::string body = {},
      std::vector<std::pair<std::string, std::string>> headers = {});

  // Reads the response head and body bytes until `enough` holds for the body so far.
  http::response<http::string_body> read_until(
      const std::function<bool(const std::string&)>& enough);

  // Continues the response read_until started.
  http::response<http::string_body> read_more(
      const std::function<bool(const std::string&)>& enough);

  // True if the server closes the connection (EOF or reset) before the deadline.
  bool closed_by_server(std::chrono::steady_clock::duration deadline = k_deadline);

  void close();

 private:
  struct connection;
  std::unique_ptr<connection> connection_;
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
