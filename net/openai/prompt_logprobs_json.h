#pragma once
// vLLM's `prompt_logprobs` field of an answer: one entry per prompt token, null for the
// first (nothing precedes it), then {"<token id>": {"logprob", "rank", "decoded_token"}}
// with the prompt token first and the engine's top alternatives after it (ranks 1..N).
// -inf is sent as -9999.0, as vLLM clamps it.

#include <span>

#include <boost/json.hpp>

#include "api/engine_events.h"
#include "runtime/tokenizer/tokenizer.h"

namespace pagedserve::net {

// `logprobs` holds prompt positions 1.. in order (token_chunk::prompt_logprobs).
[[nodiscard]] boost::json::array prompt_logprobs_json(std::span<const token_id> prompt,
                                                      std::span<const chunk_logprob> logprobs,
                                                      const tokenizer* tok);

}  // namespace pagedserve::net
