#pragma once
// A request's own `chat_template` (vLLM's ChatCompletionRequest.chat_template). A template
// runs code of the client's choosing inside the server's sandbox, so, as vLLM >= 0.11 does,
// it is refused unless the server trusts request templates (trust_request_chat_template,
// vLLM's --trust-request-chat-template). Trusted, it is compiled for this one request and
// rendered under the model template's limits.

#include <cstddef>
#include <optional>

#include "net/openai/api_request.h"
#include "net/openai/body_reader.h"
#include "runtime/chat/chat_template.h"

namespace pagedserve::net {

// Far above any hub template (the largest are ~20 KB) and small enough to compile per request.
inline constexpr std::size_t k_max_request_chat_template_bytes = 64 * 1024;

// The body's chat_template compiled, or nothing when absent or null. Not a string, too
// long, untrusted or not compiling: an error on 'chat_template' goes to `reader`.
[[nodiscard]] std::optional<chat_template> read_request_chat_template(body_reader& reader,
                                                                      const model_context& model);

// The 400 for a template sent to a server that does not trust them, naming `param`
// ('chat_template', or 'chat_template_kwargs' which vLLM also checks for one).
[[nodiscard]] api_error untrusted_chat_template(const std::string& param);

}  // namespace pagedserve::net
