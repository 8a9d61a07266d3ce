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

namespace pagedserve::kernels::testing {
namespace {

using cpu::simd::kernel_set;

// A quantized layer on the host, in the layout of kernels::quantized_weight.
struct host_layer {
  weight_format format = weight_format::int4;
  std::int64_t out = 0;
  std::int64_t in = 0;
  std::int64_t group_size = 0;
  std::int64_t block_rows = 1;
  std::vector<std::uint8_t> codes;
  std::vector<float> scales;
  std::vector<std::uint8_t> zeros;
  std::vector<std::int32_t> order;

  [[nodiscard]] std::int64_t groups() const { return (in + group_size - 1) / group_size; }
  [[nodiscard]] std::int64_t row_bytes() const {
    return format == weight_format::int4 ? (in + 1) / 2 : in;
  }
  [[nodiscard]] quantized_weight view() {
    quantized_weight w;
    w.format = format;
    w.out_features = out;
    w.in_features = in;
    w.group_size = group_size;
    w.block_rows = block_rows;
    w.codes = tensor::make(codes.data(), dtype::u8, {out, row_bytes()});
    w.scales =
        tensor::make(scales.data(), dtype::f32, {(out + block_rows - 1) / block_rows, groups()});
    if (!zeros.empty()) w.zeros = tensor::make(zeros.data(), dtype::u8, {out, groups()});
    if (!order.empty()) w.input_order = tensor::make(order.data(), dtype::i32, {in});
    return w;
  }
};

// e4m3fn from its definition: 4 exponent bits (bias 7), 3 mantissa bits, subnormals m * 2^-9.
double e4m3_value(std::uint8_t bits) {
  const int exponent = (bits >> 3) & 0x0F;
  const int mantissa = bits & 0x07;
  const double magnitude =
      exponent == 0 ? std::ldexp(mantissa, -9) : std::ldexp(1.0 + mantissa / 8.0, exponent - 7);
  return (bits & 0x80) != 0 ? -magnitude : magnitude;
}

struct layer_shape {
  weight_format format;
  std::int64_t out;
  std::int64_t in;
  std::int64_t group_size;
  std::int64_t block_rows = 1;
  bool act_order = false;
};

host_layer empty_layer(const layer_shape& shape) {
  host_layer l;
  l.format = shape.format;
  l.out = shape.out;
  l.in = shape.in;
  l.group_size = shape.group_size;
  l.block_rows = shape.block_rows;
  return l;
}

// Random codes (every byte, so a half-used last int4 byte carries a high nibble the op must
// ignore), scales of either sign, zero points anywhere in the code range.
host_layer random_layer(const layer_shape& shape, std::uint32_t seed) {
  std::mt19937 gen(seed);
  host_layer l = empty_layer(shape);
  std::uniform_int_distribution<int> byte(0, 255);
  l.codes.resize(static_cast<std::size_t>(l.out * l.row_bytes()));
  for (std::uint8_t& c : l.codes) {
    c = static_cast<std::uint8_t>(byte(gen));
    if (l.format == weight_format::fp8_e4m3 && (c & 0x7F) == 0x7F) c ^= 0x01;  // never NaN
  }
  const std::int64_t scale_rows = (l.out + l.block_rows - 1) / l.block_rows;
  l.scales = random_floats(static_cast<std::size_t>(scale_rows * l.groups()), seed + 1, 0.1F);
  if (l.format != weight_format::fp8_e4m3) {
    std::uniform_int_distribution<int> zero(0, l.format == weight_format::int4 ? 15 : 255);
    l.zeros.resize(static_cast<std::size_t>(l.out * l.groups()));
    for (std::uint8_t& z : l.zeros) z = static_cast<std::uint8_t>(zero(gen));
  }
  if (shape.act_order) {
    l.order.resize(static_cast<std::size_t>(l.in));
    std::iota(l.order.begin(), l.order.end(), 0);
    std::shuffle(l.order.begin(), l.order.end(), gen);
  }
  return l;
}

// W [out, in] in x's column order, in double.
std::vector<double> reference_weight(const host_layer& l) {
  std::vector<double> w(static_cast<std::size_t>(l.out * l.in));
  for (std::int64_t n = 0; n < l.out; ++n) {
    for (std::int64_t k = 0; k < l.in; ++k) {
      const std::int64_t g = k / l.group_size;
      const double s = l.scales[static_cast<std::size_t>((n / l.block_rows) * l.groups() + g)];
      const std::uint8_t byte = l.codes[static_cast<std::size_t>(
          n * l.row_bytes() + (l.format == weight_format::int4 ? k / 2 : k))];
      double value = 0.0;
      if (l.format == weight_format::fp8_e4m3) {
        value = e4m3_value(byte) * s;
      } else {
        const int q =
            l.format == weight_format::int4 ? (k % 2 == 0 ? byte & 0x0F : byte >> 4) : byte;
        value = (q - l.zeros[static_cast<std::size_t>(n * l.groups() + g)]) * s;
      }
      const std::int64_t column = l.order.empty() ? k : l.order[static_cast<std::size_t>(k)];
      w[static_cast<std::size_t>(n * l.in + column)] = value;
    }
  }
  return w;
}

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

  // Each output within 1e-5 of the sum of |x| |w| it is made of (fp32 rounding of a sum).
  void expect_matches_reference(const layer_shape& shape, std::int64_t m, bool with_bias) const {
    host_layer l = random_layer(shape, static_cast<std::uint32_t>(m * 7 + shape.in));
    const auto x = random_floats(static_cast<std::size_t>(m * l.in), 11);
    auto bias = random_floats(static_cast<std::size_t>(l.out), 12);
    const std::vector<float> got = run(l, x, m, with_bias ? &bias : nullptr);
    const std::vector<double> w = reference_weight(l);
    for (std::int64_t i = 0; i < m; ++i) {
      for (std::int64_t n = 0; n < l.out; ++n) {
        double want = with_bias ? bias[static_cast<std::size_t>(n)] : 0.0;
        double magnitude = std::abs(want);
        for (std::int64_t k = 0; k < l.in; ++k) {
          const double product =
              x[static_cast<std::size_t>(i * l.in + k)] * w[static_cast<std::size_t>(n * l.in + k)];
          want += product;
          magnitude += std::abs(product);
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
  expect_all_shapes({{f, 64, 704, 64},             // 11 groups
                     {f, 50, 200, 64},             // partial last group
                     {f, 37, 201, 201},            // odd in, one group per row
                     {f, 40, 255, 64},             // odd in, partial group and chunk
                     {f, 24, 96, 48},              // groups end inside a chunk: scalar path
                     {f, 48, 256, 32, 1, true}});  // act-order
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

INSTANTIATE_TEST_SUITE_P(isa, quantized_linear, ::testing::Values("avx512", "avx2", "generic"),
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
