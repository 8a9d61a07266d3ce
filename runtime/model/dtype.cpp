#include "runtime/model/dtype.h"

#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "runtime/model/checkpoint.h"

namespace pagedserve {

std::size_t element_size(weight_dtype dtype) {
  switch (dtype) {
    case weight_dtype::f32:
      return 4;
    case weight_dtype::bf16:
    case weight_dtype::f16:
      return 2;
  }
  std::abort();
}

std::string_view to_string(weight_dtype dtype) {
  switch (dtype) {
    case weight_dtype::f32:
      return "float32";
    case weight_dtype::bf16:
      return "bfloat16";
    case weight_dtype::f16:
      return "float16";
  }
  std::abort();
}

float f16_to_f32(std::uint16_t bits) {
  const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000U) << 16;
  const std::uint32_t exponent = (bits >> 10) & 0x1FU;
  std::uint32_t mantissa = bits & 0x3FFU;
  if (exponent == 0x1FU) {  // inf or NaN: keep the payload in the top mantissa bits
    return std::bit_cast<float>(sign | 0x7F800000U | (mantissa << 13));
  }
  if (exponent != 0) {  // normal: rebias 15 -> 127
    return std::bit_cast<float>(sign | ((exponent + 112U) << 23) | (mantissa << 13));
  }
  if (mantissa == 0) return std::bit_cast<float>(sign);  // signed zero
  // Subnormal: value = mantissa * 2^-24, normal in fp32. Shift until the implicit bit appears.
  std::uint32_t shifted_exponent = 113;  // 2^-14 expressed with fp32 bias
  while ((mantissa & 0x400U) == 0) {
    mantissa <<= 1;
    --shifted_exponent;
  }
  mantissa &= 0x3FFU;
  return std::bit_cast<float>(sign | (shifted_exponent << 23) | (mantissa << 13));
}

void convert_to_f32(const host_tensor& tensor, std::span<float> out) {
  const auto count = static_cast<std::size_t>(tensor.numel());
  if (out.size() != count || tensor.bytes.size() != count * element_size(tensor.dtype)) {
    std::fprintf(stderr, "convert_to_f32(%s): %zu elements, %zu bytes, output of %zu floats\n",
                 tensor.name.c_str(), count, tensor.bytes.size(), out.size());
    std::abort();
  }
  const std::byte* src = tensor.bytes.data();
  if (tensor.dtype == weight_dtype::f32) {
    if (count != 0) std::memcpy(out.data(), src, count * sizeof(float));
    return;
  }
  const bool is_bf16 = tensor.dtype == weight_dtype::bf16;
  for (std::size_t i = 0; i < count; ++i) {
    std::uint16_t bits = 0;
    std::memcpy(&bits, src + 2 * i, sizeof bits);  // source may be unaligned
    out[i] = is_bf16 ? bf16_to_f32(bits) : f16_to_f32(bits);
  }
}

}  // namespace pagedserve
