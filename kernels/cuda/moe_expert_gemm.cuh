#pragma once
// fused_moe's grouped GEMM over the align step's blocks (moe_align.cuh): block (bx, by) owns
// sorted slots by * moe_block_m .. + moe_block_m, all of one expert e, and output columns
// bx * gemm_bn .. + gemm_bn, and reads only W_e. For each slot holding routed row r:
//
//   gated (gate and up):  out[r, c] = silu(a[r / top_k] . Wg_e[c]) * (a[r / top_k] . Wu_e[c])
//   plain (down):         out[r, c] = a[r] . W_e[c]
//
// W_e is dense or quantized (moe_expert_operand.cuh, dequantized to fp32 as it is staged).
//
// A simple tiled SIMT kernel (fp32 FMAs; for f32 compute and quantized stacks: dense bf16 /
// f16 stacks take the tensor-core kernel of moe_expert_mma.cuh): tiles of a and W staged in
// shared memory as fp32, each thread accumulating moe_block_m * gemm_bn / threads outputs of
// one column over k in order. A routed row's results therefore do not depend on its slot or
// on the other rows of its block (what makes fused_moe deterministic). Blocks past the
// padded total (block_expert -1: the grid covers the host-side bound) exit at once.

#include <cstdint>

#include "kernels/cuda/element.cuh"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/moe_expert_operand.cuh"
#include "kernels/cuda/moe_layout.h"

namespace pagedserve::kernels::cuda {

inline constexpr int gemm_threads = 256;
inline constexpr int gemm_bn = 64;
inline constexpr int gemm_bk = 32;
inline constexpr int gemm_bm = static_cast<int>(moe_block_m);
inline constexpr int gemm_rows_per_thread = gemm_bm * gemm_bn / gemm_threads;
static_assert(gemm_threads % gemm_bn == 0 &&
              gemm_rows_per_thread * gemm_threads / gemm_bn == gemm_bm);

template <class TA, class TW>
struct expert_gemm_args {
  float* out;             // f32 [rows, n], at routed rows
  const TA* a;            // [rows / a_row_divisor, k]
  expert_operand<TW> w0;  // [E, n, k]: the gate (gated) or the only weight
  expert_operand<TW> w1;  // [E, n, k]: the up projection (gated only)
  const std::int32_t* sorted_rows;
  const std::int32_t* block_expert;
  int a_row_divisor;  // top_k: a is x, one row per token; 1: a is h, one row per routed row
  int n;
  int k;
};

template <class TA, class TW, bool gated>
__global__ void __launch_bounds__(gemm_threads) moe_expert_gemm_kernel(expert_gemm_args<TA, TW> p) {
  const int expert = p.block_expert[blockIdx.y];
  if (expert < 0) return;  // the whole block: past the padded total
  __shared__ int rows[gemm_bm];
  __shared__ float a_tile[gemm_bm][gemm_bk];
  __shared__ float w_tile[gated ? 2 : 1][gemm_bn][gemm_bk + 1];  // +1: no bank conflicts
  const int tid = static_cast<int>(threadIdx.x);
  const int n0 = static_cast<int>(blockIdx.x) * gemm_bn;
  if (tid < gemm_bm) rows[tid] = p.sorted_rows[blockIdx.y * gemm_bm + tid];
  const int col = tid % gemm_bn;
  const int row0 = tid / gemm_bn * gemm_rows_per_thread;
  float acc0[gemm_rows_per_thread] = {};
  float acc1[gemm_rows_per_thread] = {};
  __syncthreads();
  for (int k0 = 0; k0 < p.k; k0 += gemm_bk) {
    for (int i = tid; i < gemm_bm * gemm_bk; i += gemm_threads) {
      const int m = i / gemm_bk;
      const int kk = k0 + i % gemm_bk;
      const int r = rows[m];
      a_tile[m][i % gemm_bk] =
          r >= 0 && kk < p.k
              ? to_float(p.a[static_cast<std::int64_t>(r / p.a_row_divisor) * p.k + kk])
              : 0.0F;
    }
    for (int i = tid; i < gemm_bn * gemm_bk; i += gemm_threads) {
      const int c = n0 + i / gemm_bk;
      const int kk = k0 + i % gemm_bk;
      const bool inside = c < p.n && kk < p.k;
      w_tile[0][i / gemm_bk][i % gemm_bk] = inside ? expert_weight_at(p.w0, expert, c, kk) : 0.0F;
      if constexpr (gated) {
        w_tile[1][i / gemm_bk][i % gemm_bk] = inside ? expert_weight_at(p.w1, expert, c, kk) : 0.0F;
      }
    }
    __syncthreads();
    for (int kk = 0; kk < gemm_bk; ++kk) {
      const float w0 = w_tile[0][col][kk];
#pragma unroll
      for (int i = 0; i < gemm_rows_per_thread; ++i) acc0[i] += a_tile[row0 + i][kk] * w0;
      if constexpr (gated) {
        const float w1 = w_tile[1][col][kk];
#pragma unroll
        for (int i = 0; i < gemm_rows_per_thread; ++i) acc1[i] += a_tile[row0 + i][kk] * w1;
      }
    }
    __syncthreads();
  }
  if (n0 + col >= p.n) return;
#pragma unroll
  for (int i = 0; i < gemm_rows_per_thread; ++i) {
    const int r = rows[row0 + i];
    if (r < 0) continue;
    float v = acc0[i];
    if constexpr (gated) v = v / (1.0F + expf(-v)) * acc1[i];
    p.out[static_cast<std::int64_t>(r) * p.n + n0 + col] = v;
  }
}

}  // namespace pagedserve::kernels::cuda
