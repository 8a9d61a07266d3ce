#pragma once
// Anthropic's Messages API request (POST /v1/messages and /v1/messages/count_tokens) as the
// chat completions body it means (chat_dialect.h):
//   system (a string or text blocks)     → a leading system message
//   messages: user text blocks           → a user message (blocks joined with "\n")
//             user tool_result blocks    → tool messages (tool_call_id = tool_use_id), first
//             assistant text / tool_use  → an assistant message with content and tool_calls
//             assistant thinking         → its reasoning_content
//   max_tokens, temperature, top_p, top_k → the same; stop_sequences → stop
//   tools [{name, description, input_schema}] → function tools
//   tool_choice auto | any | tool | none  → "auto" | "required" | named | "none";
//     disable_parallel_tool_use → parallel_tool_calls false
//   thinking enabled | disabled          → chat_template_kwargs.enable_thinking
//   stream                               → stream with stream_options.include_usage
// vLLM's sampling extensions (seed, min_p, repetition_penalty, ...) pass through; metadata
// and service_tier are accepted and ignored. Images, documents and server tools are 400.
// A malformed body is a 400 naming the Messages field.

#include <variant>

#include <boost/json.hpp>

#include "net/openai/api_error.h"
#include "net/openai/api_request.h"

namespace pagedserve::net {

enum class messages_endpoint { create, count_tokens };

[[nodiscard]] std::variant<boost::json::object, api_error> messages_to_chat_body(
    const boost::json::value& body, messages_endpoint endpoint);

// The whole request: translated, then parsed by parse_chat_request, its errors in the
// Messages API's field names.
[[nodiscard]] parse_outcome parse_messages_request(const boost::json::value& body,
                                                   const model_context& model,
                                                   messages_endpoint endpoint);

}  // namespace pagedserve::net
