#include "runtime/forward/rope_frequencies.h"

#include <cmath>
#include <numbers>

#include "runtime/model/dtype.h"

namespace pagedserve::forward {
namespace {

double llama3_scaled(double inv_freq, const rope_config& rope) {
  const auto old_context = static_cast<double>(rope.original_max_position_embeddings);
  const double low_freq_wavelen = old_context / rope.low_freq_factor;
  const double high_freq_wavelen = old_context / rope.high_freq_factor;
  const double wavelen = 2.0 * std::numbers::pi / inv_freq;
  if (wavelen > low_freq_wavelen) return inv_freq / rope.factor;
  if (wavelen < high_freq_wavelen) return inv_freq;
  const double smooth = (old_context / wavelen - rope.low_freq_factor) /
                        (rope.high_freq_factor - rope.low_freq_factor);
  return (1.0 - smooth) * inv_freq / rope.factor + smooth * inv_freq;
}

}  // namespace

std::vector<float> rope_inv_freq(const rope_config& rope, std::int64_t head_dim,
                                 weight_dtype storage) {
  std::vector<float> out(static_cast<std::size_t>(head_dim / 2));
  for (std::size_t i = 0; i < out.size(); ++i) {
    // The exponent is formed in fp32 as HF forms it: float(2i) / float(head_dim).
    const float exponent = static_cast<float>(2 * i) / static_cast<float>(head_dim);
    double inv_freq = 1.0 / std::pow(rope.theta, static_cast<double>(exponent));
    switch (rope.kind) {
      case rope_kind::standard:
        break;
      case rope_kind::linear:
        inv_freq /= rope.factor;
        break;
      case rope_kind::llama3:
        inv_freq = llama3_scaled(inv_freq, rope);
        break;
    }
    out[i] = static_cast<float>(inv_freq);
    if (storage == weight_dtype::bf16) out[i] = bf16_to_f32(f32_to_bf16(out[i]));
  }
  return out;
}

}  // namespace pagedserve::forward
