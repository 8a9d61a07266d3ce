#pragma once
// Philox-4x32-10 on the device: the same function, bit for bit, as the host sampler's
// runtime/sampling/philox.h (which documents it and the uniform built from it); the sampling
// tests check the two against each other on the same (seed, sequence, draw) triples.

#include <cstdint>

namespace pagedserve::kernels::cuda {

__device__ __forceinline__ void philox4x32_10(std::uint32_t (&c)[4], std::uint32_t k0,
                                              std::uint32_t k1) {
  constexpr std::uint32_t m0 = 0xD2511F53U;
  constexpr std::uint32_t m1 = 0xCD9E8D57U;
#pragma unroll
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += 0x9E3779B9U;
      k1 += 0xBB67AE85U;
    }
    const std::uint64_t p0 = std::uint64_t{m0} * c[0];
    const std::uint64_t p1 = std::uint64_t{m1} * c[2];
    const auto hi0 = static_cast<std::uint32_t>(p0 >> 32);
    const auto lo0 = static_cast<std::uint32_t>(p0);
    const auto hi1 = static_cast<std::uint32_t>(p1 >> 32);
    const auto lo1 = static_cast<std::uint32_t>(p1);
    const std::uint32_t c1 = c[1];
    const std::uint32_t c3 = c[3];
    c[0] = hi1 ^ c1 ^ k0;
    c[1] = lo1;
    c[2] = hi0 ^ c3 ^ k1;
    c[3] = lo0;
  }
}

// philox_uniform(seed, sequence_index, draw) of runtime/sampling/philox.h: 53 bits in [0, 1).
__device__ __forceinline__ double philox_uniform(std::uint64_t seed, std::uint64_t sequence_index,
                                                 std::uint64_t draw) {
  std::uint32_t c[4] = {static_cast<std::uint32_t>(draw), static_cast<std::uint32_t>(draw >> 32),
                        static_cast<std::uint32_t>(sequence_index),
                        static_cast<std::uint32_t>(sequence_index >> 32)};
  philox4x32_10(c, static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32));
  const std::uint64_t bits = (std::uint64_t{c[0]} << 32) | c[1];
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

}  // namespace pagedserve::kernels::cuda
