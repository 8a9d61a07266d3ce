#include "runtime/sched/step_cost_curve.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <iterator>

namespace pagedserve::sched {
namespace {

// How far one observation moves its bucket's average.
constexpr double k_learning_rate = 0.2;
// The largest change one observation may ask for, as a share of the bucket's average.
constexpr double k_max_move = 0.5;

}  // namespace

std::uint32_t step_cost_curve::bucket_of(std::uint32_t n) {
  if (n <= 16) return n;
  const int drop = std::bit_width(n) - 3;  // keep three significant bits
  return (n >> drop) << drop;
}

void step_cost_curve::seed(std::span<const std::pair<std::uint32_t, double>> points) {
  buckets_.clear();
  for (const auto& [n, s] : points) {
    if (n > 0 && s > 0.0 && std::isfinite(s)) buckets_[bucket_of(n)] = {s, 1};
  }
}

void step_cost_curve::observe(std::uint32_t num_tokens, double s) {
  if (num_tokens == 0 || !(s > 0.0) || !std::isfinite(s)) return;
  bucket& b = buckets_[bucket_of(num_tokens)];
  if (b.observed++ == 0) {
    b.seconds = s;
    return;
  }
  // The first observations are averaged evenly, then each moves the average by
  // k_learning_rate; and by at most k_max_move of it: a stray slow step (the machine busy
  // elsewhere) must not price a size out for long.
  const double rate = std::max(k_learning_rate, 1.0 / b.observed);
  b.seconds += rate * std::clamp(s - b.seconds, -k_max_move * b.seconds, k_max_move * b.seconds);
}

double step_cost_curve::seconds(double n) const {
  if (buckets_.empty()) return prior(n);
  const auto above = buckets_.lower_bound(static_cast<std::uint32_t>(std::ceil(n)));
  if (above == buckets_.begin()) {  // below the measured range
    return above->second.seconds * prior(n) / prior(above->first);
  }
  const auto below = std::prev(above);
  const double s0 = below->second.seconds;
  if (above == buckets_.end()) return s0 * prior(n) / prior(below->first);  // beyond it
  const double n0 = below->first;
  const double n1 = above->first;
  const double s1 = std::max(above->second.seconds, s0);  // never decreasing
  return s0 + (s1 - s0) * (n - n0) / (n1 - n0);
}

}  // namespace pagedserve::sched
