#pragma once
// OpenAI's tool fields of a chat request, as vLLM serves them:
//   tools                a list of {"type": "function", "function": {"name", "description",
//                        "parameters", "strict"}}; the chat template renders them
//   tool_choice          "none" (answer in text), "auto" (the default with tools: the model
//                        decides; its text is parsed with the server's tool_call_parser,
//                        which enable_auto_tool_choice must allow), "required" (at least one
//                        call: the grammar engine forces a JSON list of calls whose
//                        arguments validate against their function's parameters), or
//                        {"type": "function", "function": {"name": f}} (the grammar forces
//                        f's arguments)
//   parallel_tool_calls  false: at most one call
// functions / function_call (OpenAI's deprecated spelling) are 400s.

#include "net/openai/api_request.h"
#include "net/openai/body_reader.h"
#include "runtime/chat/chat_template.h"

namespace pagedserve::net {

// `tools` alone (/tokenize renders them too): checked and put in chat.tools. Returns them
// (null when absent, empty or after an error).
const boost::json::array* read_tools(body_reader& reader, chat_request& chat);

// Fills chat.tools, out.tool_calls and, for "required" and a named function,
// sampling.structured_outputs. Errors go to `reader`.
void read_tool_fields(body_reader& reader, const model_context& model, chat_request& chat,
                      api_request& out, sampling_params& sampling);

// The JSON Schema that tool_choice "required" forces: a list of 1.. (1 without parallel
// calls) objects {"name": <a tool's name>, "parameters": <its parameters>} (vLLM's).
[[nodiscard]] boost::json::object required_tool_calls_schema(const boost::json::array& tools,
                                                             bool parallel_tool_calls);

}  // namespace pagedserve::net
