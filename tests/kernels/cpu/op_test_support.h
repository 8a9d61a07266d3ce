#pragma once
// Helpers for op tests: random host data, backend buffers filled from host vectors, and a
// max-abs-error comparison against a double-precision reference.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/backend.h"

namespace pagedserve::kernels::testing {

inline std::vector<float> random_floats(std::size_t n, std::uint32_t seed, float scale = 1.0F) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-scale, scale);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

inline buffer to_backend(backend& be, const std::vector<float>& host,
                         std::initializer_list<std::int64_t> shape) {
  buffer b = be.allocate(dtype::f32, shape);
  EXPECT_EQ(b.view().numel(), static_cast<std::int64_t>(host.size()));
  be.copy_from_host(b.view(), host.data());
  return b;
}

inline buffer to_backend(backend& be, const std::vector<std::int32_t>& host) {
  buffer b = be.allocate(dtype::i32, {static_cast<std::int64_t>(host.size())});
  be.copy_from_host(b.view(), host.data());
  return b;
}

inline std::vector<float> to_host(backend& be, const buffer& b) {
  std::vector<float> host(static_cast<std::size_t>(b.view().numel()));
  be.synchronize();
  be.copy_to_host(host.data(), b.view());
  return host;
}

// Largest |got - want| over all elements, relative to max(1, max|want|).
inline double max_rel_error(const std::vector<float>& got, const std::vector<double>& want) {
  EXPECT_EQ(got.size(), want.size());
  double max_err = 0.0;
  double max_ref = 1.0;
  for (std::size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
    max_err = std::max(max_err, std::abs(static_cast<double>(got[i]) - want[i]));
    max_ref = std::max(max_ref, std::abs(want[i]));
  }
  return max_err / max_ref;
}

}  // namespace pagedserve::kernels::testing
