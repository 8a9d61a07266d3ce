#pragma once
// The chat template's side of a request that carries `messages` (/v1/chat/completions and
// /tokenize): vLLM's fields that change the rendering, and the rendered text.

#include <optional>
#include <string>
#include <variant>

#include "net/openai/api_error.h"
#include "net/openai/api_request.h"
#include "net/openai/body_reader.h"
#include "runtime/chat/chat_template.h"

namespace pagedserve::net {

// What one request renders: the template's inputs and, when the body brought its own
// (trusted) chat_template, that template, used instead of the model's.
struct chat_params {
  chat_request chat;
  std::optional<chat_template> request_template;
};

// add_generation_prompt (default true, as vLLM), continue_final_message (vLLM's rules:
// only with add_generation_prompt false, given explicitly since it defaults to true),
// documents (a list of objects of strings), chat_template (request_chat_template.h) and
// chat_template_kwargs (which may not replace the request's own variables). The messages
// are left to the caller. Errors go to `reader`.
void read_chat_template_fields(body_reader& reader, const model_context& model,
                               chat_params& params);

// params.chat.messages through the request's template or the model's, with the tokenizer's
// special tokens. No template (or no tokenizer) is a 400 on 'messages', as is a template
// error.
[[nodiscard]] std::variant<std::string, api_error> render_chat_text(chat_params& params,
                                                                    const model_context& model);

}  // namespace pagedserve::net
