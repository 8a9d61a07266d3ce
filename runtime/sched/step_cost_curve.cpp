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
    if (n > 0 && s > 0.0 && std::isfinite(s)) buckets_[bucket_of(n)] = s;
  }
}

void step_cost_curve::observe(std::uint32_t num_tokens, double s) {
  if (num_tokens == 0 || !(s > 0.0) || !std::isfinite(s)) return;
  const auto [it, fresh] = buckets_.try_emplace(bucket_of(num_tokens), s);
  // One step moves its bucket by at most k_learning_rate x k_max_move of the average: a
  // stray slow step (the machine busy elsewhere) must not price a size out for long, since
  // a size priced out is not run again to correct it.
  const double move = std::clamp(s - it->second, -k_max_move * it->second, k_max_move * it->second);
  if (!fresh) it->second += k_learning_rate * move;
}

double step_cost_curve::seconds(double n) const {
  if (buckets_.empty()) return prior(n);
  const auto above = buckets_.lower_bound(static_cast<std::uint32_t>(std::ceil(n)));
  if (above == buckets_.begin()) {  // below the measured range
    return above->second * prior(n) / prior(above->first);
  }
  const auto below = std::prev(above);
  if (above == buckets_.end()) {  // beyond it
    return below->second * prior(n) / prior(below->first);
  }
  const double n0 = below->first;
  const double n1 = above->first;
  const double s1 = std::max(above->second, below->second);  // never decreasing
  return below->second + (s1 - below->second) * (n - n0) / (n1 - n0);
}

}  // namespace pagedserve::sched
