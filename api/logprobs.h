#pragma once
// Log-probabilities as the engine reports them (the model's raw distribution, log_softmax
// of the logits, as vLLM's default logprobs_mode; runtime/sampling/logprobs.h computes them).

#include <cstdint>
#include <vector>

#include "common/types.h"

namespace pagedserve {

struct token_logprob {
  token_id token = 0;
  float logprob = 0.0f;
};

// One generated token's log-probability and the most likely alternatives at its position
// (the model's raw distribution: log_softmax of the logits).
struct chunk_logprob {
  token_id token = 0;
  float logprob = 0.0f;
  std::vector<token_logprob> top;  // sampling.logprobs entries, most likely first
  std::int32_t rank = 1;           // of `token`: 1 + tokens with a strictly larger logit
};

}  // namespace pagedserve
