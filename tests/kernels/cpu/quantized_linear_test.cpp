// linear with int4, int8 and fp8 e4m3 weights, on every CPU kernel set this processor runs,
// against an independent reference: W dequantized here from the contract of kernels/ops.h,
// then x W^T in double. Shapes cover partial last groups and blocks, odd in_features for
// int4, one group per row, groups that end inside a chunk of codes (the scalar path),
// act-order input_order, rows of x on both sides of the fused / dequantized split, and bias.
// Every non-NaN e4m3 code, subnormals and negatives included, must decode exactly.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/linear_op.h"
#include "kernels/cpu/simd/simd_kernels.h"
#include "tests/kernels/cpu/op_test_support.h"
#include "tests/kernels/cpu/quantized_layer_support.h"

namespace pagedserve::kernels::testing {
namespace {

using cpu::simd::kernel_set;

class quantized_linear : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    set_ = cpu::simd::kernels_named(GetParam());
    if (set_ == nullptr) GTEST_SKIP() << "this processor does not run " << GetParam();
  }

  std::vector<float> run(host_layer& l, const std::vector<float>& x, std::int64_t m,
                         std::vector<float>* bias) const {
    std::vector<float> out(static_cast<std::size_t>(m * l.out), -7.0F);
    linear_params p;
    p.x = tensor::make(const_cast<float*>(x.data()), dtype::f32, {m, l.in});
    p.out = tensor::make(out.data(), dtype::f32, {m, l.out});
    if (bias != nullptr) p.bias = tensor::make(bias->data(), dtype::f32, {l.out});
    p.quantized = l.view();
    cpu::quantized_linear(p, *set_);
    return out;
  }

  // Each output within 1e-5 of the sum of |x| |w| it is made of (fp32 rounding of a sum; for
  // int formats |w| is (|q| + |z|) |s|, see reference_weight).
  void expect_matches_reference(const layer_shape& shape, std::int64_t m, bool with_bias) const {
    expect_matches_reference(shape, random_floats(static_cast<std::size_t>(m * shape.in), 11), m,
                             with_bias);
  }

  void expect_matches_reference(const layer_shape& shape, const std::vector<float>& x,
                                std::int64_t m, bool with_bias) const {
    host_layer l = random_layer(shape, static_cast<std::uint32_t>(m * 7 + shape.in));
    auto bias = random_floats(static_cast<std::size_t>(l.out), 12);
    const std::vector<float> got = run(l, x, m, with_bias ? &bias : nullptr);
    const std::vector<double> w = reference_weight(l);
    const std::vector<double> w_magnitude = reference_weight(l, true);
    for (std::int64_t i = 0; i < m; ++i) {
      for (std::int64_t n = 0; n < l.out; ++n) {
        double want = with_bias ? bias[static_cast<std::size_t>(n)] : 0.0;
        double magnitude = std::abs(want);
        for (std::int64_t k = 0; k < l.in; ++k) {
          const double x_k = x[static_cast<std::size_t>(i * l.in + k)];
          const double bound = w_magnitude[static_cast<std::size_t>(n * l.in + k)];
          want += x_k * w[static_cast<std::size_t>(n * l.in + k)];
          magnitude += std::abs(x_k) * bound;
        }
        ASSERT_NEAR(got[static_cast<std::size_t>(i * l.out + n)], want, 1e-5 * magnitude)
            << "m " << m << " row " << i << " column " << n;
      }
    }
  }

  void expect_all_shapes(const std::vector<layer_shape>& shapes) const {
    for (const layer_shape& shape : shapes) {
      for (const std::int64_t m : {1, 3, 4, 7, 16, 33}) {
        SCOPED_TRACE("out " + std::to_string(shape.out) + " in " + std::to_string(shape.in) +
                     " group " + std::to_string(shape.group_size));
        expect_matches_reference(shape, m, m % 2 == 1);
      }
    }
  }

  const kernel_set* set_ = nullptr;
};

TEST_P(quantized_linear, int4_matches_the_reference) {
  constexpr auto f = weight_format::int4;
  expect_all_shapes({{f, 64, 704, 64},            // 11 groups
                     {f, 50, 200, 64},            // partial last group
                     {f, 37, 201, 201},           // odd in, one group per row
                     {f, 40, 255, 64},            // odd in, partial group and chunk
                     {f, 24, 96, 48},             // groups end inside a chunk: scalar path
                     {f, 48, 256, 32, 1, true},   // act-order
                     {f, 40, 640, 128, 1, true},  // act-order, groups of whole 64-column steps
                     {f, 9, 4100, 4100}});        // one long group, partial last step
}

