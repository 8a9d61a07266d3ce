#include "runtime/sampling/speculative_sampling.h"

#include <cstddef>

#include "runtime/sampling/sampler.h"
#include "runtime/sampling/truncation.h"

namespace pagedserve {

bool accept_proposed(std::span<const float> weights, token_id proposed, double u) {
  const auto index = static_cast<std::size_t>(proposed);
  if (index >= weights.size() || !(weights[index] > 0.0f)) return false;
  const double total = sampling_detail::block_sum(weights);
  if (!(total > 0.0)) return false;
  // u * total < w(x) is u < p(x) without the division's rounding; p(x) = 1 always accepts.
  return u * total < static_cast<double>(weights[index]);
}

token_id sample_after_rejection(std::vector<float>& weights, token_id proposed, double u) {
  const auto index = static_cast<std::size_t>(proposed);
  if (index < weights.size()) weights[index] = 0.0f;
  return draw_weighted(weights, u);
}

}  // namespace pagedserve
