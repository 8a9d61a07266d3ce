// linear: out = x @ W^T (+ bias), through the vector kernels (simd/simd_kernels.h). W with
// quantized codes goes to quantized_linear_op.cpp.
//
// W is cut into panels of rows; each OpenMP thread takes whole panels, so every weight is
// read from memory once per step whatever the batch (decode is bound by that read), and a
// panel stays in the core's cache while every row of x passes over it.

#include <algorithm>
#include <cstdint>

#include "kernels/check.h"
#include "kernels/cpu/cpu_ops.h"
#include "kernels/cpu/linear_op.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/simd/simd_kernels.h"

namespace pagedserve::kernels::cpu {

void add_bias(const linear_params& p, std::int64_t num_rows, std::int64_t out_features) {
  KERNEL_CHECK("linear", p.bias.type == dtype::f32 && p.bias.numel() == out_features);
  const float* bias = p.bias.as<const float>();
  float* out = p.out.as<float>();
  for (std::int64_t r = 0; r < num_rows; ++r) {
    float* row = out + r * out_features;
    for (std::int64_t c = 0; c < out_features; ++c) row[c] += bias[c];
  }
}

void linear(const linear_params& p) {
  if (p.quantized.is_quantized()) {
    quantized_linear(p);
    return;
  }
  KERNEL_CHECK("linear", p.x.type == dtype::f32 && p.weight.type == dtype::f32);
  KERNEL_CHECK("linear", p.out.type == dtype::f32 && p.weight.rank == 2);
  const std::int64_t out_features = p.weight.dim(0);
  const std::int64_t in_features = p.weight.dim(1);
  KERNEL_CHECK("linear", p.x.numel() % in_features == 0);
  const std::int64_t num_rows = p.x.numel() / in_features;
  KERNEL_CHECK("linear", p.out.numel() == num_rows * out_features);
  if (num_rows == 0) return;
  simd::matmul_args a;
  a.x = p.x.as<const float>();
  a.ldx = in_features;
  a.w = p.weight.as<const float>();
  a.ldw = in_features;
  a.out = p.out.as<float>();
  a.ldo = out_features;
  a.m = num_rows;
  a.k = in_features;
  const simd::matmul_panel_fn panel = simd::active_kernels().matmul_panel;
  const std::int64_t num_panels = (out_features + panel_rows - 1) / panel_rows;
  const std::int64_t work = num_rows * out_features * in_features;
#pragma omp parallel for schedule(dynamic, 1) if (work >= min_parallel_matmul)
  for (std::int64_t i = 0; i < num_panels; ++i) {
    panel(a, i * panel_rows, std::min(out_features, (i + 1) * panel_rows));
  }
  if (!p.bias.empty()) add_bias(p, num_rows, out_features);
}

}  // namespace pagedserve::kernels::cpu
