#include "net/config/moe_metrics.h"

#include <numeric>
#include <string>

namespace pagedserve::net {
namespace {

// Load relative to a fair share (tokens / the layer's mean over its experts).
histogram load_ratio_buckets() {
  return histogram::with_bounds({0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 4.0});
}

}  // namespace

void render_expert_load(exposition& out, const engine_stats& stats) {
  const std::size_t experts = stats.moe_num_experts;
  if (experts == 0 || stats.moe_expert_tokens.empty()) return;
  const std::size_t layers = stats.moe_expert_tokens.size() / experts;
  out.family("moe_expert_tokens_total", "counter",
             "Tokens each expert of each sparse layer has run (top_k per token and layer).");
  histogram ratio = load_ratio_buckets();
  for (std::size_t layer = 0; layer < layers; ++layer) {
    const auto row = stats.moe_expert_tokens.begin() + static_cast<std::ptrdiff_t>(layer * experts);
    const std::uint64_t total =
        std::accumulate(row, row + static_cast<std::ptrdiff_t>(experts), std::uint64_t{0});
    if (total == 0) continue;  // a dense layer, or nothing routed yet
    const double mean = static_cast<double>(total) / static_cast<double>(experts);
    for (std::size_t e = 0; e < experts; ++e) {
      const std::uint64_t tokens = row[static_cast<std::ptrdiff_t>(e)];
      out.sample("moe_expert_tokens_total",
                 "layer=\"" + std::to_string(layer) + "\",expert=\"" + std::to_string(e) + "\"",
                 std::to_string(tokens));
      ratio.observe(static_cast<double>(tokens) / mean);
    }
  }
  out.histogram_family("moe_expert_load_ratio",
                       "Experts (every sparse layer's) by tokens run over their layer's mean.",
                       ratio);
}

}  // namespace pagedserve::net
