#pragma once
// bf16 <-> f32 on the host (no CUDA types): round-to-nearest-even, NaN stays NaN. Used to
// upload fp32 checkpoints to a bf16 CUDA backend and to read bf16 results back in tests.

#include <cstdint>
#include <cstring>

namespace pagedserve::kernels::cuda {

[[nodiscard]] inline std::uint16_t f32_to_bf16_bits(float value) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof(bits));
  if ((bits & 0x7FFFFFFFU) > 0x7F800000U) return static_cast<std::uint16_t>((bits >> 16) | 0x40U);
  bits += 0x7FFFU + ((bits >> 16) & 1U);
  return static_cast<std::uint16_t>(bits >> 16);
}

[[nodiscard]] inline float bf16_bits_to_f32(std::uint16_t bits) {
  const std::uint32_t wide = std::uint32_t{bits} << 16;
  float value = 0.0F;
  std::memcpy(&value, &wide, sizeof(value));
  return value;
}

}  // namespace pagedserve::kernels::cuda
