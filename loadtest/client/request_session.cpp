#include "loadtest/client/request_session.h"

#include <algorithm>
#include <array>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <memory>
#include <vector>

#include "loadtest/core/sse_decoder.h"

namespace pagedserve::loadtest {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

constexpr std::size_t read_chunk_bytes = 64 * 1024;
constexpr std::size_t max_error_body_bytes = 64 * 1024;
constexpr std::size_t max_quoted_error_bytes = 500;

double seconds_between(session_clock::time_point from, session_clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

session_clock::duration duration_of(double seconds) {
  return std::chrono::duration_cast<session_clock::duration>(
      std::chrono::duration<double>(seconds));
}

// The message of an error response's body: the OpenAI error's message when it is one,
// else the text itself (shortened).
std::string error_body_message(const std::string& body, api_kind kind) {
  result<stream_chunk> parsed = parse_stream_chunk(body, kind);
  if (parsed.ok() && parsed->error) {
    return *parsed->error;
  }
  std::string text = body.substr(0, max_quoted_error_bytes);
  return text.empty() ? "(empty body)" : text;
}

class request_session : public std::enable_shared_from_this<request_session> {
 public:
  request_session(asio::io_context& io, const request_target& target, const bench_request& request,
                  std::size_t index, std::string body, request_callbacks callbacks)
      : target_(target),
        stream_(io),
        body_(std::move(body)),
        known_prompt_tokens_(request.known_prompt_tokens()),
        callbacks_(std::move(callbacks)) {
    record_.index = index;
  }

  void start(session_clock::time_point run_start) {
    start_ = session_clock::now();
    record_.start_s = seconds_between(run_start, start_);
    deadline_ = start_ + duration_of(target_.request_timeout_s);
    if (target_.endpoints.empty()) {  // finish later: no callback runs inside start()
      asio::post(stream_.get_executor(), [self = shared_from_this()] {
        self->finish(failure_kind::connect, self->target_.resolve_error);
      });
      return;
    }
    expire_within(target_.connect_timeout_s);
    stream_.async_connect(target_.endpoints, beast::bind_front_handler(&request_session::on_connect,
                                                                       shared_from_this()));
  }

 private:
  // Arms the stream's timer for the next operation: `limit_s` or the request's deadline,
  // whichever comes first (remembered for the timeout's message).
  void expire_within(double limit_s) {
    const session_clock::time_point by_limit = session_clock::now() + duration_of(limit_s);
    deadline_is_nearer_ = deadline_ <= by_limit;
    limit_s_ = limit_s;
    stream_.expires_at(std::min(deadline_, by_limit));
  }

  void on_connect(beast::error_code ec, const tcp::endpoint& /*endpoint*/) {
    if (ec) {
      return finish(failure_kind::connect,
                    "connect to " + target_.server.to_string() + ": " + ec.message());
    }
    stream_.socket().set_option(tcp::no_delay(true), ec);  // best effort
    request_ = {http::verb::post, target_.path, 11};
    request_.set(http::field::host, target_.server.host_port());
    request_.set(http::field::user_agent, "pagedserve-bench");
    request_.set(http::field::content_type, "application/json");
    request_.set(http::field::accept, "text/event-stream");
    if (target_.api_key) {
      request_.set(http::field::authorization, "Bearer " + *target_.api_key);
    }
    request_.body() = std::move(body_);
    request_.prepare_payload();
    expire_within(target_.read_timeout_s);
    http::async_write(stream_, request_,
                      beast::bind_front_handler(&request_session::on_write, shared_from_this()));
  }

  void on_write(beast::error_code ec, std::size_t /*bytes*/) {
    report_sent();
    if (ec) {
      return finish_io(ec, "send the request");
    }
    parser_.body_limit(boost::none);  // a stream is as long as the server makes it
    expire_within(target_.read_timeout_s);
    http::async_read_header(
        stream_, buffer_, parser_,
        beast::bind_front_handler(&request_session::on_header, shared_from_this()));
  }

  void on_header(beast::error_code ec, std::size_t /*bytes*/) {
    if (ec) {
      return finish_io(ec, "read the response header");
    }
    record_.http_status = static_cast<int>(parser_.get().result_int());
    if (!parser_.is_done()) {
      return read_more(&request_session::on_body);
    }
    if (record_.http_status != 200) {  // an error without a body
      return finish(failure_kind::http_status,
                    "HTTP " + std::to_string(record_.http_status) + ": (empty body)");
    }
    finish(failure_kind::disconnected, "the response had no body (no stream, no [DONE])");
  }

  using read_handler = void (request_session::*)(beast::error_code, std::size_t);

  void read_more(read_handler handler) {
    parser_.get().body().data = chunk_.data();
    parser_.get().body().size = chunk_.size();
    expire_within(target_.read_timeout_s);
    http::async_read_some(stream_, buffer_, parser_,
                          beast::bind_front_handler(handler, shared_from_this()));
  }

  // The body bytes the last read put into chunk_.
  std::string_view bytes_read() const {
    return {chunk_.data(), chunk_.size() - parser_.get().body().size};
  }

  void on_body(beast::error_code ec, std::size_t /*bytes*/) {
    const session_clock::time_point now = session_clock::now();
    if (ec == http::error::need_buffer) {
      ec = {};
    }
    if (record_.http_status != 200) {
      return on_error_body(ec);
    }
    events_.clear();
    decoder_.feed(bytes_read(), events_);
    for (const std::string& event : events_) {
      if (!on_event(event, now)) {
        return;
      }
    }
    if (ec) {
      return finish_io(ec, "read the stream");
    }
    if (parser_.is_done()) {
      return finish(failure_kind::disconnected, "the stream ended without [DONE]");
    }
    read_more(&request_session::on_body);
  }

  void on_error_body(beast::error_code ec) {
    const std::string_view bytes = bytes_read();
    error_body_.append(bytes.substr(0, max_error_body_bytes - error_body_.size()));
    if (!ec && !parser_.is_done() && error_body_.size() < max_error_body_bytes) {
      return read_more(&request_session::on_body);
    }
    finish(failure_kind::http_status, "HTTP " + std::to_string(record_.http_status) + ": " +
                                          error_body_message(error_body_, target_.kind));
  }

  // Applies one SSE event that arrived at `now`; false once the request has ended.
  bool on_event(const std::string& data, session_clock::time_point now) {
    result<stream_chunk> chunk = parse_stream_chunk(data, target_.kind);
    if (!chunk.ok()) {
      finish(failure_kind::bad_response, chunk.err().message);
      return false;
    }
    if (chunk->error) {
      finish(failure_kind::stream_error, *chunk->error);
      return false;
    }
    if (chunk->done) {
      succeed();
      return false;
    }
    if (chunk->num_token_choices > 0) {
      if (record_.num_token_chunks == 0) {
        record_.ttft_s = seconds_between(start_, now);
      } else {
        record_.itl_s.push_back(seconds_between(last_token_, now));
      }
      last_token_ = now;
      ++record_.num_token_chunks;
      num_token_choices_ += chunk->num_token_choices;
    }
    if (chunk->usage) {
      record_.usage_reported = true;
      record_.prompt_tokens = chunk->usage->prompt_tokens;
      record_.output_tokens = chunk->usage->completion_tokens;
    }
    return true;
  }

  void succeed() {
    if (!record_.usage_reported) {
      record_.prompt_tokens = known_prompt_tokens_;
      record_.output_tokens = num_token_choices_;
    }
    finish(failure_kind::none, "");
  }

  void finish_io(const beast::error_code& ec, const std::string& what) {
    if (ec == beast::error::timeout) {
      const std::string why =
          deadline_is_nearer_
              ? "the request took over " + std::to_string(target_.request_timeout_s) + " s"
              : "no byte for " + std::to_string(limit_s_) + " s";
      return finish(failure_kind::timeout, "timeout while trying to " + what + ": " + why);
    }
    finish(failure_kind::disconnected, "failed to " + what + ": " + ec.message());
  }

  void report_sent() {
    if (!sent_reported_) {
      sent_reported_ = true;
      callbacks_.sent();
    }
  }

  void finish(failure_kind kind, std::string message) {
    record_.e2e_s = seconds_between(start_, session_clock::now());
    record_.failure = kind;
    record_.error = std::move(message);
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.close();
    report_sent();
    callbacks_.done(std::move(record_));
  }

  const request_target& target_;
  beast::tcp_stream stream_;
  std::string body_;
  std::uint64_t known_prompt_tokens_;
  request_callbacks callbacks_;
  bool sent_reported_ = false;
  request_record record_;
  session_clock::time_point start_;
  session_clock::time_point deadline_;
  session_clock::time_point last_token_;
  bool deadline_is_nearer_ = false;
  double limit_s_ = 0.0;
  http::request<http::string_body> request_;
  beast::flat_buffer buffer_;
  http::response_parser<http::buffer_body> parser_;
  std::array<char, read_chunk_bytes> chunk_{};
  sse_decoder decoder_;
  std::vector<std::string> events_;
  std::uint64_t num_token_choices_ = 0;
  std::string error_body_;
};

}  // namespace

void resolve_target(request_target& target) {
  asio::io_context io;
  tcp::resolver resolver(io);
  beast::error_code ec;
  target.endpoints = resolver.resolve(target.server.host, target.server.port, ec);
  if (ec) {
    target.endpoints = {};
    target.resolve_error = "resolve " + target.server.host + ": " + ec.message();
  }
}

void start_request(boost::asio::io_context& io, const request_target& target,
                   const bench_request& request, std::size_t index, std::string body,
                   session_clock::time_point run_start, request_callbacks callbacks) {
  std::make_shared<request_session>(io, target, request, index, std::move(body),
                                    std::move(callbacks))
      ->start(run_start);
}

}  // namespace pagedserve::loadtest
