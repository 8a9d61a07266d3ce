#pragma once
// Internal to the sampler: top-k and top-p over candidate lists and weight vectors, and the
// scans they share with logprobs. Not part of the
// sampling API (include runtime/sampling/sampler.h instead).

#include <cstddef>
#include <span>
#include <vector>

#include "common/types.h"

namespace pagedserve::sampling_detail {

// A token still in the running. `weight` is its unnormalised probability, or its raw logit
// before weights are computed. Never NaN.
struct candidate {
  float weight;
  token_id id;
};

// Larger weight first, lower id first among equals: a strict weak order. A function object
// (not a function) so that the standard algorithms inline it.
inline constexpr auto more_likely = [](const candidate& a, const candidate& b) {
  return a.weight != b.weight ? a.weight > b.weight : a.id < b.id;
};

// Largest logit; NaN never wins (comparisons with NaN are false). -inf if nothing beats it.
[[nodiscard]] float max_logit(std::span<const float> logits);

[[nodiscard]] double total_weight(std::span<const candidate> cands);
// Sum of a block of weights in double, four partial sums at a time (one dependency chain
// would cost a full add latency per weight).
[[nodiscard]] double block_sum(std::span<const float> w);

// The k most likely tokens (by logit, then lower id) whose logit beats -inf, in no
// particular order, with their logits as weights. A bounded heap when k is a small share of
// the vocabulary (the usual top_k of 20-100), else nth_element.
void select_top_k(std::span<const float> logits, std::size_t k, std::vector<candidate>& out);

// Reorders `cands` so that its first m entries are the nucleus, and returns m >= 1: the
// shortest run of most likely tokens (in more_likely order) whose weight reaches
// `target_mass` (all of them if none does). The nucleus comes out in no particular order.
// Requires cands non-empty. Expected O(n) plus O(64 log 64): nth_element around a split that
// first grows from 64 by factors of 8 (small nuclei cost one pass), then halves the bracket
// around the cut.
[[nodiscard]] std::size_t find_nucleus(std::span<candidate> cands, double target_mass);

// Top-p over a whole vocabulary: sets to 0 the weight of every token outside the nucleus
// (shortest most-likely-first run reaching top_p of the total weight). `weights` are in
// [0, 1], indexed by token id. O(V): one pass buckets the weights by binary exponent, which
// settles every bucket but the one holding the cut; only that bucket's tokens become
// candidates for find_nucleus. `scratch` is working memory.
void keep_nucleus(std::span<float> weights, float top_p, std::vector<candidate>& scratch);

}  // namespace pagedserve::sampling_detail
