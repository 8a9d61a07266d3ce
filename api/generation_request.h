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
  std::uint32_t max_tokens = 16;
  sampling_params sampling;                 // temperature, top_p, top_k, min_p, seed
  std::vector<token_id> stop_token_ids;     // end generation, the token is emitted
  std::vector<std::string> stop;            // stop strings, matched on text, not emitted
  bool ignore_eos = false;                  // keep going past EOS ids
  std::uint32_t n = 1;                      // completions sharing the prompt
  std::int32_t priority = 0;                // smaller first (priority policy only)
  bool skip_special_tokens = true;          // in the streamed text
  bool include_stop_str_in_output = false;  // a matched stop string ends the text
  // For a text prompt: let the tokenizer add BOS and friends (false for chat-template text,
  // which already contains them).
  bool add_special_tokens = true;
  // Opt-in: the sink also receives request_lifecycle events (queued, scheduled with the
  // prompt tokens found in the prefix cache, preempted, resumed, finished), in order with
  // the token chunks (api/request_lifecycle.h).
  bool report_lifecycle = false;
};

}  // namespace pagedserve
