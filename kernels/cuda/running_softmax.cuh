#pragma once
// running_softmax: one lane's online softmax (flash attention's running max, sum and weighted
// sum of values) for G query heads over `elems` elements of the value rows, taking `keys`
// scores per step. Used by paged_attention_kernel.cuh.

#include <cmath>

#include "kernels/cuda/block_reduce.cuh"

namespace pagedserve::kernels::cuda {

// The running softmax of one lane for G heads over its elements of the rows.
template <int G, int elems, int keys>
struct running_softmax {
  float m[G];
  float l[G];
  float acc[G][elems];

  __device__ __forceinline__ void reset() {
#pragma unroll
    for (int g = 0; g < G; ++g) {
      m[g] = -INFINITY;
      l[g] = 0.0F;
#pragma unroll
      for (int e = 0; e < elems; ++e) acc[g][e] = 0.0F;
    }
  }

  // Moves head g's running max over its scores s[u] (-inf for rows past the split): rescales
  // what came before and turns s into the weights p = e^(s - m'), added to l.
  __device__ __forceinline__ void rescale(int g, float (&s)[keys]) {
    float top = m[g];
#pragma unroll
    for (int u = 0; u < keys; ++u) top = fmaxf(top, s[u]);
    if (top == -INFINITY) {  // no key of this row slot yet
#pragma unroll
      for (int u = 0; u < keys; ++u) s[u] = 0.0F;
      return;
    }
    const float factor = expf(m[g] - top);  // 0 while m was -inf
    m[g] = top;
    l[g] *= factor;
#pragma unroll
    for (int e = 0; e < elems; ++e) acc[g][e] *= factor;
#pragma unroll
    for (int u = 0; u < keys; ++u) {
      s[u] = expf(s[u] - top);
      l[g] += s[u];
    }
  }

  // acc[g] += p[g][u] v for value row u (converted once for all G heads).
  __device__ __forceinline__ void accumulate(const float (&p)[G][keys], int u,
                                             const float (&v)[elems]) {
#pragma unroll
    for (int g = 0; g < G; ++g) {
#pragma unroll
      for (int e = 0; e < elems; ++e) acc[g][e] += p[g][u] * v[e];
    }
  }

  // Merges the states of the lanes `offset`, 2 `offset`, ... apart (the warp's row slots).
  template <int first_offset>
  __device__ __forceinline__ void merge_across_lanes() {
#pragma unroll
    for (int g = 0; g < G; ++g) {
      float top = m[g];
#pragma unroll
      for (int offset = first_offset; offset < 32; offset *= 2) {
        top = fmaxf(top, shuffle_xor(top, offset));
      }
      const float factor = m[g] == -INFINITY ? 0.0F : expf(m[g] - top);
      float sum = l[g] * factor;
#pragma unroll
      for (int offset = first_offset; offset < 32; offset *= 2) sum += shuffle_xor(sum, offset);
#pragma unroll
      for (int e = 0; e < elems; ++e) {
        float a = acc[g][e] * factor;
#pragma unroll
        for (int offset = first_offset; offset < 32; offset *= 2) a += shuffle_xor(a, offset);
        acc[g][e] = a;
      }
      m[g] = top;
      l[g] = sum;
    }
  }
};

}  // namespace pagedserve::kernels::cuda
