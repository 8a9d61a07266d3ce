// rope: rotate-half rotary embedding in place. Angles are formed as HF forms them in fp32
// (float(position) * inv_freq, then cos/sin), so the reference's rounding is reproduced.

#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/check.h"
#include "kernels/cpu/cpu_ops.h"
#include "kernels/cpu/parallel.h"

namespace pagedserve::kernels::cpu {

void rope(const rope_params& p) {
  KERNEL_CHECK("rope", p.x.type == dtype::f32 && p.x.rank == 3);
  KERNEL_CHECK("rope", p.positions.type == dtype::i32 && p.inv_freq.type == dtype::f32);
  const std::int64_t num_tokens = p.x.dim(0);
  const std::int64_t num_heads = p.x.dim(1);
  const std::int64_t head_dim = p.x.dim(2);
  const std::int64_t half = head_dim / 2;
  KERNEL_CHECK("rope", head_dim % 2 == 0 && p.inv_freq.numel() == half);
  KERNEL_CHECK("rope", p.positions.numel() == num_tokens);
  const std::int32_t* positions = p.positions.as<const std::int32_t>();
  const float* inv_freq = p.inv_freq.as<const float>();
  float* x = p.x.as<float>();
#pragma omp parallel for schedule(static) if (num_tokens * num_heads * head_dim >= \
                                              min_parallel_elements)
  for (std::int64_t t = 0; t < num_tokens; ++t) {
    std::vector<float> cos_v(static_cast<std::size_t>(half));
    std::vector<float> sin_v(static_cast<std::size_t>(half));
    const auto pos = static_cast<float>(positions[t]);
    for (std::int64_t i = 0; i < half; ++i) {
      const float angle = pos * inv_freq[i];
      cos_v[static_cast<std::size_t>(i)] = std::cos(angle);
      sin_v[static_cast<std::size_t>(i)] = std::sin(angle);
    }
    for (std::int64_t h = 0; h < num_heads; ++h) {
      float* row = x + (t * num_heads + h) * head_dim;
      for (std::int64_t i = 0; i < half; ++i) {
        const float c = cos_v[static_cast<std::size_t>(i)];
        const float s = sin_v[static_cast<std::size_t>(i)];
        const float a = row[i];
        const float b = row[i + half];
        row[i] = a * c - b * s;
        row[i + half] = b * c + a * s;
      }
    }
  }
}

}  // namespace pagedserve::kernels::cpu
