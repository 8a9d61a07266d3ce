#include "runtime/eval/token_metrics.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace pagedserve::eval {

double log_sum_exp(std::span<const float> logits) {
  assert(!logits.empty());
  double max = -std::numeric_limits<double>::infinity();
  for (const float x : logits) max = std::max(max, static_cast<double>(x));
  double sum = 0.0;
  for (const float x : logits) sum += std::exp(static_cast<double>(x) - max);
  return max + std::log(sum);
}

void log_softmax(std::span<const float> logits, std::vector<double>& out) {
  const double normalizer = log_sum_exp(logits);
  out.resize(logits.size());
  for (std::size_t i = 0; i < logits.size(); ++i) {
    out[i] = static_cast<double>(logits[i]) - normalizer;
  }
}

double negative_log_likelihood(std::span<const float> logits, token_id target) {
  assert(target >= 0 && static_cast<std::size_t>(target) < logits.size());
  return log_sum_exp(logits) - static_cast<double>(logits[static_cast<std::size_t>(target)]);
}

double kl_divergence(std::span<const double> log_p, std::span<const double> log_q) {
  assert(log_p.size() == log_q.size());
  double sum = 0.0;
  for (std::size_t i = 0; i < log_p.size(); ++i) {
    const double p = std::exp(log_p[i]);
    if (p > 0.0) sum += p * (log_p[i] - log_q[i]);
  }
  return sum;
}

std::size_t argmax(std::span<const float> logits) {
  assert(!logits.empty());
  // max_element keeps the first of equal maxima.
  return static_cast<std::size_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
}

double max_abs_difference(std::span<const float> a, std::span<const float> b) {
  assert(a.size() == b.size());
  double max = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    max = std::max(max, std::abs(static_cast<double>(a[i]) - static_cast<double>(b[i])));
  }
  return max;
}

}  // namespace pagedserve::eval
