#pragma once
// Internal to the sampler: e^x for the x <= 0 that softmax weights need, written so that a
// loop over it vectorises (the library is built with -fno-trapping-math, which lets the
// compiler turn the two selects into blends). glibc's expf is a call per element.
//
// Method (Cody-Waite): n = round(x * log2(e)), r = x - n * ln(2) in two parts, so
// |r| <= ln(2) / 2; e^r by its degree-7 Taylor polynomial (truncation error < 1e-8);
// scale by 2^n through the exponent bits. Within 4e-7 relative of the exact value on
// [-87, 0]; exactly 1 at 0. Returns 0 below -87 (where e^x is under 2^-125) and for NaN.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>

namespace pagedserve::sampling_detail {

[[nodiscard]] inline float exp_nonpositive(float x) {
  constexpr float lowest = -87.0f;
  const float xc = x > lowest ? x : lowest;   // NaN becomes `lowest` too
  constexpr float round_magic = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
  const float t = xc * 1.44269504f + round_magic;
  const float n = t - round_magic;
  const std::int32_t n_int = std::bit_cast<std::int32_t>(t) - 0x4B400000;  // in [-126, 0]
  float r = xc - n * 0.693145752f;  // ln(2), high bits: n * this is exact
  r = r - n * 1.42860677e-6f;       // ln(2), the rest
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const float value = p * std::bit_cast<float>((n_int + 127) << 23);
  return x > lowest ? value : 0.0f;
}

// out[i] = exp_nonpositive((in[i] - shift) * scale); requires in.size() == out.size().
inline void exp_shifted(std::span<const float> in, float shift, float scale, std::span<float> out) {
  for (std::size_t i = 0; i < in.size(); ++i) out[i] = exp_nonpositive((in[i] - shift) * scale);
}

// Sum over logits of exp_nonpositive(logit - shift), accumulated in double. Works in blocks
// so that the exponentials vectorise while the (ordered) double sum stays exact-ish.
[[nodiscard]] inline double sum_exp_shifted(std::span<const float> logits, float shift) {
  constexpr std::size_t block = 256;
  float terms[block];
  double sum = 0.0;
  for (std::size_t begin = 0; begin < logits.size(); begin += block) {
    const std::size_t n = std::min(block, logits.size() - begin);
    exp_shifted(logits.subspan(begin, n), shift, 1.0f, std::span<float>(terms, n));
    for (std::size_t i = 0; i < n; ++i) sum += terms[i];
  }
  return sum;
}

}  // namespace pagedserve::sampling_detail
