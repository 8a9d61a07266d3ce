#pragma once
// Quantized layers on the host for the CPU linear tests: random int4 / int8 / fp8 layers in
// the layout of kernels::quantized_weight, and W dequantized from the contract of
// kernels/ops.h in double (the independent reference).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "kernels/ops.h"
#include "tests/kernels/cpu/op_test_support.h"

namespace pagedserve::kernels::testing {

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
inline double e4m3_value(std::uint8_t bits) {
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

inline host_layer empty_layer(const layer_shape& shape) {
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
inline host_layer random_layer(const layer_shape& shape, std::uint32_t seed) {
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

// W [out, in] in x's column order, in double; with `magnitudes`, what the kernels' rounding
// scales with instead: (|q| + |z|) |s| for int formats, whose kernels sum q x and z x apart
// (the zero point factored out of the group), |w| for fp8.
inline std::vector<double> reference_weight(const host_layer& l, bool magnitudes = false) {
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
        const int z = l.zeros[static_cast<std::size_t>(n * l.groups() + g)];
        value = magnitudes ? (q + z) * std::abs(s) : (q - z) * s;
      }
      if (magnitudes) value = std::abs(value);
      const std::int64_t column = l.order.empty() ? k : l.order[static_cast<std::size_t>(k)];
      w[static_cast<std::size_t>(n * l.in + column)] = value;
    }
  }
  return w;
}

// x as an int8-activation path sees it (llama.cpp's Q8_0 per weight group, in the weights'
// code order: q = round(x * 127 / max |x|), x ~ q max |x| / 127), in fp32 steps as the ops
// compute them.
inline std::vector<double> q8_reference_x(const host_layer& l, const std::vector<float>& x,
                                          std::int64_t m) {
  std::vector<double> out(x.size());
  const std::int64_t group = l.groups() == 1 ? l.in : l.group_size;
  auto column = [&](std::int64_t k) { return l.order.empty() ? k : l.order[k]; };
  for (std::int64_t i = 0; i < m; ++i) {
    const float* row = x.data() + i * l.in;
    for (std::int64_t begin = 0; begin < l.in; begin += group) {
      const std::int64_t end = std::min(begin + group, l.in);
      float max_abs = 0.0F;
      for (std::int64_t k = begin; k < end; ++k)
        max_abs = std::max(max_abs, std::fabs(row[column(k)]));
      const float inverse = 127.0F / max_abs;
      const float scale = max_abs / 127.0F;
      for (std::int64_t k = begin; k < end; ++k) {
        const float q = std::clamp(std::nearbyint(row[column(k)] * inverse), -127.0F, 127.0F);
        out[static_cast<std::size_t>(i * l.in + column(k))] = double{q} * double{scale};
      }
    }
  }
  return out;
}

}  // namespace pagedserve::kernels::testing
