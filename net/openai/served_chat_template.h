#pragma once
// The chat template the server renders chat with: the one the server key chat_template
// gives (vLLM's --chat-template), else the tokenizer's own (chat_template::for_tokenizer).
// The key is loaded and compiled before the model, so a bad value stops the start-up at
// once with an error naming the key, instead of a server that cannot chat.

#include <optional>
#include <string>

#include "common/result.h"
#include "runtime/chat/chat_template.h"

namespace pagedserve::net {

// Nothing for an empty value. A path that does not open (and is no template) or a template
// that does not compile is an error "chat_template: ...".
[[nodiscard]] result<std::optional<chat_template>> load_chat_template_key(const std::string& value);

}  // namespace pagedserve::net
