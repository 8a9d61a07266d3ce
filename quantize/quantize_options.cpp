#include "quantize/quantize_options.h"

#include <array>
#include <string>
#include <utility>

#include <boost/json.hpp>

namespace pagedserve::quantize {
namespace {

namespace json = boost::json;

constexpr std::array<std::pair<quantize_method, std::string_view>, 6> method_names{{
    {quantize_method::awq, "awq"},
    {quantize_method::gptq, "gptq"},
    {quantize_method::gptq_v2, "gptq_v2"},
    {quantize_method::fp8_block, "fp8-block"},
    {quantize_method::fp8_dynamic, "fp8-dynamic"},
    {quantize_method::fp8_weight_only, "fp8-weight-only"},
}};

error invalid(const std::string& message) {
  return make_error(error_code::invalid_argument, message);
}

// AwqConfig.to_transformers_dict.
json::object awq_config(const quantize_options& o) {
  return {{"quant_method", "awq"},      {"zero_point", true},
          {"group_size", o.group_size}, {"bits", 4},
          {"version", "gemm"},          {"modules_to_not_convert", nullptr}};
}

// auto_gptq BaseQuantizeConfig.to_dict, as vLLM reads it.
json::object gptq_config(const quantize_options& o) {
  return {{"quant_method", "gptq"},
          {"bits", o.bits},
          {"group_size", o.group_size},
          {"desc_act", o.desc_act},
          {"sym", o.symmetric},
          {"checkpoint_format", o.method == quantize_method::gptq_v2 ? "gptq_v2" : "gptq"},
          {"lm_head", o.lm_head},
          {"damp_percent", 0.01},
          {"static_groups", false},
          {"true_sequential", true}};
}

// transformers FineGrainedFP8Config as DeepSeek-V3 / Qwen3-FP8 checkpoints carry it.
json::object fp8_block_config() {
  return {{"quant_method", "fp8"},
          {"activation_scheme", "dynamic"},
          {"fmt", "e4m3"},
          {"weight_block_size", json::array{128, 128}}};
}

// compressed-tensors QuantizationArgs as model_dump() writes them (fp8: type float, 8 bits).
json::object fp8_args(std::string_view strategy, bool dynamic) {
  return {{"num_bits", 8},
          {"type", "float"},
          {"symmetric", true},
          {"group_size", nullptr},
          {"strategy", strategy},
          {"block_structure", nullptr},
          {"dynamic", dynamic},
          {"actorder", nullptr},
          {"observer", dynamic ? json::value(nullptr) : json::value("minmax")},
          {"observer_kwargs", json::object{}}};
}

// llm-compressor's ModelCompressor.update_config: one config group over every Linear.
json::object compressed_tensors_config(const quantize_options& o) {
  const bool dynamic = o.method == quantize_method::fp8_dynamic;
  const std::string_view format = dynamic ? "float-quantized" : "naive-quantized";
  const std::string_view strategy =
      o.weight_strategy == quant::fp8_strategy::tensor ? "tensor" : "channel";
  json::object group{
      {"targets", json::array{"Linear"}},
      {"weights", fp8_args(strategy, false)},
      {"input_activations", dynamic ? json::value(fp8_args("token", true)) : json::value(nullptr)},
      {"output_activations", nullptr},
      {"format", format}};
  return {{"quant_method", "compressed-tensors"},
          {"format", format},
          {"quantization_status", "compressed"},
          {"config_groups", json::object{{"group_0", std::move(group)}}},
          // llm-compressor applies the "Linear" target to the lm_head unless it is ignored.
          {"ignore", o.lm_head ? json::array{} : json::array{"lm_head"}},
          {"kv_cache_scheme", nullptr},
          {"sparsity_config", json::object{}},
          {"transform_config", json::object{}},
          {"version", "0.12.2"}};
}

}  // namespace

std::string_view to_string(quantize_method method) {
  for (const auto& [m, name] : method_names) {
    if (m == method) return name;
  }
  return "?";
}

std::optional<quantize_method> parse_quantize_method(std::string_view name) {
  for (const auto& [m, n] : method_names) {
    if (n == name) return m;
  }
  return std::nullopt;
}

bool is_int_method(quantize_method method) {
  return method == quantize_method::awq || method == quantize_method::gptq ||
         method == quantize_method::gptq_v2;
}

bool is_compressed_tensors(quantize_method method) {
  return method == quantize_method::fp8_dynamic || method == quantize_method::fp8_weight_only;
}

status validate(const quantize_options& o) {
  const std::string method(to_string(o.method));
  if (o.method == quantize_method::awq && o.bits != 4) {
    return invalid("awq: only 4 bits (AutoAWQ GEMM), not " + std::to_string(o.bits));
  }
  if (is_int_method(o.method) && o.bits != 4 && o.bits != 8) {
    return invalid(method + ": bits must be 4 or 8, not " + std::to_string(o.bits));
  }
  if (is_int_method(o.method) && o.group_size != -1 && o.group_size <= 0) {
    return invalid(method + ": the group size must be positive or -1, not " +
                   std::to_string(o.group_size));
  }
  if (o.method == quantize_method::awq && o.group_size != -1 && o.group_size != 32 &&
      o.group_size != 64 && o.group_size != 128) {
    // The set AWQ loaders (vLLM's, ours: runtime/quant/awq_gptq_spec.cpp) take.
    return invalid("awq: the group size must be -1, 32, 64 or 128, not " +
                   std::to_string(o.group_size));
  }
  if (o.desc_act && o.method != quantize_method::gptq && o.method != quantize_method::gptq_v2) {
    return invalid(method + ": act-order (desc_act) exists in GPTQ checkpoints only");
  }
  if (o.lm_head && o.method != quantize_method::gptq && o.method != quantize_method::gptq_v2 &&
      !is_compressed_tensors(o.method)) {
    return invalid(method + ": only GPTQ and compressed-tensors checkpoints quantize the lm_head");
  }
  if (is_compressed_tensors(o.method) && o.weight_strategy == quant::fp8_strategy::block) {
    return invalid(method + ": the weight strategy is tensor or channel");
  }
  return status::success();
}

json::object quantization_config(const quantize_options& o) {
  switch (o.method) {
    case quantize_method::awq:
      return awq_config(o);
    case quantize_method::gptq:
    case quantize_method::gptq_v2:
      return gptq_config(o);
    case quantize_method::fp8_block:
      return fp8_block_config();
    case quantize_method::fp8_dynamic:
    case quantize_method::fp8_weight_only:
      return compressed_tensors_config(o);
  }
  return {};
}

}  // namespace pagedserve::quantize
