#pragma once
// speculative_sampling: the verification rule of speculative decoding (Leviathan et al.,
// "Fast Inference from Transformers via Speculative Decoding", 2023; Chen et al., 2023).
// A proposed token x, drawn from the proposer's distribution q, is accepted with probability
// min(1, p(x) / q(x)) under the target's distribution p (the weights sample() would draw
// from, sampler.h sampling_weights); at the first rejection the token is drawn from
// max(0, p - q) normalised instead, and verification stops. Every emitted token then
// follows p exactly, whatever q is. Greedy sampling (p one-hot at the argmax) accepts
// exactly the argmax chain.
//
// The proposers here are deterministic (n-gram lookup): q is a point mass at x, so x is
// accepted with probability p(x), and after a rejection the token comes from p without x.

#include <span>
#include <vector>

#include "common/types.h"

namespace pagedserve {

// Whether `proposed` (proposed with probability 1) is accepted under `weights` (unnormalised
// p), given a uniform u in [0, 1): u < p(proposed).
[[nodiscard]] bool accept_proposed(std::span<const float> weights, token_id proposed, double u);

// The token after `proposed` was rejected: drawn with uniform u from max(0, p - q) for q the
// point mass at `proposed`, i.e. from `weights` without it. `weights` is changed (its
// entry for `proposed` zeroed).
[[nodiscard]] token_id sample_after_rejection(std::vector<float>& weights, token_id proposed,
                                              double u);

}  // namespace pagedserve
