#pragma once
// eval_run: teacher forcing over a workload. Each line runs through the model (and the
// reference, on the same tokens) as one prefill in chunks; position p's logits score the
// line's token p + 1 (eval_accumulator). Lines run one after another, one sequence per
// forward: the figures are independent of batching, and memory stays at one chunk's logits
// per model, which caps the chunk at k_max_chunk_logits_bytes of them (a 128k vocabulary:
// ~520 tokens per forward).

#include <cstdint>
#include <span>
#include <vector>

#include "common/types.h"
#include "runtime/eval/eval_accumulator.h"
#include "runtime/forward/model_forward.h"

namespace pagedserve::eval {

inline constexpr std::int64_t k_max_chunk_logits_bytes = std::int64_t{256} << 20;

struct eval_run_options {
  std::int64_t block_size = 16;    // KV cache block size
  std::int64_t chunk_size = 8192;  // most tokens of one forward (max_num_batched_tokens)
  // (lowered for a large vocabulary: chunk_tokens)
  // The model's KV cache (the reference's is always auto: fp8 KV is compared against it).
  forward::kv_cache_dtype kv_cache_dtype = forward::kv_cache_dtype::auto_;
};

// The tokens of one forward: chunk_size, lowered so that their f32 logits fit in
// k_max_chunk_logits_bytes; at least 1.
[[nodiscard]] std::int64_t chunk_tokens(const eval_run_options& options, std::int64_t vocab_size);

// `reference` may be null (perplexity only); otherwise it has the model's vocab_size (the
// caller's invariant). Every line is non-empty with ids inside the vocabulary (eval_tokens).
[[nodiscard]] eval_summary run_eval(forward::model_forward& model,
                                    forward::model_forward* reference,
                                    std::span<const std::vector<token_id>> lines,
                                    const eval_run_options& options);

}  // namespace pagedserve::eval
