#pragma once
// ws_protocol: the WebSocket protocol at /v1/stream (docs/websocket.md) without sockets:
// client messages parsed into submits and cancels, and ws_call, one submitted request's
// engine events turned into "delta", "lifecycle", "done" and "error" messages.
// Strand-confined.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <boost/json.hpp>

#include "api/engine_client.h"
#include "net/http/server_context.h"
#include "net/openai/api_error.h"
#include "net/openai/api_request.h"

namespace pagedserve::net {

struct ws_submit {
  std::string id;
  api_kind kind = api_kind::completion;
  boost::json::value body;  // the request's fields ("type", "id", "stream", "lifecycle" removed)
  bool lifecycle = false;   // "lifecycle": true: the engine reports each choice's lifecycle
};
struct ws_cancel {
  std::string id;
};
struct ws_invalid {
  std::string id;  // empty when the message had none
  api_error error;
};
using ws_client_message = std::variant<ws_submit, ws_cancel, ws_invalid>;

[[nodiscard]] ws_client_message parse_ws_message(std::string_view text);

[[nodiscard]] std::string ws_error_message(std::string_view id, const api_error& err);
// {"type": "lifecycle", "id", "index" (the choice), "stage", "step", "time", and
// "cached_tokens" (scheduled, resumed) or "computed_tokens_lost" (preempted)}.
[[nodiscard]] std::string ws_lifecycle_message(std::string_view id, std::size_t choice,
                                               const request_lifecycle& lifecycle);
// The error sent for every request of a connection whose send queue passed the bound.
[[nodiscard]] api_error backpressure_error(std::uint64_t max_send_queue_bytes);

class ws_call {
 public:
  using clock = std::chrono::steady_clock;
  ws_call(server_context& ctx, std::string id, api_request request, clock::time_point arrival);
  ~ws_call();  // cancels what still runs; an unfinished call counts as "abort"
  ws_call(const ws_call&) = delete;
  ws_call& operator=(const ws_call&) = delete;

  [[nodiscard]] const std::string& id() const { return id_; }
  [[nodiscard]] const api_request& request() const { return request_; }
  void add_submission(submission s) { submissions_.push_back(std::move(s)); }

  // Each appends the messages to send, in order.
  void on_accepted(std::size_t prompt, const result<request_id>& id, std::vector<std::string>& out);
  void on_event(std::size_t prompt, const engine_event& event, std::vector<std::string>& out);
  void cancel();  // the client asked: the finals arrive and "done" says "abort"
  // Ends the call at once with `err` (backpressure); later events are dropped.
  void fail(const api_error& err, std::vector<std::string>& out);
  [[nodiscard]] bool finished() const { return finished_; }

 private:
  void on_chunk(std::size_t prompt, const token_chunk& chunk, std::vector<std::string>& out);
  void on_final(std::size_t prompt, const request_final& final, std::vector<std::string>& out);
  void on_lifecycle(std::size_t prompt, const request_lifecycle& lifecycle,
                    std::vector<std::string>& out);
  [[nodiscard]] std::string delta_message(std::size_t choice, const std::string& text,
                                          const std::vector<token_id>& token_ids,
                                          const std::vector<chunk_logprob>& logprobs) const;
  [[nodiscard]] std::string done_message() const;

  server_context& ctx_;
  const std::string id_;
  const api_request request_;
  clock::time_point arrival_;
  std::vector<submission> submissions_;
  std::vector<std::optional<finish_reason>> reasons_;  // per choice (prompt * n + index)
  std::vector<std::uint32_t> prompt_tokens_;           // per prompt
  std::uint32_t completion_tokens_ = 0;
  std::size_t num_finals_ = 0;
  std::optional<std::string> engine_error_;
  bool first_token_seen_ = false;
  std::vector<std::optional<clock::time_point>> last_token_;  // per choice
  // Per choice: its "finished" lifecycle message, held until the final's flushed text went
  // out, so that it follows the choice's last delta.
  std::vector<std::string> finished_messages_;
  bool finished_ = false;
  call_registration registration_;
};

}  // namespace pagedserve::net
