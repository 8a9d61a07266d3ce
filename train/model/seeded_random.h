#pragma once
// seeded_random: splitmix64 with Box-Muller normals. Written out here rather than taken from
// <random>, whose distributions may differ between standard libraries: the same seed gives
// the same model everywhere. The state is one word, so a checkpoint can resume it.

#include <cmath>
#include <cstdint>
#include <numbers>

namespace pagedserve::train {

class seeded_random {
 public:
  explicit seeded_random(std::uint64_t seed) : state_(seed) {}

  std::uint64_t next_u64() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31U);
  }
  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next_u64() >> 11U) * 0x1.0p-53; }
  // Uniform in [0, n).
  std::uint64_t below(std::uint64_t n) { return next_u64() % n; }
  double normal() {
    const double u1 = 1.0 - uniform();  // (0, 1]: log is finite
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  }
  [[nodiscard]] std::uint64_t state() const { return state_; }

 private:
  std::uint64_t state_;
};

}  // namespace pagedserve::train
