#pragma once
// Element types of stored weights: sizes, names and exact widening to fp32.
// bf16 and f16 are handled as raw 16-bit patterns (no compiler extension types); the bf16
// conversions are inline because bulk loops (dummy weights, widening) call them per element.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "runtime/model/model_config.h"

namespace pagedserve {

[[nodiscard]] std::size_t element_size(weight_dtype dtype);

// "float32", "bfloat16", "float16" (the names config.json uses).
[[nodiscard]] std::string_view to_string(weight_dtype dtype);

// Exact: every bf16 value is an fp32 value with the low 16 bits zero.
[[nodiscard]] inline float bf16_to_f32(std::uint16_t bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

// Exact IEEE binary16 -> binary32, including subnormals, infinities and NaN payloads.
[[nodiscard]] float f16_to_f32(std::uint16_t bits);

// Round to nearest, ties to even; NaN stays a (quiet) NaN.
[[nodiscard]] inline std::uint16_t f32_to_bf16(float value) {
  const auto bits = std::bit_cast<std::uint32_t>(value);
  if ((bits & 0x7FFFFFFFU) > 0x7F800000U) {  // NaN: truncating could yield inf, so force quiet
    return static_cast<std::uint16_t>((bits >> 16) | 0x0040U);
  }
  const std::uint32_t rounding = 0x7FFFU + ((bits >> 16) & 1U);
  return static_cast<std::uint16_t>((bits + rounding) >> 16);
}

}  // namespace pagedserve
