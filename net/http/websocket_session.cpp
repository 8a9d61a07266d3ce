#include "net/http/websocket_session.h"

#include <chrono>
#include <utility>

#include <spdlog/spdlog.h>
#include <boost/asio/post.hpp>
#include <boost/beast/core/bind_handler.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/websocket/error.hpp>

#include "net/http/engine_bridge.h"
#include "net/http/ws_subprotocol.h"

namespace pagedserve::net {
namespace {

namespace beast = boost::beast;
namespace websocket = boost::beast::websocket;
namespace asio = boost::asio;

std::chrono::steady_clock::duration to_duration(double seconds) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(seconds));
}

api_error shutting_down() {
  return api_error{503, "the server is shutting down", "service_unavailable", {}, {}};
}

}  // namespace

websocket_session::websocket_session(tcp::socket socket, server_context& ctx, connection_slot slot)
    : ws_(std::move(socket)), ctx_(ctx), slot_(std::move(slot)) {}

websocket_session::~websocket_session() { ctx_.sessions.remove(this); }

void websocket_session::run(beast::http::request<beast::http::string_body> upgrade) {
  ctx_.sessions.add(shared_from_this());
  beast::get_lowest_layer(ws_).expires_never();  // the websocket stream has its own timeouts
  websocket::stream_base::timeout timeouts{};
  timeouts.handshake_timeout = to_duration(ctx_.config.read_timeout_s);
  // Beast pings after half the idle timeout without incoming data and closes after the
  // whole: ping after ws_ping_interval_s, close if nothing (no pong) within another one.
  timeouts.idle_timeout = to_duration(2.0 * ctx_.config.ws_ping_interval_s);
  timeouts.keep_alive_pings = true;
  ws_.set_option(timeouts);
  const beast::string_view offered = upgrade[beast::http::field::sec_websocket_protocol];
  const bool select_subprotocol =
      parse_offered_subprotocols({offered.data(), offered.size()}).pagedserve;
  ws_.set_option(
      websocket::stream_base::decorator([select_subprotocol](websocket::response_type& res) {
        res.set(beast::http::field::server, "pagedserve");
        if (select_subprotocol) res.set(beast::http::field::sec_websocket_protocol, ws_subprotocol);
      }));
  ws_.read_message_max(ctx_.config.ws_max_message_bytes);
  ws_.text(true);
  ws_.async_accept(upgrade,
                   beast::bind_front_handler(&websocket_session::on_handshake, shared_from_this()));
}

void websocket_session::close_for_shutdown() {
  asio::post(ws_.get_executor(), [self = shared_from_this()] {
    if (self->closed_) return;
    self->end_all();
    if (self->writing_) {
      self->close_now();
      return;
    }
    self->closed_ = true;
    self->ws_.async_close(websocket::close_code::going_away, [self](beast::error_code) {
      beast::get_lowest_layer(self->ws_).close();
    });
  });
}

template <class Work>
void websocket_session::guard(Work&& work) {
  guarded(ctx_.hooks, io_stage::websocket, std::forward<Work>(work),
          [this] { recover_from_exception(); });
}

// Cancels everything the socket runs and closes it with 1011 (internal error): what threw
// may have left a message half handled.
void websocket_session::recover_from_exception() {
  end_all();
  if (closed_) return;
  if (writing_) {
    close_now();
    return;
  }
  closed_ = true;
  ws_.async_close(websocket::close_code::internal_error,
                  [self = shared_from_this()](beast::error_code) {
                    beast::get_lowest_layer(self->ws_).close();
                  });
}

void websocket_session::on_handshake(beast::error_code ec) {
  guard([&] { handshake_done(ec); });
}

void websocket_session::handshake_done(beast::error_code ec) {
  if (ec) {
    spdlog::debug("WebSocket handshake failed: {}", ec.message());
    close_now();
    return;
  }
  read_next();
}

void websocket_session::read_next() {
  if (closed_) return;
  ws_.async_read(buffer_,
                 beast::bind_front_handler(&websocket_session::on_read, shared_from_this()));
}

void websocket_session::on_read(beast::error_code ec, std::size_t /*n*/) {
  guard([&] { message_arrived(ec); });
}

void websocket_session::message_arrived(beast::error_code ec) {
  if (ec) {
    if (ec != websocket::error::closed) spdlog::debug("WebSocket read ended: {}", ec.message());
    end_all();
    close_now();
    return;
  }
  if (closed_) return;
  if (!ws_.got_text()) {
    send(ws_error_message("", bad_request("only text messages are accepted")));
  } else {
    handle_message(beast::buffers_to_string(buffer_.data()));
  }
  buffer_.consume(buffer_.size());
  if (send_queue_full()) {
    read_paused_ = true;  // until the client has read enough of what it is answered
  } else {
    read_next();
  }
}

bool websocket_session::send_queue_full() const {
  return queued_bytes_.load() > ctx_.config.ws_max_send_queue_bytes;
}

void websocket_session::resume_reading() {
  if (!read_paused_ || closed_ || send_queue_full()) return;
  read_paused_ = false;
  read_next();
}

