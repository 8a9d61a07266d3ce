#pragma once
// The engine's request and response values: what a client submits, what its sink receives.
// Plain structs (no CAF): actors/ gives them inspect() overloads so they travel as messages,
// also between processes.
//
// Per request the sink receives zero or more token_chunk messages, in order, then exactly
// one request_final. With n > 1 each chunk and the final name the completion `index`.
// A request that sets report_lifecycle also gets request_lifecycle events among them.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/ids.h"
#include "common/types.h"
#include "runtime/engine/request_lifecycle.h"
#include "runtime/sampling/logprobs.h"
#include "runtime/sampling/sampling_params.h"
#include "runtime/sched/finish_reason.h"

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
  // the token chunks (runtime/engine/request_lifecycle.h).
  bool report_lifecycle = false;
};

// One generated token's log-probability and the most likely alternatives at its position
// (the model's raw distribution: log_softmax of the logits, see runtime/sampling/logprobs.h).
struct chunk_logprob {
  token_id token = 0;
  float logprob = 0.0f;
  std::vector<token_logprob> top;  // sampling.logprobs entries, most likely first
  std::int32_t rank = 1;           // of `token`: 1 + tokens with a strictly larger logit
};

struct token_chunk {
  request_id request;
  std::uint32_t index = 0;          // which of the n completions
  std::vector<token_id> token_ids;  // new tokens, in order
  std::string text;                 // their stable text (empty without a tokenizer)
  // One entry per token_ids entry when the request set sampling.logprobs; else empty.
  std::vector<chunk_logprob> logprobs;
  // sampling.prompt_logprobs set: completion 0's first chunk carries the prompt's, one entry
  // per prompt token after the first (which has none), the `top` from the raw distribution
  // at the position before. Empty in every other chunk.
  std::vector<chunk_logprob> prompt_logprobs;
};

struct request_usage {
  std::uint32_t prompt_tokens = 0;
  std::uint32_t completion_tokens = 0;  // summed over the n completions
  std::uint32_t cached_prompt_tokens = 0;
};

struct request_final {
  request_id request;
  std::uint32_t index = 0;
  finish_reason reason = finish_reason::length;
  std::string error_message;               // reason == error
  std::optional<std::string> stop_string;  // the stop string that ended it, if any
  std::string text;                        // text held back until now (flushed), may be empty
  request_usage usage;                     // of this completion (prompt counted in each)
  // From arrival at the engine to the first step that scheduled this completion (0 when it
  // was never scheduled).
  double queue_time_s = 0.0;
};

}  // namespace pagedserve
