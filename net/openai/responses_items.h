#pragma once
// The Responses API's items and the chat messages they mean, both ways:
//   input: a string                              → a user message
//          {role, content} / {type: "message"}    → a message (text parts joined with "\n";
//                                                   input_text, output_text, text)
//          {type: "function_call", call_id, name, arguments}
//                                                 → a tool call of the assistant message
//                                                   before it (or a new one)
//          {type: "function_call_output", call_id, output}
//                                                 → a tool message
//          {type: "reasoning"}                    → dropped (the templates drop old thinking)
//   output: reasoning_content → {type: "reasoning", content: [{type: "reasoning_text"}]}
//           content           → {type: "message", content: [{type: "output_text"}]}
//           tool_calls        → {type: "function_call", call_id, name, arguments}
// Images, files and item references are 400 naming the item.

#include <optional>
#include <string>

#include <boost/json.hpp>

#include "net/openai/api_error.h"

namespace pagedserve::net {

// `input` (a string or an array of items) appended to `messages`.
[[nodiscard]] std::optional<api_error> add_input_items(const boost::json::value& input,
                                                       boost::json::array& messages);

// A chat assistant message (chat.completion's choices[0].message) as output items.
[[nodiscard]] boost::json::array output_items(const boost::json::object& message);
// Output items back into the assistant message a later turn's template sees.
[[nodiscard]] boost::json::object message_of_items(const boost::json::array& items);

// The item shapes the stream builds step by step (ids made by the caller).
[[nodiscard]] boost::json::object reasoning_item(const std::string& id, std::string text);
[[nodiscard]] boost::json::object message_item(const std::string& id, std::string text,
                                               std::string_view status);
[[nodiscard]] boost::json::object output_text_part(std::string text);
[[nodiscard]] boost::json::object function_call_item(const std::string& id,
                                                     boost::json::value call_id,
                                                     boost::json::value name, std::string arguments,
                                                     std::string_view status);

}  // namespace pagedserve::net
