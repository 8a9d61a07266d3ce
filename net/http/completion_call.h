#pragma once
// completion_call: one POST /v1/completions, /v1/chat/completions, /v1/responses,
// /v1/messages or /v1/embeddings from acceptance to its last byte (the last two are chat
// underneath: their chat_dialect turns the chat shapes into theirs). It submits one engine request
// per prompt, feeds the engine's events (already posted onto the session's strand) through
// response_builder and writes either one JSON body or an SSE stream through call_output.
// Strand-confined; owned by its session. No Beast here: the session implements call_output.
//
// Streams: the response head goes out once every prompt is accepted; a refusal before that
// is answered with its own status (429, 503, 400). An engine error after the head becomes
// `data: {"error": {...}}` followed by `data: [DONE]` (a dialect's error event, and no
// [DONE], under a dialect).

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/engine_client.h"
#include "net/http/server_context.h"
#include "net/openai/api_error.h"
#include "net/openai/api_request.h"
#include "net/openai/chat_dialect.h"
#include "net/openai/response_builder.h"

namespace pagedserve::net {

using steady_clock = std::chrono::steady_clock;

// Where a call writes; implemented by http_session (every method runs on its strand).
class call_output {
 public:
  virtual void respond_json(unsigned status, std::string body) = 0;  // ends the response
  virtual void respond_error(const api_error& err) = 0;              // ends the response
  virtual void begin_event_stream() = 0;
  virtual void send_event(const sse_event& event) = 0;  // "[event: <name>\n]data: <data>\n\n"
  // The last chunk, after "data: [DONE]\n\n" when `done_marker` (chat and completions).
  virtual void end_event_stream(bool done_marker) = 0;
  // Submits one prompt; its acceptance and events come back through the session to
  // completion_call::on_accepted / on_event.
  virtual submission submit(std::size_t prompt, generation_request request) = 0;

 protected:
  ~call_output() = default;
};

class completion_call {
 public:
  // `dialect`: null for completions and chat, which speak the builder's shapes.
  completion_call(call_output& out, server_context& ctx, api_request request,
                  steady_clock::time_point arrival, std::unique_ptr<chat_dialect> dialect = {});
  ~completion_call();  // cancels what is still running; an unfinished call counts as "abort"
  completion_call(const completion_call&) = delete;
  completion_call& operator=(const completion_call&) = delete;

  void start();
  void on_accepted(std::size_t prompt, const result<request_id>& id);
  void on_event(std::size_t prompt, const engine_event& event);
  // The client is gone or too slow: cancel every submission; nothing more is written.
  void abandon();
  // The response is fully queued, or the call was abandoned and every final has arrived.
  [[nodiscard]] bool finished() const { return finished_; }
  [[nodiscard]] bool streaming() const { return request_.stream; }

 private:
  void on_chunk(std::size_t prompt, const token_chunk& chunk);
  void on_final(std::size_t prompt, const request_final& final);
  void emit(std::vector<std::string>& payloads);
  void send(sse_event event);  // now, or once the head is out
  void send_error(const api_error& err);
  void end_stream();
  void ensure_head();
  void complete();
  void refuse(const error& err);
  void cancel_all();

  call_output& out_;
  server_context& ctx_;
  const api_request request_;               // response_builder may refer to it: declared first
  std::unique_ptr<event_builder> builder_;  // response_builder, or embedding_builder
  std::unique_ptr<chat_dialect> dialect_;
  call_registration registration_;
  steady_clock::time_point arrival_;
  std::vector<submission> submissions_;
  std::size_t num_accepted_ = 0;
  bool head_sent_ = false;
  bool abandoned_ = false;
  bool refused_ = false;
  bool finished_ = false;
  std::vector<sse_event> pending_;  // stream events made before the head went out
  bool first_token_seen_ = false;
  std::vector<std::optional<steady_clock::time_point>> last_token_;  // per choice
};

}  // namespace pagedserve::net