// One column of x 1000 times the rest: the fp32 paths' rounding follows each product.
TEST_P(quantized_linear, int4_decode_with_an_outlier_in_x) {
  constexpr auto f = weight_format::int4;
  for (const layer_shape& shape : {layer_shape{f, 64, 704, 64}, layer_shape{f, 37, 201, 201}}) {
    std::vector<float> x = random_floats(static_cast<std::size_t>(shape.in), 21);
    x[static_cast<std::size_t>(shape.in / 3)] = 1000.0F;
    expect_matches_reference(shape, x, 1, false);
  }
}

TEST_P(quantized_linear, int8_matches_the_reference) {
  constexpr auto f = weight_format::int8;
  expect_all_shapes({{f, 64, 704, 64},
                     {f, 50, 200, 64},
                     {f, 33, 130, 130},  // per-channel
                     {f, 30, 200, 40},   // groups end inside a chunk
                     {f, 48, 256, 128, 1, true}});
}

TEST_P(quantized_linear, fp8_matches_the_reference) {
  constexpr auto f = weight_format::fp8_e4m3;
  expect_all_shapes({{f, 200, 300, 128, 128},  // 128 x 128 blocks, partial both ways
                     {f, 70, 150, 150, 70},    // per-tensor
                     {f, 40, 100, 100, 1},     // per-channel
                     {f, 24, 100, 40, 8},      // groups end inside a chunk
                     {f, 48, 256, 128, 16, true}});
}

// Row 0 holds the 254 non-NaN codes, row 1 the same reversed; scale 1/2 (exact). One-hot
// rows of x pick single weights, which must come out exact: one row at a time (fused path)
// and all at once (dequantized path).
TEST_P(quantized_linear, every_e4m3_code_decodes_exactly) {
  host_layer l = empty_layer({weight_format::fp8_e4m3, 2, 254, 254, 2});
  for (int c = 0; c < 256; ++c) {
    if ((c & 0x7F) != 0x7F) l.codes.push_back(static_cast<std::uint8_t>(c));
  }
  l.codes.insert(l.codes.end(), l.codes.rbegin(), l.codes.rend());
  l.scales = {0.5F};
  std::vector<float> identity(static_cast<std::size_t>(l.in * l.in), 0.0F);
  for (std::int64_t k = 0; k < l.in; ++k) identity[static_cast<std::size_t>(k * l.in + k)] = 1.0F;
  const std::vector<float> all = run(l, identity, l.in, nullptr);
  for (std::int64_t k = 0; k < l.in; ++k) {
    const std::vector<float> one_hot(identity.begin() + k * l.in,
                                     identity.begin() + (k + 1) * l.in);
    const std::vector<float> one = run(l, one_hot, 1, nullptr);
    for (std::int64_t n = 0; n < 2; ++n) {
      const auto code = l.codes[static_cast<std::size_t>(n * l.in + k)];
      const double want = e4m3_value(code) * 0.5;
      EXPECT_EQ(one[static_cast<std::size_t>(n)], want) << "code " << int{code};
      EXPECT_EQ(all[static_cast<std::size_t>(k * 2 + n)], want) << "code " << int{code};
    }
  }
}

INSTANTIATE_TEST_SUITE_P(isa, quantized_linear,
                         ::testing::Values("avx512_vnni", "avx512", "avx2", "generic"),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           return param.param;
                         });

TEST(cpu_backend_quantized, computes_with_every_format_and_linear_reads_the_codes) {
  const auto be = make_cpu_backend();
  for (const auto f :
       {weight_format::dense, weight_format::int4, weight_format::int8, weight_format::fp8_e4m3}) {
    EXPECT_TRUE(be->computes_with(f));
  }
  host_layer l = random_layer({weight_format::int4, 96, 128, 64}, 5);
  const auto x = random_floats(static_cast<std::size_t>(2 * l.in), 6);
  std::vector<float> out(static_cast<std::size_t>(2 * l.out));
  linear_params p;
  p.x = tensor::make(const_cast<float*>(x.data()), dtype::f32, {2, l.in});
  p.out = tensor::make(out.data(), dtype::f32, {2, l.out});
  p.quantized = l.view();
  be->linear(p);
  const std::vector<double> w = reference_weight(l);
  std::vector<double> want(out.size(), 0.0);
  for (std::int64_t i = 0; i < 2; ++i) {
    for (std::int64_t n = 0; n < l.out; ++n) {
      for (std::int64_t k = 0; k < l.in; ++k) {
        want[static_cast<std::size_t>(i * l.out + n)] +=
            x[static_cast<std::size_t>(i * l.in + k)] * w[static_cast<std::size_t>(n * l.in + k)];
      }
    }
  }
  EXPECT_LT(max_rel_error(out, want), 1e-5);
}

}  // namespace
}  // namespace pagedserve::kernels::testing
