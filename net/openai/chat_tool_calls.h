#pragma once
// The tool_calls of an assistant message, made ready for the chat template as vLLM makes
// them (_postprocess_messages in vllm/entrypoints/chat_utils.py): OpenAI sends each
// call's function.arguments as a JSON string, while tool-use templates expect the object
// (Qwen's `tool_call.arguments | tojson`, Llama-3.1's `arguments | tojson`). So a string
// is parsed; one that is not valid JSON becomes {} and so does an absent, null or scalar
// value; an object or array stays as it is. An empty list is dropped (the template takes its
// plain-answer path) and so is null, which vLLM never hands to the template.

#include <optional>
#include <string>

#include <boost/json.hpp>

#include "net/openai/api_error.h"

namespace pagedserve::net {

// `message` is an assistant message; `param` names it ("messages[2]") in errors. Each
// call must be an object whose "function" is an object with a string "name".
[[nodiscard]] std::optional<api_error> prepare_tool_calls(boost::json::object& message,
                                                          const std::string& param);

}  // namespace pagedserve::net
