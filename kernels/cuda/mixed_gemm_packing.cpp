#include "kernels/cuda/mixed_gemm_packing.h"

#include <bit>
#include <cstring>

#include "kernels/check.h"

namespace pagedserve::kernels::cuda {
namespace {

// Nibble p of the word holds code interleave[p] of its 8 inputs.
constexpr int interleave[8] = {0, 2, 4, 6, 1, 3, 5, 7};

std::uint32_t interleave_nibbles(std::uint32_t word) {
  std::uint32_t out = 0;
  for (int p = 0; p < 8; ++p) out |= ((word >> (4 * interleave[p])) & 0xFU) << (4 * p);
  return out;
}

}  // namespace

bool mixed_gemm_supports(const quantized_weight& host) {
  const bool codes = host.format == weight_format::int4 || host.format == weight_format::int8 ||
                     host.format == weight_format::fp8_e4m3;
  if (!codes || host.packing != 0 || host.in_features % 32 != 0) return false;
  if (host.group_size >= host.in_features) return true;
  // A lane's inputs per tile (32 int4 codes, 16 bytes) share one scale.
  const std::int64_t lane_inputs = host.format == weight_format::int4 ? 32 : 16;
  return host.group_size >= lane_inputs &&
         std::has_single_bit(static_cast<std::uint64_t>(host.group_size));
}

int mixed_gemm_group_shift(const quantized_weight& w) {
  if (w.group_size >= w.in_features) return 31;
  return std::countr_zero(static_cast<std::uint64_t>(w.group_size));
}

packed_mixed_weight pack_mixed_gemm_weight(const quantized_weight& host) {
  KERNEL_CHECK("pack_mixed_gemm_weight", mixed_gemm_supports(host));
  packed_mixed_weight p;
  const auto* bytes = host.codes.as<const std::uint8_t>();
  p.codes.assign(bytes, bytes + host.codes.numel());
  if (host.format == weight_format::int4) {
    for (std::size_t at = 0; at + 4 <= p.codes.size(); at += 4) {
      std::uint32_t word = 0;
      std::memcpy(&word, &p.codes[at], 4);  // little-endian: input k's byte k / 2
      word = interleave_nibbles(word);
      std::memcpy(&p.codes[at], &word, 4);
    }
  }
  const std::int64_t groups = host.num_groups();
  const float* scales = host.scales.as<const float>();
  p.scales.resize(static_cast<std::size_t>(host.out_features * groups));
  for (std::int64_t n = 0; n < host.out_features; ++n) {
    for (std::int64_t g = 0; g < groups; ++g) {
      p.scales[n * groups + g] = scales[(n / host.block_rows) * groups + g];
    }
  }
  return p;
}

}  // namespace pagedserve::kernels::cuda
