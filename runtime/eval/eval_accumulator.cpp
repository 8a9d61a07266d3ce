#include "runtime/eval/eval_accumulator.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "runtime/eval/token_metrics.h"

namespace pagedserve::eval {
namespace {

double mean(double sum, std::uint64_t n) {
  return n == 0 ? std::numeric_limits<double>::quiet_NaN() : sum / static_cast<double>(n);
}

}  // namespace

void eval_accumulator::count_position(bool with_reference) {
  ++num_scored_;
  if (with_reference) ++num_with_reference_;
  if (num_with_reference_ != 0 && num_with_reference_ != num_scored_) {
    std::fprintf(stderr, "eval_accumulator: positions with and without a reference mixed\n");
    std::abort();
  }
}

void eval_accumulator::add_position(std::span<const float> logits, token_id next) {
  count_position(false);
  sum_nll_ += negative_log_likelihood(logits, next);
}

void eval_accumulator::add_position(std::span<const float> model_logits,
                                    std::span<const float> reference_logits, token_id next) {
  count_position(true);
  log_softmax(model_logits, model_log_probs_);
  log_softmax(reference_logits, reference_log_probs_);
  const auto target = static_cast<std::size_t>(next);
  sum_nll_ -= model_log_probs_[target];
  sum_reference_nll_ -= reference_log_probs_[target];
  sum_kl_ += kl_divergence(reference_log_probs_, model_log_probs_);
  if (argmax(model_logits) == argmax(reference_logits)) ++num_top1_agree_;
  max_abs_logit_diff_ =
      std::max(max_abs_logit_diff_, max_abs_difference(model_logits, reference_logits));
}

eval_summary eval_accumulator::summary() const {
  eval_summary s;
  s.num_lines = num_lines_;
  s.num_scored_tokens = num_scored_;
  s.mean_nll = mean(sum_nll_, num_scored_);
  s.perplexity = std::exp(s.mean_nll);
  if (num_with_reference_ > 0) {
    reference_figures r;
    r.mean_nll = mean(sum_reference_nll_, num_scored_);
    r.perplexity = std::exp(r.mean_nll);
    r.mean_kl = mean(sum_kl_, num_scored_);
    r.top1_agreement = mean(static_cast<double>(num_top1_agree_), num_scored_);
    r.max_abs_logit_diff = max_abs_logit_diff_;
    s.reference = r;
  }
  return s;
}

}  // namespace pagedserve::eval
