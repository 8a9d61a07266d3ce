#pragma once
// fp8 e4m3fn codes in the CUDA kernels (an fp8 KV cache): the conversions of cuda_fp8.h, the
// hardware's cvt instructions on sm_89+ and NVIDIA's software path of the same header under
// the SIMT emulator. They are kernels/fp8_e4m3.h's codec bit for bit: decoding is exact (an
// e4m3 value is a half), encoding rounds to nearest even and saturates at +-448 (satfinite).
// The one difference: a NaN encodes as 0x7F whatever its sign (the codec keeps the sign).

#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cstdint>

namespace pagedserve::kernels::cuda {

__device__ __forceinline__ float e4m3_to_float(std::uint8_t code) {
  return __half2float(__half(__nv_cvt_fp8_to_halfraw(code, __NV_E4M3)));
}

// Two codes at once (the low byte is .x): one cvt.rn.f16x2.e4m3x2 for the pair, where the
// conversion unit, not the memory, bounds attention over an fp8 cache.
__device__ __forceinline__ float2 e4m3x2_to_float2(std::uint16_t codes) {
  return __half22float2(__half2(__nv_cvt_fp8x2_to_halfraw2(codes, __NV_E4M3)));
}

__device__ __forceinline__ std::uint8_t float_to_e4m3(float x) {
  return __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3);
}

}  // namespace pagedserve::kernels::cuda
