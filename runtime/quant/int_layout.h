#pragma once
// int_layout_builder: fills a quantized_linear of int4/int8 codes one value at a time, in
// the kernels' layout (codes row-major by output, two 4-bit codes per byte, low nibble for
// the even input; zeros and scales [out, groups]), so each format reader only says where
// its values come from.

#include <cstdint>
#include <utility>

#include "runtime/quant/quantized_linear.h"

namespace pagedserve::quant {

class int_layout_builder {
 public:
  int_layout_builder(kernels::weight_format format, std::int64_t out, std::int64_t in,
                     std::int64_t group_size) {
    layer_.format = format;
    layer_.out_features = out;
    layer_.in_features = in;
    layer_.group_size = group_size;
    row_bytes_ = format == kernels::weight_format::int4 ? (in + 1) / 2 : in;
    layer_.codes.assign(static_cast<std::size_t>(out * row_bytes_), 0);
    const auto cells = static_cast<std::size_t>(out * layer_.num_groups());
    layer_.scales.assign(cells, 0.0F);
    layer_.zeros.assign(cells, 0);
  }

  // Code of output n, input k (k in the order codes are kept: input_order's, if any).
  void set_code(std::int64_t n, std::int64_t k, std::uint8_t code) {
    if (layer_.format != kernels::weight_format::int4) {
      layer_.codes[static_cast<std::size_t>(n * row_bytes_ + k)] = code;
      return;
    }
    std::uint8_t& byte = layer_.codes[static_cast<std::size_t>(n * row_bytes_ + k / 2)];
    byte = (k % 2 == 0) ? static_cast<std::uint8_t>((byte & 0xF0U) | code)
                        : static_cast<std::uint8_t>((byte & 0x0FU) | (code << 4));
  }

  void set_group(std::int64_t n, std::int64_t g, std::uint8_t zero, float scale) {
    const auto cell = static_cast<std::size_t>(n * layer_.num_groups() + g);
    layer_.zeros[cell] = zero;
    layer_.scales[cell] = scale;
  }

  void set_input_order(std::vector<std::int32_t> order) { layer_.input_order = std::move(order); }

  [[nodiscard]] quantized_linear take() && { return std::move(layer_); }

 private:
  quantized_linear layer_;
  std::int64_t row_bytes_ = 0;
};

}  // namespace pagedserve::quant
