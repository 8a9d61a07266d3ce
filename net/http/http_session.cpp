#include "net/http/http_session.h"

#include <utility>

#include <spdlog/spdlog.h>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/bind_handler.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>

#include "net/http/http_responses.h"

namespace pagedserve::net {
namespace {

namespace asio = boost::asio;

constexpr std::size_t read_chunk_bytes = 4096;
// After the last response of a closing connection: how long unread request bytes are
// drained so closing does not reset the connection before the client reads the answer.
constexpr std::chrono::steady_clock::duration linger_time = std::chrono::seconds(2);

std::chrono::steady_clock::duration to_duration(double seconds) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(seconds));
}

}  // namespace

http_session::http_session(tcp::socket socket, server_context& ctx, connection_slot slot)
    : stream_(std::move(socket)), ctx_(ctx), slot_(std::move(slot)) {}

http_session::~http_session() { ctx_.sessions.remove(this); }

void http_session::run() {
  ctx_.sessions.add(shared_from_this());
  asio::dispatch(stream_.get_executor(),
                 beast::bind_front_handler(&http_session::start_next_read, shared_from_this()));
}

void http_session::close_for_shutdown() {
  asio::post(stream_.get_executor(), [self = shared_from_this()] {
    if (self->closed_) return;
    if (self->call_ && !self->call_->finished()) {
      self->client_gone("server shutting down");
    } else if (self->writing_) {
      self->keep_alive_ = false;  // the response being written is the last one
    } else {
      self->close_now();
    }
  });
}

bool http_session::pipeline_full() const {
  return buffer_.size() >= ctx_.config.max_header_bytes + ctx_.config.max_body_bytes;
}

void http_session::start_next_read() {
  if (closed_) return;
  if (lingering_) {
    read_some(linger_time);
  } else if (buffer_.size() > 0) {
    read_request();
  } else {
    read_some(to_duration(ctx_.config.idle_timeout_s));
  }
}

void http_session::read_some(std::optional<std::chrono::steady_clock::duration> expiry) {
  reading_ = true;
  if (expiry) {
    stream_.expires_after(*expiry);
  } else {
    stream_.expires_never();
  }
  stream_.async_read_some(buffer_.prepare(read_chunk_bytes),
                          beast::bind_front_handler(&http_session::on_bytes, shared_from_this()));
}

void http_session::on_bytes(beast::error_code ec, std::size_t n) {
  reading_ = false;
  buffer_.commit(n);
  const bool restarted =
      std::exchange(restart_read_, false) && ec == asio::error::operation_aborted;
  if (closed_) return;
  if (ec && !restarted) {
    if (active_) {
      client_gone("client closed the connection");
    } else {
      close_now();
    }
    return;
  }
  if (lingering_) {
    buffer_.consume(buffer_.size());
    start_next_read();
  } else if (active_) {
    if (!pipeline_full()) read_some(std::nullopt);  // watch for a disconnect
  } else {
    start_next_read();
  }
}

void http_session::read_request() {
  parser_.emplace();
  parser_->header_limit(static_cast<std::uint32_t>(
      std::min<std::uint64_t>(ctx_.config.max_header_bytes, UINT32_MAX)));
  parser_->body_limit(ctx_.config.max_body_bytes);
  reading_ = true;
  stream_.expires_after(to_duration(ctx_.config.read_timeout_s));
  http::async_read(stream_, buffer_, *parser_,
                   beast::bind_front_handler(&http_session::on_read, shared_from_this()));
}

void http_session::on_read(beast::error_code ec, std::size_t /*n*/) {
  reading_ = false;
  if (closed_) return;
  if (ec) {
    on_parse_error(ec);
    return;
  }
  arrival_ = std::chrono::steady_clock::now();
  active_ = true;
  ++serial_;
  handle_request();
  if (!closed_ && active_ && !reading_ && !pipeline_full()) read_some(std::nullopt);
}

void http_session::on_parse_error(beast::error_code ec) {
  if (ec == http::error::end_of_stream || ec == asio::error::eof ||
      ec == asio::error::connection_reset || ec == http::error::partial_message) {
    close_now();
    return;
  }
  if (ec == beast::error::timeout) {
    spdlog::debug("closing a connection: request not read within {} s", ctx_.config.read_timeout_s);
    close_now();
    return;
  }
  active_ = true;
  keep_alive_ = false;
  close_after_response_ = true;
  request_line_ = "(unparsed request)";
  if (ec == http::error::header_limit) {
    answer_error(header_too_large("request header larger than " +
                                  std::to_string(ctx_.config.max_header_bytes) + " bytes"));
  } else if (ec == http::error::body_limit) {
    answer_error(payload_too_large("request body larger than " +
                                   std::to_string(ctx_.config.max_body_bytes) + " bytes"));
  } else {
    answer_error(bad_request("malformed HTTP request: " + ec.message()));
  }
}

void http_session::enqueue(std::string bytes, bool ends_response) {
  if (closed_) return;
  queued_bytes_.fetch_add(bytes.size());
  queue_.push_back(out_message{std::move(bytes), ends_response});
  if (call_ && call_->streaming() && queued_bytes_.load() > ctx_.config.ws_max_send_queue_bytes) {
    spdlog::warn("closing an event stream: send queue over {} bytes (client reads too slowly)",
                 ctx_.config.ws_max_send_queue_bytes);
    client_gone("send queue over the bound");
    return;
  }
  if (!writing_) write_next();
}

void http_session::write_next() {
  if (closed_ || queue_.empty()) return;
  writing_ = true;
  stream_.expires_after(to_duration(ctx_.config.idle_timeout_s));
  asio::async_write(stream_, asio::buffer(queue_.front().bytes),
                    beast::bind_front_handler(&http_session::on_write, shared_from_this()));
}

void http_session::on_write(beast::error_code ec, std::size_t /*n*/) {
  writing_ = false;
  if (closed_) return;
  if (ec) {
    client_gone("write failed: " + ec.message());
    return;
  }
  out_message done = std::move(queue_.front());
  queue_.pop_front();
  queued_bytes_.fetch_sub(done.bytes.size());
  if (done.ends_response) {
    after_response();
  } else {
    write_next();
  }
}

void http_session::after_response() {
  spdlog::debug("{} -> {} in {:.3f} s", request_line_, status_,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - arrival_).count());
  call_.reset();
  active_ = false;
  if (close_after_response_ || !keep_alive_) {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    lingering_ = true;
  }
  if (reading_) {
    // The pending read has no deadline (it watched for a disconnect): cancel it so the next
    // read starts with the right one.
    restart_read_ = true;
    beast::error_code ignored;
    stream_.socket().cancel(ignored);
    return;
  }
  start_next_read();
}

void http_session::client_gone(std::string_view why) {
  spdlog::debug("{}: {}", request_line_, why);
  if (call_) call_->abandon();
  close_now();
}

void http_session::close_now() {
  if (closed_) return;
  closed_ = true;
  beast::error_code ignored;
  stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
  stream_.close();
}

}  // namespace pagedserve::net
