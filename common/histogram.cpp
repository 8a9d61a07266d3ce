#include "common/histogram.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace pagedserve {

histogram histogram::with_bounds(std::vector<double> bounds) {
  for (std::size_t i = 1; i < bounds.size(); ++i) {
    if (!(bounds[i - 1] < bounds[i])) {
      std::fprintf(stderr, "histogram: bounds not strictly ascending at %zu\n", i);
      std::abort();
    }
  }
  histogram h;
  h.counts.assign(bounds.size() + 1, 0);
  h.upper_bounds = std::move(bounds);
  return h;
}

void histogram::observe(double value) {
  // First bound >= value: Prometheus buckets are `le` (less than or equal).
  const auto it = std::lower_bound(upper_bounds.begin(), upper_bounds.end(), value);
  ++counts[static_cast<std::size_t>(it - upper_bounds.begin())];
  sum += value;
  ++count;
}

void histogram::merge(const histogram& other) {
  if (other.upper_bounds != upper_bounds) {
    std::fprintf(stderr, "histogram::merge: different bounds\n");
    std::abort();
  }
  for (std::size_t i = 0; i < counts.size(); ++i) counts[i] += other.counts[i];
  sum += other.sum;
  count += other.count;
}

std::vector<double> iteration_tokens_buckets() {
  return {1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384};
}

std::vector<double> latency_buckets_s() {
  return {0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1,  0.25, 0.5,   0.75, 1.0,
          2.5,   5.0,   7.5,  10.0, 20.0, 40.0, 80.0, 160., 640., 1280., 2560.};
}

std::vector<double> inter_token_buckets_s() {
  return {0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2,  0.3,  0.4, 0.5,
          0.75, 1.0,   2.5,  5.0,   7.5, 10.0, 20.0, 40.0, 80.0};
}

}  // namespace pagedserve
