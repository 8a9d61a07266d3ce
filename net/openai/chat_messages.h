#pragma once
// The `messages` of a /v1/chat/completions body, checked and normalized for the chat
// template: each message an object with a known role and its content a string. Content
// given as text parts ([{"type": "text", "text": ...}, ...]) is joined with "\n" (vLLM's
// "string" content format, which the templates we run expect); other part types (images,
// audio, files) are refused. An assistant message's tool_calls get their arguments parsed
// from JSON text, as vLLM does (chat_tool_calls.h). Every other key of a message (name,
// tool_call_id, reasoning_content, ...) reaches the template unchanged.

#include <variant>

#include <boost/json.hpp>

#include "net/openai/api_error.h"

namespace pagedserve::net {

[[nodiscard]] std::variant<boost::json::array, api_error> normalize_messages(
    const boost::json::value& messages);

}  // namespace pagedserve::net
