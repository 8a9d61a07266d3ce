#pragma once
// http_session: one HTTP/1.1 connection. Requests are handled one at a time, in order.
// Bytes arrive through one read path (async_read_some into buffer_) and are fed to a
// request_reader, which bounds what the request can make us hold (request_reader.h) and
// checks RFC 9112's rules on its head (request_rules.h). Bytes of pipelined requests wait in
// the buffer (bounded: reading pauses past max_header_bytes buffered) and are parsed once
// the current response is written. While a request is in progress a read stays pending on
// the socket, so a client that disconnects is seen at once and its engine requests are
// cancelled.
//
// Reads: waiting for a request's first byte is bounded by idle_timeout_s; from there the
// head and body must arrive within read_timeout_s. Writes: a queue with exactly one
// async_write in flight; each write must finish within idle_timeout_s. More than
// ws_max_send_queue_bytes queued (an SSE client reading too slowly) cancels the call and
// closes the connection. HEAD gets GET's head without a body.
//
// Everything runs on the session's strand; engine events arrive through engine_bridge.h.
// Every handler runs guarded (io_guard.h): an exception answers 500 when nothing of the
// response has gone out yet, else closes this connection; nothing escapes to the io thread.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/json/object.hpp>

#include "net/http/completion_call.h"
#include "net/http/io_guard.h"
#include "net/http/request_reader.h"
#include "net/http/router.h"
#include "net/http/server_context.h"

namespace pagedserve::net {

namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;

class http_session final : public std::enable_shared_from_this<http_session>,
                           public closable_session,
                           private call_output {
 public:
  http_session(tcp::socket socket, server_context& ctx, connection_slot slot);
  ~http_session() override;

  void run();
  void close_for_shutdown() override;

  // engine_bridge.h entry points.
  [[nodiscard]] beast::tcp_stream::executor_type get_executor() { return stream_.get_executor(); }
  [[nodiscard]] std::atomic<std::uint64_t>& queued_bytes() { return queued_bytes_; }
  void on_accepted(std::uint64_t call, std::size_t prompt, const result<request_id>& id);
  void on_engine_event(std::uint64_t call, std::size_t prompt, const engine_event& event,
                       std::uint64_t estimate);

 private:
  struct out_message {
    std::string bytes;
    bool ends_response = false;
  };

  using time_point = std::chrono::steady_clock::time_point;

  // http_session.cpp: reading, writing, closing.
  void start_next_read();
  // One read of whatever bytes arrive (into the request buffer): no deadline while a request
  // is in progress (it only watches for a disconnect), else the idle, request or linger one.
  void read_some(std::optional<time_point> deadline);
  void on_bytes(beast::error_code ec, std::size_t n);
  void bytes_arrived(beast::error_code ec, std::size_t n);
  void parse_request();
  void begin_request();
  void refuse_request();
  void enqueue(std::string bytes, bool ends_response);
  void write_next();
  void on_write(beast::error_code ec, std::size_t n);
  void write_done(beast::error_code ec);
  void after_response();
  void client_gone(std::string_view why);
  void close_now();
  [[nodiscard]] bool pipeline_full() const;
  // Runs `work` as `stage` (io_guard.h); a throw ends in recover_from_exception().
  template <class Work>
  void guard(io_stage stage, Work&& work) {
    guarded(ctx_.hooks, stage, std::forward<Work>(work), [this] { recover_from_exception(); });
  }
  void recover_from_exception();

  // http_routes.cpp: dispatch and the handlers.
  void handle_request();
  void handle_route(route r);
  [[nodiscard]] bool answer_cors();
  void handle_health();
  void handle_models();
  void handle_model();
  [[nodiscard]] boost::json::object model_card() const;
  void handle_version();
  void handle_tokenize(route r);
  void handle_metrics();
  void on_stats(std::uint64_t serial, const engine_stats& stats,
                const std::vector<replica_info>& replicas);
  void on_replicas_for_health(std::uint64_t serial,
                              const std::optional<std::vector<replica_info>>& polled);
  void handle_completion(route r);
  // A new API call while shutting down is a 503 (true: answered).
  [[nodiscard]] bool refused_while_draining();
  void start_call(api_request request, std::unique_ptr<chat_dialect> dialect);
  // dialect_routes.cpp: the Responses and Messages APIs.
  void handle_responses();
  void handle_stored_response(route r);
  void handle_messages(route r);
  // The request's JSON body, or the 400 answered (false).
  [[nodiscard]] std::optional<boost::json::value> json_body_or_answer();
  void upgrade_to_websocket();
  // playground_route.cpp: GET / and /ui/{path}.
  void handle_playground(route r);
  void answer(unsigned status, std::string_view content_type, std::string body);
  void answer_error(const api_error& err, std::string_view allow = {});

  // call_output (on the strand).
  void respond_json(unsigned status, std::string body) override;
  void respond_error(const api_error& err) override;
  void begin_event_stream() override;
  void send_event(const sse_event& event) override;
  void end_event_stream(bool done_marker) override;
  submission submit(std::size_t prompt, generation_request request) override;

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  server_context& ctx_;
  connection_slot slot_;
  // The request being read (from its first byte) and the deadline for the rest of it.
  std::optional<request_reader> reader_;
  time_point read_deadline_;

  // The request in progress (active_) and its engine call, if it has one.
  http::request<http::string_body> request_;
  bool head_only_ = false;  // a HEAD request: answers carry no body
  bool active_ = false;
  bool keep_alive_ = true;
  std::string cors_origin_;        // the answer's Access-Control-Allow-Origin (empty: none)
  bool anthropic_errors_ = false;  // the route speaks Anthropic's API (anthropic_error.h)
  bool close_after_response_ = false;
  std::string request_line_;  // "METHOD target", for the log line
  unsigned status_ = 0;       // of the answer in progress; 0 until its first byte is queued
  std::uint64_t serial_ = 0;  // numbers requests: events of an older one are dropped
  std::chrono::steady_clock::time_point arrival_;
  std::unique_ptr<completion_call> call_;

  // Reads: at most one in flight. A response that completes while a read is pending waits
  // for it (restart_read_ makes its completion start the next request).
  bool reading_ = false;
  bool restart_read_ = false;
  bool closed_ = false;
  // The last response is written and our side shut down: unread bytes are drained until the
  // client closes (or a short deadline) so it gets the answer before the connection goes.
  bool lingering_ = false;

  std::deque<out_message> queue_;
  bool writing_ = false;
  std::atomic<std::uint64_t> queued_bytes_{0};
};

}  // namespace pagedserve::net
