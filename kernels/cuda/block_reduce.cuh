#pragma once
// The one block reduction of the CUDA kernels: a butterfly within each warp, then across
// the warps through 32 slots of shared memory. Every thread receives the result.

#include <cuda_runtime.h>

namespace pagedserve::kernels::cuda {

inline constexpr unsigned int full_warp_mask = 0xffffffffU;

struct sum_op {
  __device__ float operator()(float a, float b) const { return a + b; }
};
struct max_op {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

// Any type __shfl_xor_sync moves (int, float, double, ...). Types it cannot move get an
// overload next to them, found by argument-dependent lookup.
template <class T>
__device__ __forceinline__ T shuffle_xor(T v, int offset) {
  return __shfl_xor_sync(full_warp_mask, v, offset);
}

// Reduces over groups of `width` lanes (a power of two <= 32, groups aligned to width).
// All 32 lanes of the warp must call it.
template <int width = 32, class T, class Op>
__device__ __forceinline__ T warp_reduce(T v, Op op) {
#pragma unroll
  for (int offset = width / 2; offset > 0; offset /= 2) v = op(v, shuffle_xor(v, offset));
  return v;
}

// Requires blockDim.x a multiple of 32 (at most 1024) and every thread of the block to call
// it. `scratch` is 32 elements of shared memory; the leading barrier makes back-to-back
// calls with the same scratch safe.
template <class T, class Op>
__device__ T block_reduce(T v, Op op, T identity, T* scratch) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int warp = static_cast<int>(threadIdx.x / 32);
  const int num_warps = static_cast<int>(blockDim.x / 32);
  v = warp_reduce(v, op);
  __syncthreads();
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  v = lane < num_warps ? scratch[lane] : identity;
  return warp_reduce(v, op);
}

}  // namespace pagedserve::kernels::cuda
