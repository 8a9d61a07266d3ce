#pragma once
// The CPU sampler: picks one sequence's next token from its logits.
//
//   sampler_state state = sampler_state::create(params, sequence_index);  // once per sequence
//   token_id next = sample(logits, params, state);                        // once per step
//   if (params.logprobs) report(compute_logprobs(logits, next, *params.logprobs));
//
// Pipeline (HF transformers' warper order; each stage applies only when enabled):
//   1. greedy (temperature < 1e-5): argmax, lowest token id on ties. Still consumes a draw.
//   2. weights w_i = exp((logit_i - max_logit) * (1 / temperature)) in fp32, with the
//      approximation of exp that fast_exp.h documents; the most likely token weighs exactly 1
//   3. top-k: keep exactly the k largest logits, ties broken by lower token id (HF and vLLM
//      keep every token tied with the k-th; exact float ties are rare, and exactly k makes
//      top_k = 1 identical to greedy)
//   4. top-p: over the kept tokens sorted by (w desc, id asc), keep the shortest prefix
//      whose weight reaches top_p * (weight of the kept tokens); always at least one token.
//      Sums are in double, in an order of the implementation's choosing: a cut within
//      rounding of the target may fall one token either way.
//   5. min-p: drop tokens with w_i < min_p * max(w) = min_p (the max is always kept)
//   6. one uniform u from the sequence's stream; walk the kept tokens in ascending token id
//      order and return the first whose running weight sum (double) exceeds
//      u * (total kept weight). Canonical order, so a GPU kernel can reproduce the pick up
//      to rounding (the CPU sums in blocks; a u within rounding of a boundary may fall on
//      either neighbour).
//
// Non-finite logits: NaN counts as -inf. A -inf logit is never chosen. If some logits are
// +inf, exactly those tokens are candidates, with equal weight. If every logit is NaN or
// -inf, sample() returns token 0 (there is nothing meaningful to choose). Empty logits abort.
//
// Random stream: draw number d of a sequence is philox_uniform(seed, sequence_index, d)
// (runtime/sampling/philox.h documents the exact bits), where d counts the sample() calls
// made with this state before. A sequence's tokens therefore depend only on its seed,
// sequence_index, logits and params: never on batch composition or on other sequences.

#include <cstdint>
#include <span>
#include <vector>

#include "api/sampling_params.h"
#include "common/types.h"
#include "runtime/sampling/logprobs.h"
#include "runtime/sampling/philox.h"

namespace pagedserve {

// Per-sequence position in its random stream. Cheap to copy; no shared state.
class sampler_state {
 public:
  sampler_state(std::uint64_t seed, std::uint64_t sequence_index)
      : seed_(seed), sequence_index_(sequence_index) {}

  // Uses params.seed when set; otherwise draws a fresh seed from a process-wide random
  // source (std::random_device). sequence_index tells apart the sequences of one request
  // (0 .. n-1 when a request asks for n completions with one seed).
  [[nodiscard]] static sampler_state create(const sampling_params& params,
                                            std::uint64_t sequence_index);

  [[nodiscard]] std::uint64_t seed() const { return seed_; }
  [[nodiscard]] std::uint64_t sequence_index() const { return sequence_index_; }
  [[nodiscard]] std::uint64_t num_draws() const { return num_draws_; }

  // The uniform in [0, 1) for draw num_draws(); then advances.
  [[nodiscard]] double next_uniform() {
    return philox_uniform(seed_, sequence_index_, num_draws_++);
  }

 private:
  std::uint64_t seed_;
  std::uint64_t sequence_index_;
  std::uint64_t num_draws_ = 0;
};

// Next token for one sequence. `params` must have passed validate() (checked by assert).
// Expected O(V) time in every mode (top-k adds O(k log k)). Scratch memory of O(V) is kept
// per thread, so concurrent calls on different states are safe.
// Figures for V = 128k: bench_sampling (tests/runtime/sampling/).
[[nodiscard]] token_id sample(std::span<const float> logits, const sampling_params& params,
                              sampler_state& state);

// argmax, lowest index on ties, NaN treated as -inf; token 0 if nothing beats -inf.
[[nodiscard]] token_id greedy_sample(std::span<const float> logits);

// The distribution sample() draws from, as unnormalised weights indexed by token id (`out`
// is resized to the vocabulary): zero for every token that temperature, top-k, top-p and
// min-p leave out; greedy: 1 at greedy_sample's token, 0 elsewhere. Speculative decoding
// verifies proposed tokens against it (speculative_sampling.h).
void sampling_weights(std::span<const float> logits, const sampling_params& params,
                      std::vector<float>& out);
// sample()'s last stage over such weights: the first token in ascending id order whose
// running weight exceeds u * (total weight); zero weights never win.
[[nodiscard]] token_id draw_weighted(std::span<const float> weights, double u);

}  // namespace pagedserve
