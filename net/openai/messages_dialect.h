#pragma once
// The Anthropic Messages API's answer (chat_dialect.h).
// Non-streaming: {"id": "msg_<hex>", "type": "message", "role": "assistant", "model",
//   "content": [thinking?, text?, tool_use...], "stop_reason", "stop_sequence", "usage"}.
// Streaming: message_start; per block content_block_start, its deltas (thinking_delta,
//   text_delta, input_json_delta) and content_block_stop; then message_delta (stop_reason,
//   stop_sequence, usage) and message_stop.
// stop_reason: end_turn (EOS or a stop token), stop_sequence (a stop string, named in
// stop_sequence), max_tokens, tool_use (the answer called tools). Usage as Anthropic counts
// it: input_tokens are the prompt tokens the prefix cache did not hold, cache_read_input_tokens
// the ones it did.

#include <cstdint>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "net/openai/chat_dialect.h"

namespace pagedserve::net {

class messages_dialect final : public chat_dialect {
 public:
  messages_dialect(std::string model, std::uint32_t prompt_tokens);

  void on_chunk(const boost::json::object& chunk, std::vector<sse_event>& out) override;
  void close(std::vector<sse_event>& out) override;
  [[nodiscard]] std::string body(const boost::json::object& completion) override;
  [[nodiscard]] sse_event error_event(const api_error& err) override;

 private:
  enum class block { none, thinking, text, tool_use };

  void open_block(block kind, boost::json::object start, std::vector<sse_event>& out);
  void close_block(std::vector<sse_event>& out);
  void delta(boost::json::object delta, std::vector<sse_event>& out);
  void on_tool_calls(const boost::json::array& calls, std::vector<sse_event>& out);
  void on_finish(const boost::json::object& choice);
  void read_usage(const boost::json::object& usage);
  [[nodiscard]] boost::json::object usage_json() const;
  [[nodiscard]] boost::json::object message_head() const;

  std::string id_;
  std::string model_;
  std::uint32_t prompt_tokens_ = 0;
  std::uint32_t cached_tokens_ = 0;
  std::uint32_t output_tokens_ = 0;
  bool started_ = false;
  block open_ = block::none;
  std::int64_t block_index_ = -1;
  bool called_tool_ = false;
  std::string stop_reason_ = "end_turn";
  boost::json::value stop_sequence_ = nullptr;
};

}  // namespace pagedserve::net
