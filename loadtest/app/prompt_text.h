#pragma once
// --tokenizer: token-id prompts sent as text, as vLLM's random dataset sends them — decoded
// with the model's tokenizer (special tokens skipped), invalid UTF-8 replaced by U+FFFD. This
// is what lets a random or shared-prefix workload reach /v1/chat/completions. The server then
// reports the prompt's length in tokens (usage), which may differ a little from the ids drawn.

#include <memory>
#include <string>
#include <vector>

#include "common/result.h"
#include "loadtest/core/bench_request.h"
#include "runtime/tokenizer/tokenizer.h"

namespace pagedserve::loadtest {

// "demo" (the built-in demo model's byte-level tokenizer) or a folder with tokenizer.json.
[[nodiscard]] result<std::shared_ptr<const tokenizer>> load_prompt_tokenizer(
    const std::string& spec);

// Every token-id prompt becomes its text; a prompt that decodes to nothing is an error naming
// the request.
[[nodiscard]] status decode_prompts(std::vector<bench_request>& requests, const tokenizer& tok);

}  // namespace pagedserve::loadtest
