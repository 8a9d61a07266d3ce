// The FP8 W8A8 pieces of the CUDA backend against references computed here from their
// published definitions (vLLM's dynamic per-token quantization; a matmul of decoded e4m3
// codes in double): quantize_rows_e4m3 gives the formula's scales and codes to the bit, and
// gemm_e4m3 (cuBLASLt's FP8 matmul on a GPU, a reference loop on the emulator) matches the
// double-precision product with per-tensor and per-row scales, into f32 and the compute type.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernels/fp8_e4m3.h"
#include "tests/kernels/cuda/cuda_test_support.h"

namespace pagedserve::kernels::testing {
namespace {

using cuda_fp8_gemm = cuda_vs_cpu;

// Finite codes of both signs (0x7F and 0xFF are NaN), spread over the whole range.
std::vector<std::uint8_t> random_codes(std::size_t n, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> magnitude(0, 0x7E);
  std::vector<std::uint8_t> codes(n);
  for (auto& code : codes) {
    code = static_cast<std::uint8_t>(magnitude(gen) | ((gen() & 1U) << 7));
  }
  return codes;
}

buffer upload_bytes(backend& be, const std::vector<std::uint8_t>& bytes,
                    std::initializer_list<std::int64_t> shape) {
  buffer b = be.allocate(dtype::u8, shape);
  be.copy_from_host(b.view(), bytes.data());
  return b;
}

buffer upload_f32(backend& be, const std::vector<float>& values, std::int64_t n) {
  buffer b = be.allocate(dtype::f32, {n});
  be.copy_from_host(b.view(), values.data());
  return b;
}

TEST_P(cuda_fp8_gemm, QuantizeRowsGivesTheFormulasScalesAndCodes) {
  const std::int64_t rows = 5;
  const std::int64_t width = 1000;
  std::vector<float> x = random(static_cast<std::size_t>(rows * width), 21, 3.0F);
  std::fill_n(x.begin() + 2 * width, width, 0.0F);       // an all-zero row takes the floor scale
  x[static_cast<std::size_t>(3 * width + 7)] = 1000.0F;  // a large outlier
  buffer x_gpu = upload(*gpu_, x, {rows, width});
  buffer codes = gpu_->allocate(dtype::u8, {rows, width});
  buffer scales = gpu_->allocate(dtype::f32, {rows});
  quantize_rows_e4m3(*gpu_, codes.view(), scales.view(), x_gpu.view());
  gpu_->synchronize();
  std::vector<std::uint8_t> got_codes(static_cast<std::size_t>(rows * width));
  std::vector<float> got_scales(static_cast<std::size_t>(rows));
  gpu_->copy_to_host(got_codes.data(), codes.view());
  gpu_->copy_to_host(got_scales.data(), scales.view());
  for (std::int64_t r = 0; r < rows; ++r) {
    float largest = 0.0F;
    for (std::int64_t i = 0; i < width; ++i) {
      largest = std::max(largest, std::fabs(x[static_cast<std::size_t>(r * width + i)]));
    }
    const float scale = std::max(largest / 448.0F, 1.0F / (448.0F * 512.0F));
    EXPECT_EQ(got_scales[static_cast<std::size_t>(r)], scale) << "row " << r;
    const float inverse = 1.0F / scale;
    for (std::int64_t i = 0; i < width; ++i) {
      const auto at = static_cast<std::size_t>(r * width + i);
      ASSERT_EQ(got_codes[at], f32_to_e4m3(x[at] * inverse)) << "row " << r << " column " << i;
    }
  }
}

struct gemm_case {
  std::int64_t m, n, k;
  bool per_row_scales;
};

TEST_P(cuda_fp8_gemm, GemmMatchesADoubleReference) {
  const std::vector<gemm_case> cases =
      emulated()
          ? std::vector<gemm_case>{{1, 64, 128, true}, {7, 96, 256, false}, {33, 48, 512, true}}
          : std::vector<gemm_case>{{1, 3072, 2048, true},
                                   {16, 2048, 8192, true},
                                   {256, 2048, 2048, false},
                                   {1000, 1024, 1024, true},
                                   {7, 96, 256, false}};
  std::uint32_t seed = 300;
  for (const gemm_case& c : cases) {
    const auto x = random_codes(static_cast<std::size_t>(c.m * c.k), seed++);
    const auto w = random_codes(static_cast<std::size_t>(c.n * c.k), seed++);
    std::mt19937 gen(seed++);
    std::uniform_real_distribution<float> scale(0.001F, 0.01F);
    std::vector<float> xs(static_cast<std::size_t>(c.per_row_scales ? c.m : 1));
    std::vector<float> ws(static_cast<std::size_t>(c.per_row_scales ? c.n : 1));
    for (float& s : xs) s = scale(gen);
    for (float& s : ws) s = scale(gen);
    std::vector<double> want(static_cast<std::size_t>(c.m * c.n));
    for (std::int64_t r = 0; r < c.m; ++r) {
      for (std::int64_t col = 0; col < c.n; ++col) {
        double sum = 0.0;
        for (std::int64_t i = 0; i < c.k; ++i) {
          sum += static_cast<double>(e4m3_to_f32(x[static_cast<std::size_t>(r * c.k + i)])) *
                 e4m3_to_f32(w[static_cast<std::size_t>(col * c.k + i)]);
        }
        want[static_cast<std::size_t>(r * c.n + col)] =
            sum * xs[c.per_row_scales ? static_cast<std::size_t>(r) : 0] *
            ws[c.per_row_scales ? static_cast<std::size_t>(col) : 0];
      }
    }
    buffer x_codes = upload_bytes(*gpu_, x, {c.m, c.k});
    buffer w_codes = upload_bytes(*gpu_, w, {c.n, c.k});
    buffer x_scales = upload_f32(*gpu_, xs, static_cast<std::int64_t>(xs.size()));
    buffer w_scales = upload_f32(*gpu_, ws, static_cast<std::int64_t>(ws.size()));
    for (dtype out_type : {dtype::f32, type()}) {
      buffer out = gpu_->allocate(out_type, {c.m, c.n});
      gemm_e4m3(*gpu_, out.view(), x_codes.view(), w_codes.view(), x_scales.view(),
                w_scales.view());
      const std::vector<float> got = download(*gpu_, out.view());
      const std::vector<float> want_f(want.begin(), want.end());
      // fp32 accumulation of exact products; the 16-bit outputs round once more.
      const double tolerance = out_type == dtype::f32 ? 1e-4 : 1e-2;
      EXPECT_LE(max_rel_error(got, want_f), tolerance)
          << c.m << "x" << c.n << "x" << c.k << " into dtype " << static_cast<int>(out_type);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(compute_types, cuda_fp8_gemm, all_compute_types, dtype_name);

}  // namespace
}  // namespace pagedserve::kernels::testing
