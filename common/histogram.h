#pragma once
// histogram: Prometheus-style buckets with fixed upper bounds. A plain value (copyable,
// serializable as a message field); not thread-safe: its owner serializes observe().

#include <cstdint>
#include <vector>

namespace pagedserve {

struct histogram {
  std::vector<double> upper_bounds;  // ascending, finite; +Inf is implied after the last
  // counts[i]: observations in (upper_bounds[i-1], upper_bounds[i]]; counts.back(): above the
  // last bound. Size upper_bounds.size() + 1. Not cumulative (render_prometheus sums them).
  // A default histogram has no bounds and its one +Inf bucket.
  std::vector<std::uint64_t> counts = std::vector<std::uint64_t>(1, 0);
  double sum = 0.0;
  std::uint64_t count = 0;

  // Aborts when the bounds are not strictly ascending.
  [[nodiscard]] static histogram with_bounds(std::vector<double> bounds);
  void observe(double value);
  // Adds another histogram with the same bounds (aborts otherwise).
  void merge(const histogram& other);
};

// vLLM's bucket sets, so dashboards built for vLLM read ours the same way.
[[nodiscard]] std::vector<double> iteration_tokens_buckets();  // 1 .. 16384 tokens
[[nodiscard]] std::vector<double> latency_buckets_s();         // TTFT/e2e/queue: 1 ms .. 2560 s
[[nodiscard]] std::vector<double> inter_token_buckets_s();     // 10 ms .. 80 s

}  // namespace pagedserve
