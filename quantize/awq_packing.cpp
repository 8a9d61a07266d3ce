// AutoAWQ GEMM packing (WQLinear_GEMM.from_linear): the output dim is packed eight columns
// to an int32 with the interleave below, in qweight and qzeros alike.
#include <array>
#include <cstdint>

#include "quantize/packing.h"

namespace pagedserve::quantize {
namespace {

using quant::quantized_linear;

// Nibble i (bits 4i..4i+3) of a word holds column 8c + awq_order[i] (AutoAWQ order_map).
constexpr std::array<std::int64_t, 8> awq_order = {0, 2, 4, 6, 1, 3, 5, 7};

status check_awq(const std::string& module, const quantized_linear& layer) {
  const auto refuse = [&](const std::string& why) {
    return make_error(error_code::unsupported, module + ": AWQ GEMM " + why);
  };
  if (layer.format != kernels::weight_format::int4) return refuse("stores 4-bit codes only");
  if (!layer.input_order.empty()) return refuse("has no act-order (no g_idx)");
  if (layer.in_features % layer.group_size != 0) {
    return refuse("needs in_features (" + std::to_string(layer.in_features) +
                  ") to be a multiple of the group size (" + std::to_string(layer.group_size) +
                  ")");
  }
  if (layer.out_features % 8 != 0) {
    return refuse("needs out_features (" + std::to_string(layer.out_features) +
                  ") to be a multiple of 8");
  }
  return status::success();
}

// word[row, c] for c < out/8, from value(row, n) of 4 bits.
template <class Value>
std::vector<std::uint32_t> pack_output_dim(std::int64_t rows, std::int64_t out, Value value) {
  const std::int64_t words = out / 8;
  std::vector<std::uint32_t> packed(static_cast<std::size_t>(rows * words), 0);
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t c = 0; c < words; ++c) {
      std::uint32_t word = 0;
      for (std::size_t i = 0; i < awq_order.size(); ++i) {
        word |= static_cast<std::uint32_t>(value(r, 8 * c + awq_order[i]) & 0xFU) << (4 * i);
      }
      packed[static_cast<std::size_t>(r * words + c)] = word;
    }
  }
  return packed;
}

}  // namespace

std::vector<float> scales_by_group(const quantized_linear& layer) {
  const std::int64_t out = layer.out_features;
  const std::int64_t groups = layer.num_groups();
  std::vector<float> scales(static_cast<std::size_t>(groups * out));
  for (std::int64_t n = 0; n < out; ++n) {
    for (std::int64_t g = 0; g < groups; ++g) {
      scales[static_cast<std::size_t>(g * out + n)] =
          layer.scales[static_cast<std::size_t>(n * groups + g)];
    }
  }
  return scales;
}

result<packed_tensors> pack_awq(const std::string& module, const quantized_linear& layer) {
  if (status ok = check_awq(module, layer); !ok) return ok.err();
  const std::int64_t in = layer.in_features;
  const std::int64_t out = layer.out_features;
  const std::int64_t groups = layer.num_groups();
  const auto qweight = pack_output_dim(in, out, [&](std::int64_t k, std::int64_t n) {
    return static_cast<unsigned>(layer.code(n, k));
  });
  const auto qzeros = pack_output_dim(groups, out, [&](std::int64_t g, std::int64_t n) {
    return static_cast<unsigned>(layer.zeros[static_cast<std::size_t>(n * groups + g)]);
  });
  packed_tensors tensors;
  tensors.push_back(owned_tensor(module + ".qweight", "I32", {in, out / 8}, qweight));
  tensors.push_back(owned_tensor(module + ".qzeros", "I32", {groups, out / 8}, qzeros));
  tensors.push_back(
      float_tensor(module + ".scales", weight_dtype::f16, {groups, out}, scales_by_group(layer)));
  return tensors;
}

}  // namespace pagedserve::quantize
