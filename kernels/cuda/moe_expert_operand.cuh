#pragma once
// One expert stack as the grouped GEMM reads it (moe_expert_gemm.cuh): dense [E, n, k] in the
// compute type, or quantized in the host layout of kernels/ops.h (packing 0) that
// cuda_backend's upload_quantized_experts keeps as it is, E experts stacked per tensor:
//
//   int4, int8   W[c, k] = (q - z) * s, q the code of input k (int4: byte k / 2, low nibble
//                for even k), z = zeros[c, k / group_size], s = scales[c, k / group_size]
//   fp8 e4m3     W[c, k] = e4m3(q) * scales[c / block_rows, k / group_size]
//
// dequantized to fp32 as the GEMM stages W's tile (a SIMT kernel: no packed layout to keep).
// Act-order stacks (input_order) are not taken: they are dequantized at load instead.

#include <cstdint>

#include "kernels/check.h"
#include "kernels/cuda/element.cuh"
#include "kernels/cuda/fp8_e4m3.cuh"
#include "kernels/moe_ops.h"

namespace pagedserve::kernels::cuda {

template <class TW>
struct expert_operand {
  const TW* dense = nullptr;  // [E, n, k], or null when quantized
  const std::uint8_t* codes = nullptr;
  const float* scales = nullptr;
  const std::uint8_t* zeros = nullptr;  // null for fp8
  weight_format format = weight_format::dense;
  int n = 0;  // output features (rows of W)
  int k = 0;  // input features
  int group_size = 1;
  int block_rows = 1;
  int groups = 1;      // per row of scales and zeros
  int row_bytes = 0;   // codes per row of W
  int scale_rows = 0;  // rows of scales per expert
};

// W_e[c, kk] in fp32 (c < n, kk < k).
template <class TW>
__device__ __forceinline__ float expert_weight_at(const expert_operand<TW>& w, int e, int c,
                                                  int kk) {
  const std::int64_t row = static_cast<std::int64_t>(e) * w.n + c;
  if (w.format == weight_format::dense) return to_float(w.dense[row * w.k + kk]);
  const int g = kk / w.group_size;
  const float s =
      w.scales[(static_cast<std::int64_t>(e) * w.scale_rows + c / w.block_rows) * w.groups + g];
  if (w.format == weight_format::fp8_e4m3)
    return e4m3_to_float(w.codes[row * w.row_bytes + kk]) * s;
  int q = 0;
  if (w.format == weight_format::int4) {
    const std::uint8_t byte = w.codes[row * w.row_bytes + kk / 2];
    q = (kk % 2 == 0) ? (byte & 0x0F) : (byte >> 4);
  } else {
    q = w.codes[row * w.row_bytes + kk];
  }
  return static_cast<float>(q - static_cast<int>(w.zeros[row * w.groups + g])) * s;
}

// Whether the grouped GEMM reads `w` as it is (the formats above, host layout, no act-order).
[[nodiscard]] inline bool moe_reads_quantized(const quantized_weight& w) {
  return w.packing == 0 && w.input_order.empty() && w.group_size > 0 && w.block_rows > 0 &&
         (w.format == weight_format::int4 || w.format == weight_format::int8 ||
          (w.format == weight_format::fp8_e4m3 && w.zeros.empty()));
}

// The operand of stack `w`, checked against [E, n, k] and the compute type TW's dtype.
template <class TW>
expert_operand<TW> expert_operand_of(const expert_weights& w, dtype type, std::int64_t experts,
                                     std::int64_t n, std::int64_t k) {
  const char* what = "fused_moe";
  KERNEL_CHECK(what, w.num_experts == experts);
  expert_operand<TW> op;
  op.n = static_cast<int>(n);
  op.k = static_cast<int>(k);
  if (!w.is_quantized()) {
    KERNEL_CHECK(what, w.dense.type == type && w.dense.rank == 3);
    KERNEL_CHECK(what, w.dense.dim(0) == experts && w.dense.dim(1) == n && w.dense.dim(2) == k);
    op.dense = w.dense.as<const TW>();
    return op;
  }
  const quantized_weight& q = w.quantized;
  KERNEL_CHECK(what, moe_reads_quantized(q) && q.out_features == n && q.in_features == k);
  op.format = q.format;
  op.group_size = static_cast<int>(q.group_size);
  op.block_rows = static_cast<int>(q.block_rows);
  op.groups = static_cast<int>(q.num_groups());
  op.row_bytes = static_cast<int>(q.format == weight_format::int4 ? (k + 1) / 2 : k);
  op.scale_rows = static_cast<int>((n + q.block_rows - 1) / q.block_rows);
  KERNEL_CHECK(what, q.codes.type == dtype::u8 && q.codes.numel() == experts * n * op.row_bytes);
  KERNEL_CHECK(
      what, q.scales.type == dtype::f32 && q.scales.numel() == experts * op.scale_rows * op.groups);
  op.codes = q.codes.as<const std::uint8_t>();
  op.scales = q.scales.as<const float>();
  if (q.format != weight_format::fp8_e4m3) {
    KERNEL_CHECK(what, q.zeros.type == dtype::u8 && q.zeros.numel() == experts * n * op.groups);
    op.zeros = q.zeros.as<const std::uint8_t>();
  }
  return op;
}

}  // namespace pagedserve::kernels::cuda
