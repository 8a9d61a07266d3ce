#pragma once
// The tool-call side of a chat choice (api_request::tool_calls): the answer's content text
// goes through a tool_call_streamer, and calls come out in OpenAI's shapes:
//   message.tool_calls  [{"id": "chatcmpl-tool-<hex>", "type": "function",
//                         "function": {"name", "arguments"}}]
//   delta.tool_calls    [{"index", "id", "type", "function": {"name", "arguments": ""}}]
//                       first, then [{"index", "function": {"arguments": <piece>}}]
// With parallel_tool_calls false only the first call is kept (vLLM).

#include <string>
#include <vector>

#include <boost/json.hpp>

#include "net/openai/api_request.h"
#include "net/openai/tool_call_parser.h"

namespace pagedserve::net {

class choice_tool_calls {
 public:
  explicit choice_tool_calls(const tool_call_options& options);

  // Streaming: the content that is decided, and the calls' deltas (appended to `deltas` in
  // OpenAI's shape; empty when none).
  [[nodiscard]] std::string push(std::string_view content, boost::json::array& deltas);
  [[nodiscard]] std::string flush(boost::json::array& deltas);

  // Non-streaming: the whole content; returns what stays content and fills `calls`.
  [[nodiscard]] std::string extract(std::string_view content, boost::json::array& calls);

  // Whether any call came (finish_reason "tool_calls" unless the function was named).
  [[nodiscard]] bool called() const { return num_calls_ > 0; }
  [[nodiscard]] bool named() const { return options_.format == tool_call_format::named; }

 private:
  std::string take(stream_delta delta, boost::json::array& deltas);
  [[nodiscard]] bool kept(std::uint32_t index) const {
    return options_.parallel_tool_calls || index == 0;
  }

  tool_call_options options_;
  tool_call_streamer streamer_;
  std::vector<std::string> ids_;  // per call index
  std::uint32_t num_calls_ = 0;
};

// "chatcmpl-tool-<32 hex>", random (vLLM's tool call ids; response_names.cpp).
[[nodiscard]] std::string make_tool_call_id();

}  // namespace pagedserve::net
