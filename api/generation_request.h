#pragma once
// generation_request: what a client submits to the engine (its events: api/engine_events.h).
// A plain struct (no CAF): actors/ gives it an inspect() overload so it travels as a
// message, also between processes.

#include <cstdint>
#include <string>
#include <vector>

#include "api/sampling_params.h"
#include "common/ids.h"
#include "common/types.h"

namespace pagedserve {

struct generation_request {
  // The prompt as token ids, or as text when the engine has a tokenizer (ids win when both
  // are given).
  std::vector<token_id> prompt_token_ids;
  std::string prompt;
  // Everything about how the completions are generated and end (vLLM's SamplingParams):
  // n, max_tokens, stop strings and ids, temperature, logprobs, structured outputs, ...
  sampling_params sampling;
  std::int32_t priority = 0;  // smaller first (priority policy only)
  // For a text prompt: let the tokenizer add BOS and friends (false for chat-template text,
  // which already contains them).
  bool add_special_tokens = true;
  // Opt-in: the sink also receives request_lifecycle events (queued, scheduled with the
  // prompt tokens found in the prefix cache, preempted, resumed, finished), in order with
  // the token chunks (api/request_lifecycle.h).
  bool report_lifecycle = false;
};

}  // namespace pagedserve
