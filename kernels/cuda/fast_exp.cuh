#pragma once
// e^x for x <= 0 on the device, bit for bit the host sampler's exp_nonpositive
// (runtime/sampling/fast_exp.h documents the method): the same fp32 operations in the same
// order, each rounded on its own (__fmul_rn/__fadd_rn forbid the compiler's fused
// multiply-adds, which the host build never forms). Equal weights on both sides make the
// device sampler pick what the host sampler picks, not just something equally likely.

#include <cstdint>

namespace pagedserve::kernels::cuda {

__device__ __forceinline__ float exp_nonpositive(float x) {
  constexpr float lowest = -87.0F;
  const float xc = x > lowest ? x : lowest;   // NaN becomes `lowest` too
  constexpr float round_magic = 12582912.0F;  // 1.5 * 2^23: adding it rounds to an integer
  const float t = __fadd_rn(__fmul_rn(xc, 1.44269504F), round_magic);
  const float n = __fsub_rn(t, round_magic);
  const std::int32_t n_int = __float_as_int(t) - 0x4B400000;
  float r = __fsub_rn(xc, __fmul_rn(n, 0.693145752F));
  r = __fsub_rn(r, __fmul_rn(n, 1.42860677e-6F));
  float p = 1.0F / 5040.0F;
  p = __fadd_rn(__fmul_rn(p, r), 1.0F / 720.0F);
  p = __fadd_rn(__fmul_rn(p, r), 1.0F / 120.0F);
  p = __fadd_rn(__fmul_rn(p, r), 1.0F / 24.0F);
  p = __fadd_rn(__fmul_rn(p, r), 1.0F / 6.0F);
  p = __fadd_rn(__fmul_rn(p, r), 0.5F);
  p = __fadd_rn(__fmul_rn(p, r), 1.0F);
  p = __fadd_rn(__fmul_rn(p, r), 1.0F);
  const float value = __fmul_rn(p, __int_as_float((n_int + 127) << 23));
  return x > lowest ? value : 0.0F;
}

}  // namespace pagedserve::kernels::cuda
