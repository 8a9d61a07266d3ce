#include "quantize/linear_quantizer.h"

#include <algorithm>
#include <numeric>

#include "runtime/quant/rtn_quantize.h"

namespace pagedserve::quantize {
namespace {

using quant::quantized_linear;

bool is_gptq(quantize_method method) {
  return method == quantize_method::gptq || method == quantize_method::gptq_v2;
}

quant::int_rtn_options int_options(const quantize_options& o,
                                   std::span<const std::int32_t> input_order) {
  quant::int_rtn_options rtn;
  rtn.bits = o.bits;
  rtn.group_size = o.group_size;
  rtn.input_order.assign(input_order.begin(), input_order.end());
  if (o.method == quantize_method::awq) {
    rtn.scheme = quant::int_scheme::awq;
  } else if (o.symmetric) {
    rtn.scheme = quant::int_scheme::gptq_symmetric;
  } else {
    rtn.scheme = quant::int_scheme::gptq_asymmetric;
    // v1 stores z - 1, so its writer keeps z >= 1 (AutoGPTQ's "overflow" of asym v1).
    rtn.min_zero = o.method == quantize_method::gptq ? 1 : 0;
  }
  return rtn;
}

quant::fp8_rtn_options fp8_options(const quantize_options& o, weight_dtype model_dtype) {
  quant::fp8_rtn_options rtn;
  if (o.method == quantize_method::fp8_block) {
    rtn.strategy = quant::fp8_strategy::block;  // 128 x 128, weight_scale_inv in fp32
    rtn.scale_dtype = weight_dtype::f32;
  } else {
    rtn.strategy = o.weight_strategy;  // compressed-tensors: the scale has the model's dtype
    rtn.scale_dtype = model_dtype;
  }
  return rtn;
}

result<packed_tensors> pack(const linear_weight& w, const quantized_linear& layer,
                            const quantize_options& o) {
  switch (o.method) {
    case quantize_method::awq:
      return pack_awq(w.module, layer);
    case quantize_method::gptq:
      return pack_gptq(w.module, layer, gptq_version::v1);
    case quantize_method::gptq_v2:
      return pack_gptq(w.module, layer, gptq_version::v2);
    case quantize_method::fp8_block:
      return pack_hf_fp8(w.module, layer);
    case quantize_method::fp8_dynamic:
    case quantize_method::fp8_weight_only:
      break;
  }
  return pack_compressed_fp8(w.module, layer, o.weight_strategy, w.dtype);
}

}  // namespace

std::vector<std::int32_t> descending_norm_order(std::span<const linear_weight> weights) {
  const std::int64_t in = weights.empty() ? 0 : weights.front().in_features;
  std::vector<double> norms(static_cast<std::size_t>(in), 0.0);
  for (const linear_weight& w : weights) {
    for (std::int64_t n = 0; n < w.out_features; ++n) {
      for (std::int64_t k = 0; k < in; ++k) {
        const double x = w.values[static_cast<std::size_t>(n * in + k)];
        norms[static_cast<std::size_t>(k)] += x * x;
      }
    }
  }
  std::vector<std::int32_t> order(static_cast<std::size_t>(in));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
    return norms[static_cast<std::size_t>(a)] > norms[static_cast<std::size_t>(b)];
  });
  return order;
}

result<quantized_module> quantize_linear(const linear_weight& w, const quantize_options& o,
                                         std::span<const std::int32_t> input_order) {
  if (!input_order.empty() && !is_gptq(o.method)) {
    return make_error(error_code::invalid_argument, w.module + ": act-order is GPTQ only");
  }
  quantized_module result_module;
  result_module.layer = is_int_method(o.method)
                            ? quant::quantize_int_rtn(w.values, w.out_features, w.in_features,
                                                      int_options(o, input_order))
                            : quant::quantize_fp8_rtn(w.values, w.out_features, w.in_features,
                                                      fp8_options(o, w.dtype));
  result<packed_tensors> packed = pack(w, result_module.layer, o);
  if (!packed) return packed.err();
  result_module.tensors = std::move(packed).value();
  return result_module;
}

}  // namespace pagedserve::quantize
