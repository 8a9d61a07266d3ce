#pragma once
// logits_processing: what a sequence's sampling_params change in its logits before the
// sampler's pipeline (sampler.h) sees them, in vLLM V1's order:
//
//   0. allowed_token_ids: every token not in the list becomes -inf
//   1. min_tokens: while fewer than min_tokens tokens were generated, the held stop ids (EOS
//      unless ignore_eos, and stop_token_ids) become -inf; so do bad_words' bans
//   2. logit_bias: logit + bias
//   3. penalties, for each token seen (token_counts.h; count = times generated):
//        repetition, if generated or in the prompt:  logit > 0 ? logit / r : logit * r
//        frequency:                                   logit - f * count
//        presence, if generated:                      logit - p
//
// Step 0 is a mask (the device reads the sorted list); steps 1-2 are sparse edits (logit_edit, one
// per token); step 3 is penalized_logit. Every operation is one fp32 operation rounded to nearest,
// never fused: the device (kernels/cuda/logits_processing_op.cu) computes the same bits. Logprobs
// are reported from the logits before all of this (vLLM's default raw logprobs).

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "api/sampling_params.h"
#include "common/types.h"
#include "runtime/sampling/token_counts.h"

namespace pagedserve {

// One token's sparse edit: logit + bias, or -inf when bias is k_ban_bias.
struct logit_edit {
  token_id token = 0;
  float bias = 0.0f;
};
inline constexpr float k_ban_bias = -std::numeric_limits<float>::infinity();

[[nodiscard]] inline float edited_logit(float logit, float bias) {
  return bias == k_ban_bias ? k_ban_bias : logit + bias;
}

// Steps 1-2 for the next token of a sequence that generated `num_generated` tokens so far:
// ascending token ids, one edit per token (a held stop id is banned whatever its bias).
// `banned` (bad_words.h) are banned too.
[[nodiscard]] std::vector<logit_edit> logit_edits(const sampling_params& params,
                                                  std::span<const token_id> held_stop_ids,
                                                  std::size_t num_generated,
                                                  std::span<const token_id> banned = {});

// Step 0: every logit whose token is not in `allowed` (ascending) becomes -inf.
void apply_allowed_token_ids(std::span<float> logits, std::span<const token_id> allowed);

// Before step 0, for a sequence with structured outputs: every logit whose bit in the
// grammar's token bitmask (bit t % 32 of word t / 32) is clear becomes -inf.
void apply_token_bitmask(std::span<float> logits, std::span<const std::uint32_t> bitmask);

// Step 3 for one token whose packed count (token_counts.h) is `packed` (!= 0).
[[nodiscard]] inline float penalized_logit(float logit, std::uint32_t packed, float presence,
                                           float frequency, float repetition) {
  if (repetition != 1.0f) logit = logit > 0.0f ? logit / repetition : logit * repetition;
  const std::uint32_t count = times_generated(packed);
  if (count == 0) return logit;
  const float by_frequency = frequency * static_cast<float>(count);
  logit = logit - by_frequency;
  return logit - presence;
}

// Applies steps 0-3 to one row of logits in place. `counts` may be null when
// !params.has_penalties().
void process_logits(std::span<float> logits, const sampling_params& params,
                    std::span<const logit_edit> edits, const token_counts* counts);

}  // namespace pagedserve
