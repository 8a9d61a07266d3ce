#pragma once
// Philox-4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11): a
// counter-based generator. Output is a pure function of (counter, key), so any thread, or a
// GPU kernel, reproduces draw number i of a stream without producing draws 0..i-1 first.
//
// One round maps counter c = (c0, c1, c2, c3) under key k = (k0, k1) to
//   (hi0, lo0) = 0xD2511F53 * c0   (64-bit product split into high and low 32 bits)
//   (hi1, lo1) = 0xCD9E8D57 * c2
//   c' = (hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0)
// and between rounds the key is bumped: k0 += 0x9E3779B9, k1 += 0xBB67AE85 (mod 2^32).
// Ten rounds, nine bumps. Identical to Random123's philox4x32_10 and cuRAND's Philox4_32_10
// block function; checked against Random123's known-answer vectors in the tests.

#include <array>
#include <cstdint>

namespace pagedserve {

using philox_counter = std::array<std::uint32_t, 4>;
using philox_key = std::array<std::uint32_t, 2>;

[[nodiscard]] constexpr philox_counter philox4x32_10(philox_counter c, philox_key k) {
  constexpr std::uint64_t m0 = 0xD2511F53u;
  constexpr std::uint64_t m1 = 0xCD9E8D57u;
  constexpr std::uint32_t w0 = 0x9E3779B9u;
  constexpr std::uint32_t w1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k[0] += w0;
      k[1] += w1;
    }
    const std::uint64_t p0 = m0 * c[0];
    const std::uint64_t p1 = m1 * c[2];
    const auto hi0 = static_cast<std::uint32_t>(p0 >> 32);
    const auto lo0 = static_cast<std::uint32_t>(p0);
    const auto hi1 = static_cast<std::uint32_t>(p1 >> 32);
    const auto lo1 = static_cast<std::uint32_t>(p1);
    c = {hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0};
  }
  return c;
}

// The uniform in [0, 1) that the sampler uses for draw `draw` of sequence `sequence_index`
// under `seed`:
//   key     = (seed mod 2^32, seed >> 32)
//   counter = (draw mod 2^32, draw >> 32, sequence_index mod 2^32, sequence_index >> 32)
//   x       = philox4x32_10(counter, key)
//   u       = (((x0 << 32) | x1) >> 11) * 2^-53        (53 random bits, exactly a double)
// x2 and x3 are unused (reserved for future per-step needs).
[[nodiscard]] constexpr double philox_uniform(std::uint64_t seed, std::uint64_t sequence_index,
                                              std::uint64_t draw) {
  const philox_key key{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)};
  const philox_counter counter{
      static_cast<std::uint32_t>(draw), static_cast<std::uint32_t>(draw >> 32),
      static_cast<std::uint32_t>(sequence_index), static_cast<std::uint32_t>(sequence_index >> 32)};
  const philox_counter x = philox4x32_10(counter, key);
  const std::uint64_t bits = (std::uint64_t{x[0]} << 32) | x[1];
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

}  // namespace pagedserve
