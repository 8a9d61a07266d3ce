// rms_norm and add_rms_norm (HF LlamaRMSNorm / Qwen3RMSNorm in fp32:
// x * rsqrt(mean(x^2) + eps), then * weight).

#include <cmath>
#include <cstdint>

#include "kernels/check.h"
#include "kernels/cpu/cpu_ops.h"
#include "kernels/cpu/parallel.h"

namespace pagedserve::kernels::cpu {
namespace {

void normalize_row(float* out, const float* x, const float* weight, std::int64_t width, float eps) {
  double sum_sq = 0.0;
  for (std::int64_t i = 0; i < width; ++i) sum_sq += static_cast<double>(x[i]) * x[i];
  const auto mean_sq = static_cast<float>(sum_sq / static_cast<double>(width));
  const float inv_rms = 1.0F / std::sqrt(mean_sq + eps);
  for (std::int64_t i = 0; i < width; ++i) out[i] = weight[i] * (x[i] * inv_rms);
}

}  // namespace

void rms_norm(const rms_norm_params& p) {
  const std::int64_t width = p.weight.numel();
  KERNEL_CHECK("rms_norm", p.x.type == dtype::f32 && p.out.type == dtype::f32);
  KERNEL_CHECK("rms_norm", p.weight.type == dtype::f32 && width > 0);
  KERNEL_CHECK("rms_norm", p.x.numel() % width == 0 && p.out.numel() == p.x.numel());
  const std::int64_t num_rows = p.x.numel() / width;
  const float* x = p.x.as<const float>();
  float* out = p.out.as<float>();
  const float* weight = p.weight.as<const float>();
#pragma omp parallel for schedule(static) if (num_rows * width >= min_parallel_elements)
  for (std::int64_t r = 0; r < num_rows; ++r) {
    normalize_row(out + r * width, x + r * width, weight, width, p.eps);
  }
}

void add_rms_norm(const add_rms_norm_params& p) {
  const std::int64_t width = p.weight.numel();
  KERNEL_CHECK("add_rms_norm", p.residual.type == dtype::f32 && p.x.type == dtype::f32);
  KERNEL_CHECK("add_rms_norm", p.out.type == dtype::f32 && p.weight.type == dtype::f32);
  KERNEL_CHECK("add_rms_norm", width > 0 && p.residual.numel() % width == 0);
  KERNEL_CHECK("add_rms_norm",
               p.x.numel() == p.residual.numel() && p.out.numel() == p.residual.numel());
  const std::int64_t num_rows = p.residual.numel() / width;
  float* residual = p.residual.as<float>();
  const float* x = p.x.as<const float>();
  float* out = p.out.as<float>();
  const float* weight = p.weight.as<const float>();
#pragma omp parallel for schedule(static) if (num_rows * width >= min_parallel_elements)
  for (std::int64_t r = 0; r < num_rows; ++r) {
    float* res_row = residual + r * width;
    const float* x_row = x + r * width;
    for (std::int64_t i = 0; i < width; ++i) res_row[i] += x_row[i];
    normalize_row(out + r * width, res_row, weight, width, p.eps);
  }
}

}  // namespace pagedserve::kernels::cpu
