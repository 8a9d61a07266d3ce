#pragma once
// response_builder: turns one api_request's engine events into OpenAI's exact wire shapes.
// Streaming: each event yields zero or more SSE payloads ("text_completion" or
// "chat.completion.chunk" objects, serialized; the caller writes "data: <payload>\n\n" and,
// after finish(), "data: [DONE]\n\n"). Non-streaming: events accumulate and finish() yields
// the one response body ("text_completion" / "chat.completion" with usage).
// Not thread-safe: one owner (the session's strand) feeds it events in the order the engine
// sent them.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json.hpp>

#include "api/engine_events.h"
#include "net/openai/api_request.h"
#include "net/openai/event_builder.h"
#include "net/openai/logprobs_json.h"
#include "net/openai/reasoning_parser.h"
#include "net/openai/response_tool_calls.h"

namespace pagedserve::net {

class response_builder final : public event_builder {
 public:
  // response_id: "cmpl-..." / "chatcmpl-..." (make_response_id); created: unix seconds.
  response_builder(const api_request& request, const tokenizer* tok, std::string response_id,
                   std::int64_t created);

  // An event of prompt `prompt_index` (the engine's completion index is event.index).
  // Streaming: appends the SSE payloads it produces (the first chunk of a chat choice
  // carries role "assistant"; with echo the prompt text comes first).
  void on_chunk(std::size_t prompt_index, const token_chunk& chunk,
                std::vector<std::string>& payloads) override;
  void on_final(std::size_t prompt_index, const request_final& final,
                std::vector<std::string>& payloads) override;

  // True once every completion of every prompt has had its final.
  [[nodiscard]] bool done() const override;
  // Streaming: the closing payloads (the usage chunk when include_usage), not [DONE].
  // Non-streaming: one payload, the whole response body. Call it once (it moves the
  // gathered logprobs out).
  [[nodiscard]] std::vector<std::string> finish() override;

  [[nodiscard]] request_usage usage() const;  // summed over prompts and completions
  // Whether any completion ended with finish_reason::error, and its message (first one).
  [[nodiscard]] const std::optional<std::string>& error_message() const override;

 private:
  // One choice of the response: index = prompt_index * n + the engine's completion index.
  struct choice_state {
    std::uint32_t index = 0;  // in the response
    std::size_t prompt_index = 0;
    std::string text;                   // non-streaming: the whole completion text
    completion_logprobs completion_lp;  // completions: pending (streaming) or all
    boost::json::array chat_lp;         // chat, non-streaming: logprobs.content
    std::uint32_t num_streamed_tokens = 0;
    bool started = false;          // streaming: role chunk / echo text sent
    bool prompt_lp_added = false;  // completions with echo: the prompt's logprobs added
    bool finished = false;
    finish_reason reason = finish_reason::length;
    std::optional<std::string> stop_string;
    std::uint32_t completion_tokens = 0;  // from the final
    std::uint32_t cached_prompt_tokens = 0;
    std::optional<reasoning_splitter> reasoning;  // chat with a reasoning parser
    std::string reasoning_text;                   // non-streaming: the whole reasoning
    std::optional<choice_tool_calls> tools;       // chat whose answer becomes tool calls
  };

  choice_state& choice_at(std::size_t prompt_index, std::uint32_t index);
  [[nodiscard]] boost::json::object envelope() const;
  [[nodiscard]] boost::json::object usage_json(bool streamed_so_far) const;
  [[nodiscard]] std::string stream_payload(boost::json::object choice) const;
  // Streaming: the role chunk (chat) the first time a choice speaks; the echo text
  // (completions) to put before its first text.
  std::string start_choice(choice_state& c, std::vector<std::string>& payloads);
  [[nodiscard]] boost::json::object stream_choice(const choice_state& c, split_text text,
                                                  boost::json::value logprobs,
                                                  boost::json::array tool_calls = {}) const;
  // Streaming: the content through the choice's tool calls (if any) into `tool_calls`.
  void stream_tool_calls(choice_state& c, split_text& text, bool at_end,
                         boost::json::array& tool_calls) const;
  [[nodiscard]] static boost::json::value finish_reason_of(const choice_state& c);
  // Non-streaming chat: the message, with its tool calls when the request has tools.
  [[nodiscard]] static boost::json::object message_of(choice_state& c);
  // The choice's new text as reasoning and content (all content without a parser).
  [[nodiscard]] static split_text split(choice_state& c, std::string_view text, bool at_end);
  [[nodiscard]] boost::json::object finish_choice(const choice_state& c) const;
  [[nodiscard]] boost::json::object full_choice(choice_state& c);
  void add_logprobs(choice_state& c, const token_chunk& chunk);

  api_kind kind_;
  std::string model_;
  std::uint32_t n_;
  bool stream_;
  bool include_usage_;
  bool continuous_usage_;
  bool echo_;
  bool want_logprobs_;
  bool want_prompt_logprobs_;
  bool echo_only_;
  std::vector<std::uint32_t> prompt_lens_;
  std::vector<std::string> echo_texts_;  // per prompt, only with echo
  // Per prompt, with prompt logprobs: its ids, and its logprobs once completion 0 sent them.
  std::vector<std::vector<token_id>> prompt_ids_;
  std::vector<std::vector<chunk_logprob>> prompt_lps_;
  const tokenizer* tok_;
  std::string id_;
  std::int64_t created_;
  std::vector<choice_state> choices_;
  std::size_t num_finished_ = 0;
  std::optional<std::string> error_message_;
};

// "cmpl-<32 hex>" or "chatcmpl-<32 hex>", random.
[[nodiscard]] std::string make_response_id(api_kind kind);
// finish_reason → OpenAI finish_reason: length → "length", stop → "stop", cancelled →
// "abort" (vLLM's), error → "error".
[[nodiscard]] std::string_view finish_reason_name(finish_reason kind);

}  // namespace pagedserve::net
