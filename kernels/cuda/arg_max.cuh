#pragma once
// (value, index) pairs for block_reduce: the larger value wins, the lower index among equals.
// Greedy sampling reduces logits with it; NaN must be mapped to -inf by the caller.

#include <climits>
#include <cmath>

#include "kernels/cuda/block_reduce.cuh"

namespace pagedserve::kernels::cuda {

struct arg_max {
  float value;
  int index;
};

// What every pair beats (a function: device code cannot read a host constant of class type).
__device__ __forceinline__ arg_max arg_max_identity() { return {-INFINITY, INT_MAX}; }

// Found by argument-dependent lookup from warp_reduce.
__device__ __forceinline__ arg_max shuffle_xor(arg_max v, int offset) {
  return {__shfl_xor_sync(full_warp_mask, v.value, offset),
          __shfl_xor_sync(full_warp_mask, v.index, offset)};
}

struct arg_max_op {
  __device__ arg_max operator()(arg_max a, arg_max b) const {
    if (a.value > b.value || (a.value == b.value && a.index < b.index)) return a;
    return b;
  }
};

}  // namespace pagedserve::kernels::cuda
