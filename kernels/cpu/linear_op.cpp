// linear: out = x @ W^T (+ bias) through OpenBLAS (sgemv for one row, sgemm otherwise).

#include <cblas.h>

#include <cstdint>

#include "kernels/check.h"
#include "kernels/cpu/cpu_ops.h"

namespace pagedserve::kernels::cpu {

void linear(const linear_params& p) {
  KERNEL_CHECK("linear", p.x.type == dtype::f32 && p.weight.type == dtype::f32);
  KERNEL_CHECK("linear", p.out.type == dtype::f32 && p.weight.rank == 2);
  const std::int64_t out_features = p.weight.dim(0);
  const std::int64_t in_features = p.weight.dim(1);
  KERNEL_CHECK("linear", p.x.numel() % in_features == 0);
  const std::int64_t num_rows = p.x.numel() / in_features;
  KERNEL_CHECK("linear", p.out.numel() == num_rows * out_features);
  if (num_rows == 0) return;
  const auto m = static_cast<blasint>(num_rows);
  const auto n = static_cast<blasint>(out_features);
  const auto k = static_cast<blasint>(in_features);
  const float* x = p.x.as<const float>();
  const float* w = p.weight.as<const float>();
  float* out = p.out.as<float>();
  if (num_rows == 1) {
    cblas_sgemv(CblasRowMajor, CblasNoTrans, n, k, 1.0F, w, k, x, 1, 0.0F, out, 1);
  } else {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0F, x, k, w, k, 0.0F, out, n);
  }
  if (p.bias.empty()) return;
  KERNEL_CHECK("linear", p.bias.type == dtype::f32 && p.bias.numel() == out_features);
  const float* bias = p.bias.as<const float>();
  for (std::int64_t r = 0; r < num_rows; ++r) {
    float* row = out + r * out_features;
    for (std::int64_t c = 0; c < out_features; ++c) row[c] += bias[c];
  }
}

}  // namespace pagedserve::kernels::cpu
