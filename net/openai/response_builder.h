#pragma once
// response_builder: turns one api_request's engine events into OpenAI's exact wire shapes.
// Streaming: each event yields zero or more SSE payloads ("text_completion" or
// "chat.completion.chunk" objects, serialized; the caller writes "data: <payload>\n\n" and,
// after finish(), "data: [DONE]\n\n"). Non-streaming: events accumulate and finish() yields
// the one response body ("text_completion" / "chat.completion" with usage).
// Not thread-safe: one owner (the session's strand) feeds it events in the order the engine
// sent them.

#include <cstdint>
#include <string>
#include <vector>

#include "net/openai/api_request.h"
#include "runtime/engine/generation_request.h"

namespace pagedserve::net {

class response_builder {
 public:
  // response_id: "cmpl-..." / "chatcmpl-..." (make_response_id); created: unix seconds.
  response_builder(const api_request& request, const tokenizer* tok, std::string response_id,
                   std::int64_t created);

  // An event of prompt `prompt_index` (the engine's completion index is event.index).
  // Streaming: appends the SSE payloads it produces (the first chunk of a chat choice
  // carries role "assistant"; with echo the prompt text comes first).
  void on_chunk(std::size_t prompt_index, const token_chunk& chunk,
                std::vector<std::string>& payloads);
  void on_final(std::size_t prompt_index, const request_final& final,
                std::vector<std::string>& payloads);

  // True once every completion of every prompt has had its final.
  [[nodiscard]] bool done() const;
  // Streaming: the closing payloads (the usage chunk when include_usage), not [DONE].
  // Non-streaming: one payload, the whole response body.
  [[nodiscard]] std::vector<std::string> finish();

  [[nodiscard]] request_usage usage() const;  // summed over prompts and completions
  // Whether any completion ended with finish_kind::error, and its message (first one).
  [[nodiscard]] const std::optional<std::string>& error_message() const;
};

// "cmpl-<32 hex>" or "chatcmpl-<32 hex>", random.
[[nodiscard]] std::string make_response_id(api_kind kind);
// finish_kind → OpenAI finish_reason: length → "length", stop → "stop", cancelled →
// "abort" (vLLM's), error → "error".
[[nodiscard]] std::string_view finish_reason_name(finish_kind kind);

}  // namespace pagedserve::net
