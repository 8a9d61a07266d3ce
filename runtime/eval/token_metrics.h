#pragma once
// token_metrics: what teacher forcing measures at one position, from the logits the model
// (and a reference) gave for the next token. Pure functions, computed in double precision
// from the float logits, so two identical rows compare as exactly equal (KL 0, difference 0).
//
//   log_softmax(x)_i  = x_i - log sum_j exp(x_j)          (shifted by max_j x_j first)
//   nll(x, t)         = -log_softmax(x)_t                  (nats)
//   KL(p || q)        = sum_i p_i (log p_i - log q_i)      p = reference, q = model
//
// Every row must be non-empty and finite; targets must be inside the row (the caller's
// invariants: eval checks token ids against the vocabulary before any forward runs).

#include <cstddef>
#include <span>
#include <vector>

#include "common/types.h"

namespace pagedserve::eval {

// log sum_i exp(logits_i), without overflow.
[[nodiscard]] double log_sum_exp(std::span<const float> logits);

// Writes log_softmax(logits) into `out` (resized to the row's length).
void log_softmax(std::span<const float> logits, std::vector<double>& out);

// -log p(target) under softmax(logits).
[[nodiscard]] double negative_log_likelihood(std::span<const float> logits, token_id target);

// KL(p || q) in nats from the two distributions' log-probabilities (same length). Terms
// where p_i underflows to 0 contribute 0, as p log p -> 0.
[[nodiscard]] double kl_divergence(std::span<const double> log_p, std::span<const double> log_q);

// Index of the largest logit; the lowest index among equal maxima (as torch.argmax).
[[nodiscard]] std::size_t argmax(std::span<const float> logits);

// max_i |a_i - b_i| (same length).
[[nodiscard]] double max_abs_difference(std::span<const float> a, std::span<const float> b);

}  // namespace pagedserve::eval
