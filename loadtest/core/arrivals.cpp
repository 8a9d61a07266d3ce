#include "loadtest/core/arrivals.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numbers>
#include <random>

namespace pagedserve::loadtest {

namespace {

// Uniform in the open interval (0, 1) from the top 53 bits of one engine output.
double uniform_open01(std::mt19937_64& rng) {
  return (static_cast<double>(rng() >> 11U) + 0.5) * 0x1.0p-53;
}

// Standard normal by Box-Muller (the cosine half only, so each draw uses two outputs).
double standard_normal(std::mt19937_64& rng) {
  const double u1 = uniform_open01(rng);
  const double u2 = uniform_open01(rng);
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

// Gamma(shape, 1) by Marsaglia and Tsang (2000). For shape < 1 it draws Gamma(shape + 1)
// and multiplies by U^(1 / shape), their boost for small shapes.
double standard_gamma(std::mt19937_64& rng, double shape) {
  if (shape < 1.0) {
    const double g = standard_gamma(rng, shape + 1.0);
    return g * std::pow(uniform_open01(rng), 1.0 / shape);
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    const double x = standard_normal(rng);
    const double t = 1.0 + c * x;
    if (t <= 0.0) {
      continue;
    }
    const double v = t * t * t;
    const double u = uniform_open01(rng);
    if (u < 1.0 - 0.0331 * x * x * x * x ||
        std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) {
      return d * v;
    }
  }
}

}  // namespace

std::vector<double> arrival_offsets(std::size_t num_requests, const arrival_spec& spec,
                                    std::uint64_t seed) {
  if (!(spec.request_rate > 0.0) || !(spec.burstiness > 0.0) || !std::isfinite(spec.burstiness)) {
    std::fprintf(stderr, "arrival_offsets: request_rate %g and burstiness %g must be > 0\n",
                 spec.request_rate, spec.burstiness);
    std::abort();
  }
  std::vector<double> offsets(num_requests, 0.0);
  if (std::isinf(spec.request_rate)) {
    return offsets;
  }
  std::mt19937_64 rng(seed);
  const double scale = 1.0 / (spec.request_rate * spec.burstiness);
  for (std::size_t i = 1; i < num_requests; ++i) {
    offsets[i] = offsets[i - 1] + scale * standard_gamma(rng, spec.burstiness);
  }
  return offsets;
}

}  // namespace pagedserve::loadtest
