#pragma once
// fixed_order_sum: a parallel sum whose rounding does not depend on the thread count or on
// which thread finishes first (OpenMP's reduction clause combines partial sums in arrival
// order). The range is cut into fixed chunks, summed across the team, and the chunk sums
// are added in order, so a training run is bit-for-bit reproducible.

#include <algorithm>
#include <array>
#include <cstdint>

namespace pagedserve::train {

template <typename Term>
double fixed_order_sum(std::int64_t count, const Term& term) {
  constexpr std::int64_t num_chunks = 64;
  std::array<double, num_chunks> partial{};
  const std::int64_t chunk = (count + num_chunks - 1) / num_chunks;
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t c = 0; c < num_chunks; ++c) {
    double sum = 0.0;
    const std::int64_t end = std::min(count, (c + 1) * chunk);
    for (std::int64_t i = c * chunk; i < end; ++i) sum += term(i);
    partial[static_cast<std::size_t>(c)] = sum;
  }
  double total = 0.0;
  for (double p : partial) total += p;
  return total;
}

}  // namespace pagedserve::train
