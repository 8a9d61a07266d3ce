#pragma once
// Log-probabilities for the OpenAI API's `logprobs`. Like vLLM's default
// (logprobs_mode = raw_logprobs) they describe the model's unmodified distribution:
// log_softmax(logits), before temperature, top-k, top-p or min-p.

#include <cstdint>
#include <span>
#include <vector>

#include "api/logprobs.h"
#include "common/types.h"

namespace pagedserve {

struct logprobs_result {
  float chosen_logprob = 0.0f;     // log_softmax(logits)[chosen]
  std::int32_t chosen_rank = 1;    // 1 + number of tokens with a strictly larger logit
  std::vector<token_logprob> top;  // most likely first; ties by lower token id
};

// log_softmax of `chosen` and the `num_top` most likely tokens (fewer if the vocabulary is
// smaller). Computed in double precision. NaN logits count as -inf. If some logits are +inf,
// those tokens share the probability equally and every other token gets -inf. If no logit is
// finite or +inf, every logprob is -inf. Aborts if logits is empty, chosen is out of range
// or num_top is negative.
[[nodiscard]] logprobs_result compute_logprobs(std::span<const float> logits, token_id chosen,
                                               std::int32_t num_top);

}  // namespace pagedserve
