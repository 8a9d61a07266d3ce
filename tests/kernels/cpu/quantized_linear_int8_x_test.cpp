// linear with int4 weights and int8 activations (quantized_linear_options::int8_activations),
// on every CPU kernel set this processor runs, against an independent reference: x quantized
// here per weight group as llama.cpp's Q8_0 does (q = round(x * 127 / max |x|), x ~ q max |x|
// / 127; groups in the weights' code order, so act-order too), W dequantized from the
// contract of kernels/ops.h, the product in double. The quantization moves outputs by ~0.4%,
// far past the 1e-5 rounding bound, so matching this reference shows the int8 path ran;
// where it may not run (a set without int4 x int8 products, groups that are not whole
// 64-column steps, 16 rows or more) the output must match the exact reference instead.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/cpu/linear_op.h"
#include "kernels/cpu/simd/simd_kernels.h"
#include "tests/kernels/cpu/quantized_layer_support.h"

namespace pagedserve::kernels::testing {
namespace {

class quantized_linear_int8_x : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    set_ = cpu::simd::kernels_named(GetParam());
    if (set_ == nullptr) GTEST_SKIP() << "this processor does not run " << GetParam();
  }

  // Each output within 1e-5 of the sum of |x| |w| it is made of, against the Q8 reference
  // where the int8 path applies, else the exact one.
  void expect_matches(const layer_shape& shape, std::int64_t m) const {
    host_layer l = random_layer(shape, static_cast<std::uint32_t>(m * 5 + shape.in));
    const std::vector<float> x = random_floats(static_cast<std::size_t>(m * l.in), 17);
    std::vector<float> got(static_cast<std::size_t>(m * l.out), -7.0F);
    linear_params p;
    p.x = tensor::make(const_cast<float*>(x.data()), dtype::f32, {m, l.in});
    p.out = tensor::make(got.data(), dtype::f32, {m, l.out});
    p.quantized = l.view();
    cpu::quantized_linear(p, *set_, {true});
    const bool int8 = set_->int4_times_int8_x && l.format == weight_format::int4 && m < 16 &&
                      (l.groups() == 1 || l.group_size % 64 == 0);
    const std::vector<double> want_x =
        int8 ? q8_reference_x(l, x, m) : std::vector<double>(x.begin(), x.end());
    const std::vector<double> w = reference_weight(l);
    const std::vector<double> w_magnitude = reference_weight(l, true);
    for (std::int64_t i = 0; i < m; ++i) {
      for (std::int64_t n = 0; n < l.out; ++n) {
        double want = 0.0;
        double magnitude = 0.0;
        for (std::int64_t k = 0; k < l.in; ++k) {
          const auto at = static_cast<std::size_t>(n * l.in + k);
          want += want_x[static_cast<std::size_t>(i * l.in + k)] * w[at];
          magnitude +=
              std::abs(double{x[static_cast<std::size_t>(i * l.in + k)]}) * w_magnitude[at];
        }
        ASSERT_NEAR(got[static_cast<std::size_t>(i * l.out + n)], want, 1e-5 * magnitude)
            << (int8 ? "int8" : "fp32") << " x, m " << m << " row " << i << " column " << n;
      }
    }
  }

  const cpu::simd::kernel_set* set_ = nullptr;
};

TEST_P(quantized_linear_int8_x, int4_products_match_q8_activations) {
  constexpr auto f = weight_format::int4;
  for (const layer_shape& shape : {layer_shape{f, 64, 704, 64},            // 11 groups
                                   layer_shape{f, 50, 200, 64},            // partial last group
                                   layer_shape{f, 37, 201, 201},           // one group, odd in
                                   layer_shape{f, 40, 640, 128, 1, true},  // act-order
                                   layer_shape{f, 9, 4100, 4100},          // one long group
                                   layer_shape{f, 48, 256, 32}}) {         // groups of 32: fp32 x
    for (const std::int64_t m : {1, 2, 3, 4, 7, 16}) {
      SCOPED_TRACE("out " + std::to_string(shape.out) + " in " + std::to_string(shape.in) +
                   " group " + std::to_string(shape.group_size));
      expect_matches(shape, m);
    }
  }
}

// int8 and fp8 weights keep fp32 activations.
TEST_P(quantized_linear_int8_x, other_formats_stay_exact) {
  expect_matches({weight_format::int8, 33, 256, 128}, 1);
  expect_matches({weight_format::fp8_e4m3, 40, 256, 128, 128}, 1);
}

INSTANTIATE_TEST_SUITE_P(isa, quantized_linear_int8_x,
                         ::testing::Values("avx512_vnni", "avx512", "avx2", "generic"),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           return param.param;
                         });

}  // namespace
}  // namespace pagedserve::kernels::testing
