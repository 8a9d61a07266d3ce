#include "runtime/quant/quantized_linear.h"

namespace pagedserve::quant {

using kernels::weight_format;

std::uint8_t quantized_linear::code(std::int64_t n, std::int64_t k) const {
  if (format == weight_format::int4) {
    const std::int64_t row_bytes = (in_features + 1) / 2;
    const std::uint8_t byte = codes[static_cast<std::size_t>(n * row_bytes + k / 2)];
    return (k % 2 == 0) ? byte & 0x0FU : byte >> 4;
  }
  return codes[static_cast<std::size_t>(n * in_features + k)];
}

std::int64_t quantized_linear::num_bytes() const {
  return static_cast<std::int64_t>(codes.size() + scales.size() * sizeof(float) + zeros.size() +
                                   input_order.size() * sizeof(std::int32_t));
}

kernels::quantized_weight quantized_linear::host_view() const {
  using kernels::dtype;
  using kernels::tensor;
  kernels::quantized_weight w;
  w.format = format;
  w.out_features = out_features;
  w.in_features = in_features;
  w.group_size = group_size;
  w.block_rows = block_rows;
  w.fp8_activations = fp8_activations;
  const std::int64_t code_cols =
      format == weight_format::int4 ? (in_features + 1) / 2 : in_features;
  auto* code_bytes = const_cast<std::uint8_t*>(codes.data());
  w.codes = tensor::make(code_bytes, dtype::u8, {out_features, code_cols});
  w.scales =
      tensor::make(const_cast<float*>(scales.data()), dtype::f32, {num_scale_rows(), num_groups()});
  if (!zeros.empty()) {
    w.zeros = tensor::make(const_cast<std::uint8_t*>(zeros.data()), dtype::u8,
                           {out_features, num_groups()});
  }
  if (!input_order.empty()) {
    w.input_order =
        tensor::make(const_cast<std::int32_t*>(input_order.data()), dtype::i32, {in_features});
  }
  return w;
}

std::vector<float> dequantize(const quantized_linear& layer) {
  const std::int64_t out = layer.out_features;
  const std::int64_t in = layer.in_features;
  const std::int64_t groups = layer.num_groups();
  std::vector<float> w(static_cast<std::size_t>(out * in));
  for (std::int64_t n = 0; n < out; ++n) {
    const std::int64_t scale_row = n / layer.block_rows;
    for (std::int64_t k = 0; k < in; ++k) {
      const std::int64_t g = k / layer.group_size;
      const float s = layer.scales[static_cast<std::size_t>(scale_row * groups + g)];
      const std::uint8_t q = layer.code(n, k);
      float value = 0.0F;
      if (layer.format == weight_format::fp8_e4m3) {
        value = e4m3_to_f32(q) * s;
      } else {
        const int z = layer.zeros[static_cast<std::size_t>(n * groups + g)];
        value = static_cast<float>(static_cast<int>(q) - z) * s;
      }
      const std::int64_t column =
          layer.input_order.empty() ? k : layer.input_order[static_cast<std::size_t>(k)];
      w[static_cast<std::size_t>(n * in + column)] = value;
    }
  }
  return w;
}

}  // namespace pagedserve::quant
