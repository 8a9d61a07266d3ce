#pragma once
// websocket_session: one WebSocket connection at /v1/stream (protocol: docs/websocket.md).
// Many requests at once; each client message is handled on the session's strand, engine
// events arrive there through engine_bridge.h. A write queue keeps one async_write in
// flight. Backpressure: queued_bytes_ counts what waits to be sent (event estimates from the
// moment they are posted); past ws_max_send_queue_bytes every request of the socket is
// cancelled and answered with a "backpressure" error. Closing or losing the socket cancels
// everything it still runs. While more than ws_max_send_queue_bytes wait to be sent, no
// further client message is read (its answers could pile up without end): reading resumes
// once the queue is back under the bound. Every handler runs guarded
// (io_guard.h): an exception cancels the socket's requests and closes it with 1011.

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/websocket/stream.hpp>

#include "net/http/io_guard.h"
#include "net/http/server_context.h"
#include "net/http/ws_protocol.h"

namespace pagedserve::net {

class websocket_session final : public std::enable_shared_from_this<websocket_session>,
                                public closable_session {
 public:
  using tcp = boost::asio::ip::tcp;
  using stream_type = boost::beast::websocket::stream<boost::beast::tcp_stream>;

  websocket_session(tcp::socket socket, server_context& ctx, connection_slot slot);
  ~websocket_session() override;

  // Completes the handshake for `upgrade` (already authorized), then reads messages.
  void run(boost::beast::http::request<boost::beast::http::string_body> upgrade);
  void close_for_shutdown() override;

  // engine_bridge.h entry points.
  [[nodiscard]] stream_type::executor_type get_executor() { return ws_.get_executor(); }
  [[nodiscard]] std::atomic<std::uint64_t>& queued_bytes() { return queued_bytes_; }
  void on_accepted(std::uint64_t call, std::size_t prompt, const result<request_id>& id);
  void on_engine_event(std::uint64_t call, std::size_t prompt, const engine_event& event,
                       std::uint64_t estimate);

 private:
  template <class Work>
  void guard(Work&& work);
  void recover_from_exception();
  void on_handshake(boost::beast::error_code ec);
  void handshake_done(boost::beast::error_code ec);
  void read_next();
  void on_read(boost::beast::error_code ec, std::size_t n);
  void message_arrived(boost::beast::error_code ec);
  void handle_message(std::string_view text);
  void submit(ws_submit message);
  void cancel(const std::string& id);
  void deliver(std::uint64_t serial, std::vector<std::string>& messages);
  void check_backpressure();
  [[nodiscard]] bool send_queue_full() const;
  void resume_reading();  // after a pause, once the send queue is under the bound
  void send(std::string message);
  void write_next();
  void on_write(boost::beast::error_code ec, std::size_t n);
  void write_done(boost::beast::error_code ec);
  void end_all();  // cancels every request (the socket is gone)
  void close_now();

  stream_type ws_;
  boost::beast::flat_buffer buffer_;
  server_context& ctx_;
  connection_slot slot_;

  std::unordered_map<std::uint64_t, std::unique_ptr<ws_call>> calls_;  // by serial
  std::unordered_map<std::string, std::uint64_t> active_ids_;          // client id → serial
  std::uint64_t next_serial_ = 1;

  std::deque<std::string> queue_;
  bool writing_ = false;
  bool closed_ = false;
  bool overflowed_ = false;   // the bound was passed; cleared once the queue is empty
  bool read_paused_ = false;  // no read pending: the send queue is over the bound
  std::atomic<std::uint64_t> queued_bytes_{0};
};

}  // namespace pagedserve::net
