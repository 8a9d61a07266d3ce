#pragma once
// fp8 e4m3fn (OCP FP8, as PyTorch's float8_e4m3fn and safetensors' F8_E4M3): S.EEEE.MMM,
// exponent bias 7, no infinities, 0x7F / 0xFF are NaN, largest finite 448 (0x7E),
// subnormals m * 2^-9. Scalar conversions for loaders, writers and the CPU KV cache.

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace pagedserve::kernels {

// Exact (subnormals included; the two NaN codes give NaN).
[[nodiscard]] inline float e4m3_to_f32(std::uint8_t bits) {
  const bool negative = (bits & 0x80U) != 0;
  const unsigned exponent = (bits >> 3) & 0x0FU;
  const unsigned mantissa = bits & 0x07U;
  float magnitude = 0.0F;
  if (exponent == 0x0FU && mantissa == 0x07U) {
    magnitude = std::numeric_limits<float>::quiet_NaN();
  } else if (exponent == 0) {
    magnitude = std::ldexp(static_cast<float>(mantissa), -9);
  } else {
    magnitude =
        std::ldexp(1.0F + static_cast<float>(mantissa) / 8.0F, static_cast<int>(exponent) - 7);
  }
  return negative ? -magnitude : magnitude;
}

// Round to nearest, ties to even, saturating at +-448 (producers clamp before the cast, which
// does not saturate; saturating here too means no finite input becomes NaN). NaN stays NaN.
[[nodiscard]] inline std::uint8_t f32_to_e4m3(float value) {
  const std::uint8_t sign = std::signbit(value) ? 0x80U : 0x00U;
  const float a = std::fabs(value);
  if (std::isnan(a)) return sign | 0x7FU;
  if (a >= 448.0F) return sign | 0x7EU;
  if (a < 0.015625F) {  // below 2^-6: subnormal codes m * 2^-9; m = 8 is the least normal
    return sign | static_cast<std::uint8_t>(std::nearbyint(a * 512.0F));
  }
  const auto bits = std::bit_cast<std::uint32_t>(a);
  const std::uint32_t exponent = (bits >> 23) - 127U + 7U;  // 1..8 here
  const std::uint32_t v = (exponent << 23) | (bits & 0x7FFFFFU);
  std::uint32_t rounded = (v + 0x7FFFFU + ((v >> 20) & 1U)) >> 20;  // ties to even
  if (rounded > 0x7EU) rounded = 0x7EU;
  return sign | static_cast<std::uint8_t>(rounded);
}

}  // namespace pagedserve::kernels
