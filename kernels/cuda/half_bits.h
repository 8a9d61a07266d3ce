#pragma once
// bf16 and f16 <-> f32 on the host (no CUDA types), as raw 16-bit patterns: round to nearest
// even, NaN stays NaN, f16 overflow becomes infinity and its subnormals are kept. Used to
// upload fp32 checkpoints to a 16-bit CUDA backend and to read 16-bit results back.

#include <bit>
#include <cmath>
#include <cstdint>

namespace pagedserve::kernels::cuda {

[[nodiscard]] inline std::uint16_t f32_to_bf16_bits(float value) {
  std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  if ((bits & 0x7FFFFFFFU) > 0x7F800000U) return static_cast<std::uint16_t>((bits >> 16) | 0x40U);
  bits += 0x7FFFU + ((bits >> 16) & 1U);
  return static_cast<std::uint16_t>(bits >> 16);
}

[[nodiscard]] inline float bf16_bits_to_f32(std::uint16_t bits) {
  return std::bit_cast<float>(std::uint32_t{bits} << 16);
}

[[nodiscard]] inline std::uint16_t f32_to_f16_bits(float value) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000U);
  const std::uint32_t magnitude = bits & 0x7FFFFFFFU;
  if (magnitude > 0x7F800000U) {  // NaN: keep it quiet and keep some payload
    return static_cast<std::uint16_t>(sign | 0x7E00U | ((magnitude >> 13) & 0x3FFU));
  }
  if (magnitude >= 0x477FF000U) return static_cast<std::uint16_t>(sign | 0x7C00U);  // >= 65520
  if (magnitude < 0x38800000U) {
    // Below 2^-14, f16 is subnormal: m * 2^-24. Scaling by 2^24 is exact; nearbyint rounds
    // to nearest even, and m == 1024 is the encoding of the smallest normal.
    const float scaled = std::bit_cast<float>(magnitude) * 16777216.0F;
    return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(std::nearbyint(scaled)));
  }
  const std::uint32_t exponent = (magnitude >> 23) - 127 + 15;
  const std::uint32_t mantissa = magnitude & 0x7FFFFFU;
  std::uint32_t half = (exponent << 10) | (mantissa >> 13);
  const std::uint32_t rest = mantissa & 0x1FFFU;
  if (rest > 0x1000U || (rest == 0x1000U && (half & 1U) != 0)) ++half;  // carries into exponent
  return static_cast<std::uint16_t>(sign | half);
}

[[nodiscard]] inline float f16_bits_to_f32(std::uint16_t bits) {
  const std::uint32_t sign = (std::uint32_t{bits} & 0x8000U) << 16;
  const std::uint32_t exponent = (bits >> 10) & 0x1FU;
  const std::uint32_t mantissa = bits & 0x3FFU;
  if (exponent == 0) {
    const float magnitude = static_cast<float>(mantissa) * 0x1.0p-24F;
    return sign != 0 ? -magnitude : magnitude;
  }
  if (exponent == 31) return std::bit_cast<float>(sign | 0x7F800000U | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent - 15 + 127) << 23) | (mantissa << 13));
}

}  // namespace pagedserve::kernels::cuda
