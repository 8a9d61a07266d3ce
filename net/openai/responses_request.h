#pragma once
// OpenAI's Responses API request (POST /v1/responses) as the chat completions body it means
// (chat_dialect.h):
//   instructions                  → a leading system message (not carried to a later turn,
//                                   as OpenAI's previous_response_id does not carry it)
//   previous_response_id          → the stored conversation (response_store.h) before input
//   input (string or items)       → messages (responses_items.h)
//   max_output_tokens             → max_completion_tokens
//   tools [{type: "function", name, description, parameters}] → function tools
//   tool_choice                   → the same ({type: "function", name} → a named function)
//   text.format (text | json_object | json_schema) → response_format
//   reasoning.effort              → chat_template_kwargs.reasoning_effort
//   top_logprobs                  → logprobs with top_logprobs
//   stream                        → stream with stream_options.include_usage
// temperature, top_p, parallel_tool_calls, user and vLLM's sampling extensions (seed,
// top_k, min_p, the penalties, stop, ...) pass through. background, conversation, prompt and
// hosted tools are 400; truncation "auto" is accepted and means what "disabled" does (a
// conversation past the context is a 400). Errors name the Responses field.

#include <variant>

#include <boost/json.hpp>

#include "net/openai/api_error.h"
#include "net/openai/api_request.h"
#include "net/openai/response_store.h"

namespace pagedserve::net {

struct responses_request {
  api_request chat;                 // the translated request, parsed
  boost::json::array conversation;  // prior turns and this input (no instructions)
  boost::json::object echo;         // request fields the response object repeats
  bool store = true;
};

[[nodiscard]] std::variant<responses_request, api_error> parse_responses_request(
    const boost::json::value& body, const model_context& model, const response_store& store);

}  // namespace pagedserve::net
