#pragma once
// linear_quantizer: one linear weight of a dense checkpoint -> its quantized_linear (the
// reference a loader must reproduce) and the tensors the chosen format stores for it.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/result.h"
#include "quantize/packing.h"
#include "quantize/quantize_options.h"
#include "runtime/model/model_config.h"
#include "runtime/quant/quantized_linear.h"

namespace pagedserve::quantize {

struct linear_weight {
  std::string module;         // "model.layers.0.self_attn.q_proj" (the tensor is module.weight)
  std::vector<float> values;  // [out, in], widened exactly from the source
  std::int64_t out_features = 0;
  std::int64_t in_features = 0;
  weight_dtype dtype = weight_dtype::f32;  // the source's storage type
};

// A deterministic stand-in for GPTQ's activation order (which needs calibration data):
// inputs by decreasing L2 norm of their weight columns, summed over `weights` (modules that
// read the same input), ties by input index.
[[nodiscard]] std::vector<std::int32_t> descending_norm_order(
    std::span<const linear_weight> weights);

struct quantized_module {
  quant::quantized_linear layer;
  packed_tensors tensors;
};

// Quantizes and packs `weight` as `options` say; `input_order` (act-order, GPTQ only) may be
// empty. Errors name the module (a shape the format cannot hold).
[[nodiscard]] result<quantized_module> quantize_linear(const linear_weight& weight,
                                                       const quantize_options& options,
                                                       std::span<const std::int32_t> input_order);

}  // namespace pagedserve::quantize
