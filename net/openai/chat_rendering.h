#pragma once
// The chat template's side of a request that carries `messages` (/v1/chat/completions and
// /tokenize): vLLM's fields that change the rendering, and the rendered text.

#include <string>
#include <variant>

#include "net/openai/api_error.h"
#include "net/openai/api_request.h"
#include "net/openai/body_reader.h"
#include "runtime/chat/chat_template.h"

namespace pagedserve::net {

// add_generation_prompt (default true, as vLLM), chat_template_kwargs (the request's own
// template variables may not be replaced); continue_final_message and a per-request
// chat_template are refused by name. Errors go to `reader`.
void read_chat_template_fields(body_reader& reader, chat_request& chat);

// chat.messages through the model's template (model.tok and model.template_ set), with the
// tokenizer's special tokens; a template error is a 400 on 'messages'.
[[nodiscard]] std::variant<std::string, api_error> render_chat_text(chat_request& chat,
                                                                    const model_context& model);

}  // namespace pagedserve::net
