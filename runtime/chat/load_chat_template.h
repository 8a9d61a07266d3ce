#pragma once
// load_chat_template: the value of vLLM's --chat-template (our server key chat_template)
// as template source, with vLLM's rule (vllm/entrypoints/chat_utils.py): a file that opens
// is read; otherwise a value holding '{', '}' or a newline is the template itself; anything
// else looked like a path that failed to open and is an error.

#include <string>

#include "common/result.h"

namespace pagedserve {

[[nodiscard]] result<std::string> load_chat_template(const std::string& value);

}  // namespace pagedserve
