#pragma once
// fused_moe's grouped GEMM on tensor cores (mma.m16n8k16, mma.cuh) for dense bf16 / f16
// expert stacks: the same blocks, arguments and results as the SIMT kernel of
// moe_expert_gemm.cuh, which keeps f32 compute and quantized stacks. Block (bx, by) owns the
// moe_block_m = 16 sorted slots by * 16 .. + 16 (all of one expert e: the mma's M) and output
// columns bx * 64 .. + 64; each of its four warps owns 16 columns (two n8 tiles). Per k tile
// of 32, staged in shared memory as T with a padded stride:
//
//   A  the block's 16 rows of a, gathered through sorted_rows (gate/up: x[r / top_k];
//      down: h[r], f32 rounded to T as a dense MLP's silu * up is); padding slots are zeros
//   W  rows n0 .. n0 + 63 of W_e (gate and up both, gated)
//
// then two k16 steps of mma per n8 tile and weight, fp32 accumulators in registers.
//
// Determinism: element D[i][c] of an mma depends only on row i of A, column c of B and its
// own accumulator, so a routed row's results do not depend on its slot or on the other rows
// of its block, and each sums over k in a fixed order: a call gives the same bits every time
// (fused_moe_op.cu's combine adds the top_k results in order, no atomics).

#include <cstdint>
#include <type_traits>

#include "kernels/cuda/element.cuh"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/mma.cuh"
#include "kernels/cuda/moe_expert_gemm.cuh"
#include "kernels/cuda/moe_layout.h"