void websocket_session::handle_message(std::string_view text) {
  ws_client_message message = parse_ws_message(text);
  if (auto* invalid = std::get_if<ws_invalid>(&message)) {
    send(ws_error_message(invalid->id, invalid->error));
  } else if (auto* cancel_message = std::get_if<ws_cancel>(&message)) {
    cancel(cancel_message->id);
  } else {
    submit(std::move(std::get<ws_submit>(message)));
  }
}

void websocket_session::submit(ws_submit message) {
  const auto arrival = std::chrono::steady_clock::now();
  if (ctx_.draining.load()) {
    send(ws_error_message(message.id, shutting_down()));
    return;
  }
  if (active_ids_.contains(message.id)) {
    send(ws_error_message(message.id,
                          bad_request("a request with id \"" + message.id + "\" is active", "id")));
    return;
  }
  parse_outcome parsed = message.kind == api_kind::completion
                             ? parse_completion_request(message.body, ctx_.model)
                             : parse_chat_request(message.body, ctx_.model);
  if (auto* err = std::get_if<api_error>(&parsed)) {
    send(ws_error_message(message.id, *err));
    return;
  }
  const std::uint64_t serial = next_serial_++;
  auto call = std::make_unique<ws_call>(ctx_, message.id, std::move(std::get<api_request>(parsed)),
                                        arrival);
  ws_call& c = *call;
  calls_.emplace(serial, std::move(call));
  active_ids_.emplace(message.id, serial);
  for (std::size_t i = 0; i < c.request().prompts.size(); ++i) {
    generation_request request = c.request().prompts[i].request;
    request.report_lifecycle = message.lifecycle;  // only this route can ask for it
    c.add_submission(
        submit_to_session(ctx_.eng, std::move(request), shared_from_this(), serial, i));
  }
}

void websocket_session::cancel(const std::string& id) {
  const auto found = active_ids_.find(id);
  if (found == active_ids_.end()) {
    send(ws_error_message(id, bad_request("no active request with id \"" + id + "\"", "id")));
    return;
  }
  calls_.at(found->second)->cancel();
}

void websocket_session::on_accepted(std::uint64_t call, std::size_t prompt,
                                    const result<request_id>& id) {
  guard([&] {
    const auto found = calls_.find(call);
    if (found == calls_.end()) return;
    std::vector<std::string> messages;
    found->second->on_accepted(prompt, id, messages);
    deliver(call, messages);
  });
}

void websocket_session::on_engine_event(std::uint64_t call, std::size_t prompt,
                                        const engine_event& event, std::uint64_t estimate) {
  queued_bytes_.fetch_sub(estimate);
  guard([&] {
    const auto found = calls_.find(call);
    if (found == calls_.end()) return;
    std::vector<std::string> messages;
    found->second->on_event(prompt, event, messages);
    deliver(call, messages);
    check_backpressure();
  });
  guard([&] { resume_reading(); });  // the event's estimate is off the count
}

// Sends a call's messages and forgets the call once it is finished.
void websocket_session::deliver(std::uint64_t serial, std::vector<std::string>& messages) {
  for (std::string& message : messages) send(std::move(message));
  const auto found = calls_.find(serial);
  if (found != calls_.end() && found->second->finished()) {
    active_ids_.erase(found->second->id());
    calls_.erase(found);
  }
}

void websocket_session::check_backpressure() {
  if (overflowed_ || queued_bytes_.load() <= ctx_.config.ws_max_send_queue_bytes) return;
  overflowed_ = true;
  spdlog::warn("WebSocket send queue over {} bytes: cancelling {} request(s)",
               ctx_.config.ws_max_send_queue_bytes, calls_.size());
  const api_error err = backpressure_error(ctx_.config.ws_max_send_queue_bytes);
  std::vector<std::string> messages;
  for (auto& [serial, call] : calls_) call->fail(err, messages);
  calls_.clear();
  active_ids_.clear();
  // Queued although over the bound: they are small, and the client must learn why.
  for (std::string& message : messages) send(std::move(message));
}

void websocket_session::send(std::string message) {
  if (closed_) return;
  queued_bytes_.fetch_add(message.size());
  queue_.push_back(std::move(message));
  if (!writing_) write_next();
}

void websocket_session::write_next() {
  if (closed_ || queue_.empty()) return;
  writing_ = true;
  ws_.async_write(asio::buffer(queue_.front()),
                  beast::bind_front_handler(&websocket_session::on_write, shared_from_this()));
}

void websocket_session::on_write(beast::error_code ec, std::size_t /*n*/) {
  guard([&] { write_done(ec); });
}

void websocket_session::write_done(beast::error_code ec) {
  writing_ = false;
  if (ec) {
    spdlog::debug("WebSocket write failed: {}", ec.message());
    end_all();
    close_now();
    return;
  }
  queued_bytes_.fetch_sub(queue_.front().size());
  queue_.pop_front();
  if (queue_.empty()) overflowed_ = false;
  write_next();
  resume_reading();
}

void websocket_session::end_all() {
  calls_.clear();  // each ws_call cancels its submissions
  active_ids_.clear();
}

void websocket_session::close_now() {
  if (closed_) return;
  closed_ = true;
  beast::get_lowest_layer(ws_).close();
}

}  // namespace pagedserve::net
