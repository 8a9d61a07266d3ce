#pragma once
// packed_row: one lane's slice of a paged KV cache row as it was loaded (the compute type's
// elements, or fp8 e4m3 codes), converted to fp32 once for every use. Used by
// paged_attention_kernel.cuh.

#include <cstdint>
#include <type_traits>

#include "kernels/cuda/element.cuh"
#include "kernels/cuda/fp8_e4m3.cuh"

namespace pagedserve::kernels::cuda {

// One lane's `elems` elements of a key or value row as loaded from a cache of C: 16, 32, 8 or
// 4 bytes (fp8 codes are a quarter of f32's and half of bf16's bytes).
template <class C, int elems>
struct packed_row {
  static constexpr int bytes = elems * static_cast<int>(sizeof(C));
  static_assert(bytes % 16 == 0 || bytes == 8 || bytes == 4, "row words");
  alignas(16) std::uint32_t word[bytes / 4];

  __device__ __forceinline__ void load(const C* p) {
    if constexpr (bytes % 16 == 0) {
#pragma unroll
      for (int i = 0; i < bytes / 16; ++i) {
        reinterpret_cast<uint4*>(word)[i] = reinterpret_cast<const uint4*>(p)[i];
      }
    } else if constexpr (bytes == 8) {
      *reinterpret_cast<uint2*>(word) = *reinterpret_cast<const uint2*>(p);
    } else {
      word[0] = *reinterpret_cast<const std::uint32_t*>(p);
    }
  }
  __device__ __forceinline__ void zero() {
#pragma unroll
    for (int i = 0; i < bytes / 4; ++i) word[i] = 0;
  }
  // The elements as stored, in fp32: a code's value still wants its scale.
  __device__ __forceinline__ void to_floats(float (&out)[elems]) const {
    if constexpr (std::is_same_v<C, std::uint8_t>) {
      static_assert(elems % 2 == 0, "codes convert in pairs");
#pragma unroll
      for (int i = 0; i < elems / 2; ++i) {
        const float2 pair = e4m3x2_to_float2(reinterpret_cast<const std::uint16_t*>(word)[i]);
        out[2 * i] = pair.x;
        out[2 * i + 1] = pair.y;
      }
    } else {
#pragma unroll
      for (int i = 0; i < elems; ++i) out[i] = to_float(reinterpret_cast<const C*>(word)[i]);
    }
  }
};

}  // namespace pagedserve::kernels::cuda
