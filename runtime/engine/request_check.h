#pragma once
// request_check: the one check of a generation_request against what this engine can serve.
// The limits come from the engine_plan and the loaded model (request_limits_of); the
// actors' intake runs prepare_request on every submit before the scheduler sees it, and
// engine_core runs prepare_request again (its tokenization is a no-op once intake filled
// the ids) for callers that drive it directly. net/ words the same limits in OpenAI's
// terms for its own 400s, but decides nothing else.
//
// Errors: invalid_argument (a malformed request: no prompt, a text prompt without a
// tokenizer, ids outside the vocabulary, max_tokens 0, n outside [1, max_n], sampling
// values out of range, empty stop strings or stop strings without a tokenizer) and
// capacity_exceeded (prompt + max_tokens over max_model_len or over the whole KV pool:
// the request could never run).

#include <cstdint>
#include <memory>

#include "api/generation_request.h"
#include "common/result.h"
#include "runtime/plan/engine_plan.h"
#include "runtime/tokenizer/tokenizer.h"

namespace pagedserve {

struct request_limits {
  std::uint32_t vocab_size = 0;
  std::uint32_t max_model_len = 0;
  std::uint64_t kv_capacity_tokens = 0;  // what one sequence can hold at most: the pool
  std::uint32_t max_n = 1;
  std::shared_ptr<const tokenizer> tok;  // null: prompts must be token ids, no stop strings
};

[[nodiscard]] request_limits request_limits_of(const engine_plan& plan, std::uint32_t vocab_size,
                                               std::shared_ptr<const tokenizer> tok);

// A text prompt becomes token ids (ids given win; nothing to do then).
[[nodiscard]] status tokenize_prompt(const request_limits& limits, generation_request& request);
// The request, its prompt as token ids, against the limits.
[[nodiscard]] status check_request(const request_limits& limits, const generation_request& request);
// tokenize_prompt, then check_request.
[[nodiscard]] status prepare_request(const request_limits& limits, generation_request& request);

}  // namespace pagedserve
