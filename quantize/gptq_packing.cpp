// AutoGPTQ / GPTQModel packing (QuantLinear.pack): 32 / bits values to an int32, in order,
// lowest bits first. qweight packs the input dim and keeps the ORIGINAL input order even
// under act-order (g_idx says which group each input belongs to); qzeros packs the output dim.
#include <cstdint>

#include "quantize/packing.h"

namespace pagedserve::quantize {
namespace {

using quant::quantized_linear;

int bits_of(const quantized_linear& layer) {
  return layer.format == kernels::weight_format::int4 ? 4 : 8;
}

status check_gptq(const std::string& module, const quantized_linear& layer, gptq_version version) {
  const auto refuse = [&](const std::string& why) {
    return make_error(error_code::unsupported, module + ": GPTQ " + why);
  };
  if (layer.format != kernels::weight_format::int4 &&
      layer.format != kernels::weight_format::int8) {
    return refuse("stores 4- or 8-bit integer codes only");
  }
  const std::int64_t per_word = 32 / bits_of(layer);
  if (layer.in_features % per_word != 0 || layer.out_features % per_word != 0) {
    return refuse("needs in_features and out_features (" + std::to_string(layer.in_features) +
                  ", " + std::to_string(layer.out_features) + ") to be multiples of " +
                  std::to_string(per_word));
  }
  if (version == gptq_version::v1) {
    for (std::uint8_t z : layer.zeros) {
      if (z == 0) return refuse("v1 stores zero - 1 and cannot hold a zero point of 0");
    }
  }
  return status::success();
}

// positions[k]: where original input k sits among the codes (the inverse of input_order).
std::vector<std::int64_t> code_positions(const quantized_linear& layer) {
  std::vector<std::int64_t> positions(static_cast<std::size_t>(layer.in_features));
  for (std::int64_t j = 0; j < layer.in_features; ++j) {
    const std::int64_t k =
        layer.input_order.empty() ? j : layer.input_order[static_cast<std::size_t>(j)];
    positions[static_cast<std::size_t>(k)] = j;
  }
  return positions;
}

// qweight [in / per_word, out]: value j of word [r, n] is input per_word * r + j.
std::vector<std::uint32_t> pack_qweight(const quantized_linear& layer,
                                        const std::vector<std::int64_t>& positions) {
  const int bits = bits_of(layer);
  const std::int64_t per_word = 32 / bits;
  const std::int64_t rows = layer.in_features / per_word;
  const std::int64_t out = layer.out_features;
  std::vector<std::uint32_t> packed(static_cast<std::size_t>(rows * out), 0);
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t n = 0; n < out; ++n) {
      std::uint32_t word = 0;
      for (std::int64_t j = 0; j < per_word; ++j) {
        const std::int64_t k = per_word * r + j;
        word |= std::uint32_t{layer.code(n, positions[static_cast<std::size_t>(k)])} << (bits * j);
      }
      packed[static_cast<std::size_t>(r * out + n)] = word;
    }
  }
  return packed;
}

// qzeros [groups, out / per_word]: value j of word [g, c] is column per_word * c + j.
std::vector<std::uint32_t> pack_qzeros(const quantized_linear& layer, gptq_version version) {
  const int bits = bits_of(layer);
  const std::int64_t per_word = 32 / bits;
  const std::int64_t groups = layer.num_groups();
  const std::int64_t words = layer.out_features / per_word;
  const std::uint32_t offset = version == gptq_version::v1 ? 1 : 0;
  std::vector<std::uint32_t> packed(static_cast<std::size_t>(groups * words), 0);
  for (std::int64_t g = 0; g < groups; ++g) {
    for (std::int64_t c = 0; c < words; ++c) {
      std::uint32_t word = 0;
      for (std::int64_t j = 0; j < per_word; ++j) {
        const std::int64_t n = per_word * c + j;
        const std::uint32_t z = layer.zeros[static_cast<std::size_t>(n * groups + g)];
        word |= (z - offset) << (bits * j);
      }
      packed[static_cast<std::size_t>(g * words + c)] = word;
    }
  }
  return packed;
}

}  // namespace

result<packed_tensors> pack_gptq(const std::string& module, const quantized_linear& layer,
                                 gptq_version version) {
  if (status ok = check_gptq(module, layer, version); !ok) return ok.err();
  const std::int64_t in = layer.in_features;
  const std::int64_t out = layer.out_features;
  const std::int64_t groups = layer.num_groups();
  const std::int64_t per_word = 32 / bits_of(layer);
  const std::vector<std::int64_t> positions = code_positions(layer);
  std::vector<std::int32_t> g_idx(static_cast<std::size_t>(in));
  for (std::int64_t k = 0; k < in; ++k) {
    g_idx[static_cast<std::size_t>(k)] =
        static_cast<std::int32_t>(positions[static_cast<std::size_t>(k)] / layer.group_size);
  }
  packed_tensors tensors;
  tensors.push_back(owned_tensor(module + ".qweight", "I32", {in / per_word, out},
                                 pack_qweight(layer, positions)));
  tensors.push_back(owned_tensor(module + ".qzeros", "I32", {groups, out / per_word},
                                 pack_qzeros(layer, version)));
  tensors.push_back(
      float_tensor(module + ".scales", weight_dtype::f16, {groups, out}, scales_by_group(layer)));
  tensors.push_back(owned_tensor(module + ".g_idx", "I32", {in}, g_idx));
  return tensors;
}

}  // namespace pagedserve::quantize
