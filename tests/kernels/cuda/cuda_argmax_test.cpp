// Greedy sampling on the device against the CPU sampler's greedy rule, written out here:
// the largest logit, lowest id on ties, NaN as -inf, token 0 for a row with no finite max.

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "tests/kernels/cuda/cuda_test_support.h"

namespace pagedserve::kernels::testing {
namespace {

using cuda_argmax = cuda_vs_cpu;

std::int32_t reference_argmax(const float* row, std::int64_t vocab) {
  std::int32_t best = 0;
  float best_value = -INFINITY;
  for (std::int64_t i = 0; i < vocab; ++i) {
    const float v = std::isnan(row[i]) ? -INFINITY : row[i];
    if (v > best_value) {
      best_value = v;
      best = static_cast<std::int32_t>(i);
    }
  }
  return best;
}

// Row 0 random; row 1 a tie between two ids; row 2 NaN everywhere but one -inf; row 3 two
// +inf; further rows random.
std::vector<float> make_logits(std::int64_t rows, std::int64_t vocab, std::vector<float> base) {
  auto at = [&](std::int64_t r, std::int64_t i) -> float& {
    return base[static_cast<std::size_t>(r * vocab + i)];
  };
  if (rows > 1) {
    at(1, vocab / 3) = 100.0F;
    at(1, vocab - 1) = 100.0F;
  }
  if (rows > 2) {
    for (std::int64_t i = 0; i < vocab; ++i) at(2, i) = std::numeric_limits<float>::quiet_NaN();
    at(2, vocab / 2) = -INFINITY;
  }
  if (rows > 3) {
    at(3, vocab - 2) = INFINITY;
    at(3, 5) = INFINITY;
  }
  return base;
}

TEST_P(cuda_argmax, PicksTheSameTokenAsTheGreedyRule) {
  for (std::int64_t vocab : {1000, 128256}) {
    for (std::int64_t rows : {1, 5, 256}) {
      const auto logits =
          make_logits(rows, vocab, random(static_cast<std::size_t>(rows * vocab), 30, 10.0F));
      buffer logits_gpu = gpu_->allocate(dtype::f32, {rows, vocab});
      gpu_->copy_from_host(logits_gpu.view(), logits.data());
      buffer ids_gpu = gpu_->allocate(dtype::i32, {rows});
      argmax_rows(*gpu_, logits_gpu.view(), ids_gpu.view());
      std::vector<std::int32_t> ids(static_cast<std::size_t>(rows));
      gpu_->synchronize();
      gpu_->copy_to_host(ids.data(), ids_gpu.view());
      for (std::int64_t r = 0; r < rows; ++r) {
        EXPECT_EQ(ids[static_cast<std::size_t>(r)],
                  reference_argmax(logits.data() + r * vocab, vocab))
            << "vocab " << vocab << " row " << r << " of " << rows;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(compute_types, cuda_argmax, ::testing::Values(dtype::f32), dtype_name);

}  // namespace
}  // namespace pagedserve::kernels::testing
