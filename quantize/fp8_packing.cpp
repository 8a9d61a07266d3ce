// FP8 e4m3 checkpoints: the codes are stored as they are ([out, in], one byte each); the
// formats differ in the scale's name, dtype and shape.
#include <cstdint>

#include "quantize/packing.h"

namespace pagedserve::quantize {
namespace {

using quant::quantized_linear;

status check_fp8(const std::string& module, const quantized_linear& layer) {
  if (layer.format != kernels::weight_format::fp8_e4m3) {
    return make_error(error_code::unsupported, module + ": not an fp8_e4m3 layer");
  }
  return status::success();
}

safetensors_tensor fp8_weight(const std::string& module, const quantized_linear& layer) {
  return owned_tensor(module + ".weight", "F8_E4M3", {layer.out_features, layer.in_features},
                      layer.codes);
}

bool has_layout(const quantized_linear& layer, quant::fp8_strategy strategy) {
  const bool whole_rows = layer.group_size == layer.in_features;
  switch (strategy) {
    case quant::fp8_strategy::tensor:
      return whole_rows && layer.block_rows == layer.out_features;
    case quant::fp8_strategy::channel:
      return whole_rows && layer.block_rows == 1;
    case quant::fp8_strategy::block:
      return true;
  }
  return false;
}

std::vector<std::int64_t> compressed_scale_shape(const quantized_linear& layer,
                                                 quant::fp8_strategy strategy) {
  switch (strategy) {
    case quant::fp8_strategy::tensor:
      return {1};
    case quant::fp8_strategy::channel:
      return {layer.out_features, 1};
    case quant::fp8_strategy::block:
      break;
  }
  return {layer.num_scale_rows(), layer.num_groups()};
}

}  // namespace

result<packed_tensors> pack_hf_fp8(const std::string& module, const quantized_linear& layer) {
  if (status ok = check_fp8(module, layer); !ok) return ok.err();
  packed_tensors tensors;
  tensors.push_back(fp8_weight(module, layer));
  // transformers' quantizer computes 448 / max and stores its reciprocal: the multiplier.
  tensors.push_back(float_tensor(module + ".weight_scale_inv", weight_dtype::f32,
                                 {layer.num_scale_rows(), layer.num_groups()}, layer.scales));
  return tensors;
}

result<packed_tensors> pack_compressed_fp8(const std::string& module, const quantized_linear& layer,
                                           quant::fp8_strategy strategy, weight_dtype scale_dtype) {
  if (status ok = check_fp8(module, layer); !ok) return ok.err();
  if (!has_layout(layer, strategy)) {
    return make_error(error_code::internal, module + ": scales not laid out as the strategy says");
  }
  for (float s : layer.scales) {
    if (quant::round_to_dtype(s, scale_dtype) != s) {
      return make_error(error_code::internal, module + ": a scale is not exact in " +
                                                  safetensors_dtype_name(scale_dtype));
    }
  }
  packed_tensors tensors;
  tensors.push_back(fp8_weight(module, layer));
  tensors.push_back(float_tensor(module + ".weight_scale", scale_dtype,
                                 compressed_scale_shape(layer, strategy), layer.scales));
  return tensors;
}

}  // namespace pagedserve::quantize
