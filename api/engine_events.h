#pragma once
// The engine's events for one request, what its sink (or callback) receives: zero or more
// token_chunk values, in order, then exactly one request_final per completion. With n > 1
// each chunk and final name the completion `index`. A request that sets report_lifecycle
// also gets request_lifecycle events among them (api/request_lifecycle.h). Plain structs
// (no CAF): actors/ gives them inspect() overloads so they travel as messages.

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "api/finish_reason.h"
#include "api/logprobs.h"
#include "api/request_lifecycle.h"
#include "common/ids.h"
#include "common/types.h"

namespace pagedserve {

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
  // sampling.pooling set: the prompt's embedding, in the request's only chunk (which has no
  // token_ids: an embedding request generates none).
  std::vector<float> embedding;
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
  // The request's last final: every completion has ended and nothing of the request follows
  // (vLLM's RequestOutput.finished). Set by the engine, which alone counts the completions.
  bool finished = false;
};

using engine_event = std::variant<token_chunk, request_final, request_lifecycle>;

}  // namespace pagedserve
