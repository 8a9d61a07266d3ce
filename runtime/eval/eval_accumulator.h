#pragma once
// eval_accumulator: sums what token_metrics measures over every scored position of every
// workload line, and turns the sums into the figures `pagedserve eval` reports:
//
//   mean_nll          = (1/N) sum_positions nll(model logits, next token)
//   perplexity        = exp(mean_nll)
//   reference_*       = the same for the reference's logits
//   mean_kl           = (1/N) sum_positions KL(softmax(reference) || softmax(model))
//   top1_agreement    = (positions where argmax model == argmax reference) / N
//   max_abs_logit_diff = max over positions and vocabulary of |model - reference|
//
// N is num_scored_tokens: every position of a line but its last (position p scores the token
// at p + 1 given tokens 0..p), summed over lines. Sums are in double; positions are added
// either all with a reference or all without (mixing them is the caller's bug: abort).

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "common/types.h"

namespace pagedserve::eval {

struct reference_figures {
  double mean_nll = 0.0;
  double perplexity = 0.0;
  double mean_kl = 0.0;  // nats per scored token
  double top1_agreement = 0.0;
  double max_abs_logit_diff = 0.0;
};

struct eval_summary {
  std::uint64_t num_lines = 0;
  std::uint64_t num_scored_tokens = 0;
  double mean_nll = 0.0;  // nats per scored token
  double perplexity = 0.0;
  std::optional<reference_figures> reference;  // set when positions came with a reference
};

class eval_accumulator {
 public:
  void add_line() { ++num_lines_; }

  // One position scored by the model alone: `logits` predicted `next`.
  void add_position(std::span<const float> logits, token_id next);
  // One position scored by the model and the reference on the same tokens.
  void add_position(std::span<const float> model_logits, std::span<const float> reference_logits,
                    token_id next);

  // The figures so far. With no scored position the means are NaN.
  [[nodiscard]] eval_summary summary() const;

 private:
  void count_position(bool with_reference);

  std::uint64_t num_lines_ = 0;
  std::uint64_t num_scored_ = 0;
  std::uint64_t num_with_reference_ = 0;
  double sum_nll_ = 0.0;
  double sum_reference_nll_ = 0.0;
  double sum_kl_ = 0.0;
  std::uint64_t num_top1_agree_ = 0;
  double max_abs_logit_diff_ = 0.0;
  // Scratch rows for the full log-softmax of each side (reused: no allocation per position).
  std::vector<double> model_log_probs_;
  std::vector<double> reference_log_probs_;
};

}  // namespace pagedserve::eval
