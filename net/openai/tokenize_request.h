#pragma once
// POST /tokenize and POST /detokenize in vLLM's shapes (its serving_tokenization; not part
// of OpenAI's API):
//   /tokenize   {"prompt": "text", "add_special_tokens": true}
//            or {"messages": [...], "add_generation_prompt": true, "add_special_tokens": false,
//                "continue_final_message": false, "documents": [...], "chat_template": "...",
//                "chat_template_kwargs": {...}} (the chat template fields as in chat)
//               both with optional "model" and "return_token_strs" (default false)
//            -> {"count": N, "max_model_len": L, "tokens": [ids], "token_strs": [...] | null}
//   /detokenize {"tokens": [ids]} -> {"prompt": "text"} (special tokens kept, as HF decode)
// A prompt longer than max_model_len is still tokenized: the count is what a client asks
// for. Bad input is an api_error naming the field, as for the completion endpoints.

#include <variant>

#include <boost/json.hpp>

#include "net/openai/api_error.h"
#include "net/openai/api_request.h"

namespace pagedserve::net {

[[nodiscard]] std::variant<boost::json::object, api_error> tokenize(const boost::json::value& body,
                                                                    const model_context& model);

[[nodiscard]] std::variant<boost::json::object, api_error> detokenize(
    const boost::json::value& body, const model_context& model);

}  // namespace pagedserve::net
