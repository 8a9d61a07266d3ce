#pragma once
// Element types of the CUDA kernels: f32, bf16 and f16 storage, always fp32 arithmetic.
// Kernels are templates on the storage type T; dispatch_float_type picks T from a tensor's
// dtype.

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "kernels/check.h"
#include "kernels/tensor.h"

namespace pagedserve::kernels::cuda {

using bf16 = __nv_bfloat16;
using f16 = __half;

__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(bf16 x) { return __bfloat162float(x); }
__device__ __forceinline__ float to_float(f16 x) { return __half2float(x); }

template <class T>
__device__ __forceinline__ T from_float(float x);
template <>
__device__ __forceinline__ float from_float<float>(float x) {
  return x;
}
template <>
__device__ __forceinline__ bf16 from_float<bf16>(float x) {
  return __float2bfloat16_rn(x);
}
template <>
__device__ __forceinline__ f16 from_float<f16>(float x) {
  return __float2half_rn(x);
}

// Two consecutive elements (p must be aligned to 2 elements).
__device__ __forceinline__ float2 load_pair(const float* p) {
  return *reinterpret_cast<const float2*>(p);
}
__device__ __forceinline__ float2 load_pair(const bf16* p) {
  return __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(p));
}
__device__ __forceinline__ float2 load_pair(const f16* p) {
  return __half22float2(*reinterpret_cast<const __half2*>(p));
}

// N consecutive elements with 16-byte loads (p 16-byte aligned; N * sizeof(T) % 16 == 0).
template <int N>
__device__ __forceinline__ void load_vector(const float* p, float (&out)[N]) {
  static_assert(N % 4 == 0, "16-byte loads of f32 move 4 elements");
#pragma unroll
  for (int i = 0; i < N / 4; ++i) {
    const float4 v = reinterpret_cast<const float4*>(p)[i];
    out[4 * i] = v.x;
    out[4 * i + 1] = v.y;
    out[4 * i + 2] = v.z;
    out[4 * i + 3] = v.w;
  }
}
// The 16-bit types (bf16, f16): eight elements per 16-byte load, widened in pairs. The
// float overload above is more specialised, so f32 never lands here.
template <int N, class T>
__device__ __forceinline__ void load_vector(const T* p, float (&out)[N]) {
  static_assert(sizeof(T) == 2 && N % 8 == 0, "16-byte loads of 16-bit types move 8 elements");
#pragma unroll
  for (int i = 0; i < N / 8; ++i) {
    const uint4 raw = reinterpret_cast<const uint4*>(p)[i];
    const T* elements = reinterpret_cast<const T*>(&raw);
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const float2 f = load_pair(elements + 2 * j);
      out[8 * i + 2 * j] = f.x;
      out[8 * i + 2 * j + 1] = f.y;
    }
  }
}

template <class T>
struct type_tag {
  using type = T;
};

// Calls f(type_tag<float>{}), f(type_tag<bf16>{}) or f(type_tag<f16>{}) for a tensor type.
template <class F>
void dispatch_float_type(const char* what, dtype type, F&& f) {
  switch (type) {
    case dtype::f32:
      f(type_tag<float>{});
      return;
    case dtype::bf16:
      f(type_tag<bf16>{});
      return;
    case dtype::f16:
      f(type_tag<f16>{});
      return;
    case dtype::i32:
    case dtype::u8:
      break;
  }
  KERNEL_CHECK(what, is_float_type(type));
}

// Grid size for a grid-stride loop over n elements.
[[nodiscard]] inline unsigned int grid_for(std::int64_t n, int threads) {
  const std::int64_t blocks = (n + threads - 1) / threads;
  constexpr std::int64_t max_blocks = 65535LL * 16;
  return static_cast<unsigned int>(blocks < 1 ? 1 : (blocks > max_blocks ? max_blocks : blocks));
}

}  // namespace pagedserve::kernels::cuda
