#pragma once
// The one block-wide prefix sum of the CUDA kernels: a Kogge-Stone scan within each warp
// (shuffles up), then the same over the warps' totals through 32 slots of shared memory.
// Exclusive values are the inclusive sums of the preceding lane, never inclusive - own, so in
// floating point each thread's prefix plus its own value is exactly its successor's prefix
// within a warp.

#include <cuda_runtime.h>

#include "kernels/cuda/block_reduce.cuh"

namespace pagedserve::kernels::cuda {

template <class T>
__device__ __forceinline__ T warp_inclusive_scan(T v) {
  const int lane = static_cast<int>(threadIdx.x % 32);
#pragma unroll
  for (int offset = 1; offset < 32; offset *= 2) {
    const T other = __shfl_up_sync(full_warp_mask, v, static_cast<unsigned>(offset));
    if (lane >= offset) v += other;
  }
  return v;
}

// Returns the sum of `v` over the threads before this one and sets *total to the block's sum
// (every thread). Requires blockDim.x a multiple of 32 and every thread of the block to call
// it; `scratch` is 32 elements of shared memory (the leading barrier makes reuse safe).
template <class T>
__device__ T block_exclusive_scan(T v, T* scratch, T* total) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int warp = static_cast<int>(threadIdx.x / 32);
  const int num_warps = static_cast<int>(blockDim.x / 32);
  const T inclusive = warp_inclusive_scan(v);
  T exclusive = __shfl_up_sync(full_warp_mask, inclusive, 1U);
  if (lane == 0) exclusive = T{};
  __syncthreads();
  if (lane == 31) scratch[warp] = inclusive;
  __syncthreads();
  const T warp_total = lane < num_warps ? scratch[lane] : T{};
  const T warps_inclusive = warp_inclusive_scan(warp_total);
  T warps_before = __shfl_up_sync(full_warp_mask, warps_inclusive, 1U);
  if (lane == 0) warps_before = T{};
  *total = __shfl_sync(full_warp_mask, warps_inclusive, num_warps - 1);
  return __shfl_sync(full_warp_mask, warps_before, warp) + exclusive;
}

}  // namespace pagedserve::kernels::cuda