namespace pagedserve::kernels::cuda {

inline constexpr int mma_gemm_warps = 4;
inline constexpr int mma_gemm_threads = 32 * mma_gemm_warps;
inline constexpr int mma_gemm_bk = 32;
inline constexpr int mma_gemm_stride = mma_gemm_bk + 8;  // 80-byte rows: fragment loads of a
                                                         // warp hit 32 distinct banks
static_assert(moe_block_m == 16, "one m16 tile per block of sorted slots");
static_assert(gemm_bn == 16 * mma_gemm_warps, "the grid of moe_expert_gemm.cuh: 64 columns");

// Elements kk .. kk + 7 (kk a multiple of 8) of a row of k elements (of T, or f32 rounded
// to T) as 8 T in 16 bytes, zeros past k. Whole 16-byte (f32: two 16-byte) loads when
// k % 8 == 0 (a vector starting below k then ends within it) and the address is 16-byte
// aligned (a view may start anywhere in its buffer); element by element otherwise.
template <class T, class S>
__device__ __forceinline__ uint4 load_eight(const S* row, int kk, int k) {
  uint4 v = make_uint4(0, 0, 0, 0);
  if (kk >= k) return v;
  if (k % 8 == 0 && reinterpret_cast<std::uintptr_t>(row + kk) % 16 == 0) {
    if constexpr (std::is_same_v<S, T>) return *reinterpret_cast<const uint4*>(row + kk);
    if constexpr (std::is_same_v<S, float>) {
      const float4 lo = *reinterpret_cast<const float4*>(row + kk);
      const float4 hi = *reinterpret_cast<const float4*>(row + kk + 4);
      return make_uint4(pack_floats<T>(lo.x, lo.y), pack_floats<T>(lo.z, lo.w),
                        pack_floats<T>(hi.x, hi.y), pack_floats<T>(hi.z, hi.w));
    }
  }
  float f[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) f[j] = kk + j < k ? to_float(row[kk + j]) : 0.0F;
  return make_uint4(pack_floats<T>(f[0], f[1]), pack_floats<T>(f[2], f[3]),
                    pack_floats<T>(f[4], f[5]), pack_floats<T>(f[6], f[7]));
}

__device__ __forceinline__ std::uint32_t shared_u32(const void* p) {
  return *static_cast<const std::uint32_t*>(p);
}

// Rows n0 .. n0 + gemm_bn - 1 of W_e's k tile at k0 into `dst` (zeros past n and k).
template <class T>
__device__ __forceinline__ void stage_weight_tile(T* dst, const expert_operand<T>& w, int e, int n0,
                                                  int k0) {
  constexpr int vectors = gemm_bn * mma_gemm_bk / 8;
  for (int i = static_cast<int>(threadIdx.x); i < vectors; i += mma_gemm_threads) {
    const int c = i / (mma_gemm_bk / 8);
    const int part = i % (mma_gemm_bk / 8);
    uint4 v = make_uint4(0, 0, 0, 0);
    if (n0 + c < w.n) {
      const T* row = w.dense + (static_cast<std::int64_t>(e) * w.n + n0 + c) * w.k;
      v = load_eight<T>(row, k0 + part * 8, w.k);
    }
    *reinterpret_cast<uint4*>(dst + c * mma_gemm_stride + part * 8) = v;
  }
}

// Dense W only (the launcher's invariant): expert_operand<T>::dense is set.
template <class TA, class T, bool gated>
__global__ void __launch_bounds__(mma_gemm_threads)
    moe_expert_mma_kernel(expert_gemm_args<TA, T> p) {
  static_assert(sizeof(T) == 2, "bf16 or f16 operands");
  const int expert = p.block_expert[blockIdx.y];
  if (expert < 0) return;  // the whole block: past the padded total
  constexpr int weights = gated ? 2 : 1;
  // The tiles as 16-bit words (T has constructors), read and written as T and in 16-byte
  // vectors: 16-byte aligned, rows of 80 bytes.
  __shared__ int rows[gemm_bm];
  __shared__ __align__(16) std::uint16_t a_words[gemm_bm * mma_gemm_stride];
  __shared__ __align__(16) std::uint16_t w_words[weights][gemm_bn * mma_gemm_stride];
  T* const a_sh = reinterpret_cast<T*>(a_words);
  T* const w_sh[2] = {reinterpret_cast<T*>(w_words[0]), reinterpret_cast<T*>(w_words[weights - 1])};
  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid % 32;
  const int warp = tid / 32;
  const int g = lane / 4;
  const int t = lane % 4;
  const int n0 = static_cast<int>(blockIdx.x) * gemm_bn;
  if (tid < gemm_bm) rows[tid] = p.sorted_rows[blockIdx.y * gemm_bm + tid];
  float acc[weights][2][4] = {};
  __syncthreads();
  for (int k0 = 0; k0 < p.k; k0 += mma_gemm_bk) {
    constexpr int a_vectors = gemm_bm * mma_gemm_bk / 8;
    for (int i = tid; i < a_vectors; i += mma_gemm_threads) {
      const int m = i / (mma_gemm_bk / 8);
      const int part = i % (mma_gemm_bk / 8);
      const int r = rows[m];
      uint4 v = make_uint4(0, 0, 0, 0);
      if (r >= 0) {
        const TA* row = p.a + static_cast<std::int64_t>(r / p.a_row_divisor) * p.k;
        v = load_eight<T>(row, k0 + part * 8, p.k);
      }
      *reinterpret_cast<uint4*>(a_sh + m * mma_gemm_stride + part * 8) = v;
    }
    stage_weight_tile(w_sh[0], p.w0, expert, n0, k0);
    if constexpr (gated) stage_weight_tile(w_sh[1], p.w1, expert, n0, k0);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < mma_gemm_bk; kk += 16) {
      const T* a_lo = a_sh + g * mma_gemm_stride + kk + 2 * t;
      const T* a_hi = a_lo + 8 * mma_gemm_stride;
      const std::uint32_t a[4] = {shared_u32(a_lo), shared_u32(a_hi), shared_u32(a_lo + 8),
                                  shared_u32(a_hi + 8)};
#pragma unroll
      for (int wi = 0; wi < weights; ++wi) {
#pragma unroll
        for (int nt = 0; nt < 2; ++nt) {
          const T* col = w_sh[wi] + (warp * 16 + nt * 8 + g) * mma_gemm_stride + kk + 2 * t;
          const std::uint32_t b[2] = {shared_u32(col), shared_u32(col + 8)};
          mma_m16n8k16<T>(acc[wi][nt], a, b);
        }
      }
    }
    __syncthreads();
  }
  // d[i] of an n8 tile: row g (i < 2) or g + 8, column 2t + i % 2.
#pragma unroll
  for (int nt = 0; nt < 2; ++nt) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int r = rows[g + (i >= 2 ? 8 : 0)];
      const int c = n0 + warp * 16 + nt * 8 + 2 * t + i % 2;
      if (r < 0 || c >= p.n) continue;
      float v = acc[0][nt][i];
      if constexpr (gated) v = v / (1.0F + expf(-v)) * acc[weights - 1][nt][i];
      p.out[static_cast<std::int64_t>(r) * p.n + c] = v;
    }
  }
}

}  // namespace pagedserve::kernels::cuda
