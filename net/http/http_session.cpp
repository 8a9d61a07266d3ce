#include "net/http/http_session.h"

#include <utility>

#include <spdlog/spdlog.h>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/bind_handler.hpp>

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

// Nothing of the answer has gone out: the client gets a 500 and the connection closes (what
// threw may have left the request half handled). Otherwise only a close is left.
void http_session::recover_from_exception() {
  if (closed_) return;
  call_.reset();  // cancels what it submitted
  if (status_ != 0 || writing_ || lingering_) {
    close_now();
    return;
  }
  if (!active_ && !reader_) request_line_ = "(unparsed request)";
  active_ = true;
  keep_alive_ = false;
  close_after_response_ = true;
  answer_error(internal_error("internal error while handling the request"));
}

// Pipelined bytes wait in the buffer up to the size of a request head; past that, reading
// pauses until the current answer is written (the client's TCP window holds the rest).
bool http_session::pipeline_full() const { return buffer_.size() >= ctx_.config.max_header_bytes; }

void http_session::start_next_read() {
  if (closed_) return;
  const auto now = std::chrono::steady_clock::now();
  if (lingering_) {
    read_some(now + linger_time);
  } else if (buffer_.size() > 0) {
    parse_request();
  } else {
    read_some(now + to_duration(ctx_.config.idle_timeout_s));
  }
}

void http_session::read_some(std::optional<time_point> deadline) {
  reading_ = true;
  if (deadline) {
    stream_.expires_at(*deadline);
  } else {
    stream_.expires_never();
  }
  stream_.async_read_some(buffer_.prepare(read_chunk_bytes),
                          beast::bind_front_handler(&http_session::on_bytes, shared_from_this()));
}

void http_session::on_bytes(beast::error_code ec, std::size_t n) {
  guard(io_stage::read, [&] { bytes_arrived(ec, n); });
}

void http_session::bytes_arrived(beast::error_code ec, std::size_t n) {
  reading_ = false;
  buffer_.commit(n);
  const bool restarted =
      std::exchange(restart_read_, false) && ec == asio::error::operation_aborted;
  if (closed_) return;
  if (ec && !restarted) {
    if (active_) {
      client_gone("client closed the connection");
      return;
    }
    if (ec == beast::error::timeout && reader_) {
      spdlog::debug("closing a connection: request not read within {} s",
                    ctx_.config.read_timeout_s);
    }
    close_now();  // idle, or mid-request (the client hung up before finishing it)
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

void http_session::parse_request() {
  guard(io_stage::parse, [&] {
    if (!reader_) {
      reader_.emplace(request_limits{ctx_.config.max_header_bytes, ctx_.config.max_body_bytes});
      request_line_ = reader_->request_line();
      read_deadline_ = std::chrono::steady_clock::now() + to_duration(ctx_.config.read_timeout_s);
    }
    switch (reader_->feed(buffer_)) {
      case request_reader::progress::need_more:
        read_some(read_deadline_);
        return;
      case request_reader::progress::refused:
        refuse_request();
        return;
      case request_reader::progress::complete:
        begin_request();
        return;
    }
  });
}

void http_session::begin_request() {
  request_line_ = reader_->request_line();
  request_ = reader_->release();
  reader_.reset();
  arrival_ = std::chrono::steady_clock::now();
  active_ = true;
  status_ = 0;
  ++serial_;
  head_only_ = request_.method() == http::verb::head;
  guard(io_stage::route, [&] { handle_request(); });
  if (!closed_ && active_ && !reading_ && !pipeline_full()) read_some(std::nullopt);
}

// The request cannot be framed (or breaks a limit or rule): answer, then close.
void http_session::refuse_request() {
  const api_error err = reader_->error();
  request_line_ = reader_->request_line();
  head_only_ = reader_->method() == http::verb::head;
  reader_.reset();
  active_ = true;
  status_ = 0;
  keep_alive_ = false;
  close_after_response_ = true;
  answer_error(err);
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
  guard(io_stage::write, [&] { write_done(ec); });
}

void http_session::write_done(beast::error_code ec) {
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
