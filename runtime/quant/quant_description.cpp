#include "runtime/quant/quant_description.h"

namespace pagedserve::quant {
namespace {

std::string group_phrase(std::int64_t group_size) {
  return group_size == -1 ? "one group per row" : "group " + std::to_string(group_size);
}

std::string weight_phrase(const quant_spec& spec) {
  switch (spec.weight_strategy) {
    case scale_strategy::tensor:
      return "per-tensor weights";
    case scale_strategy::channel:
      return "per-channel weights";
    case scale_strategy::block:
      return "block " + std::to_string(spec.weight_block_rows) + "x" +
             std::to_string(spec.weight_block_cols) + " weights";
    case scale_strategy::group:
      break;
  }
  return "grouped weights";
}

std::string activation_phrase(activation_scheme scheme) {
  switch (scheme) {
    case activation_scheme::none:
      return "weight-only";
    case activation_scheme::dynamic_per_token:
      return "dynamic per-token activations";
    case activation_scheme::dynamic_per_group:
      return "dynamic per-group activations";
    case activation_scheme::static_per_tensor:
      return "static activations";
  }
  return "";
}

}  // namespace

std::string describe(const quant_spec& spec) {
  const std::string name(to_string(spec.method));
  switch (spec.method) {
    case quant_method::awq:
      return name + " (4-bit, " + group_phrase(spec.group_size) + ", zero points)";
    case quant_method::gptq:
      return name + " (" + std::to_string(spec.bits) + "-bit, " + group_phrase(spec.group_size) +
             (spec.has_zero_points ? ", asymmetric" : ", symmetric") +
             (spec.desc_act ? ", act-order" : "") +
             (spec.zeros_stored_minus_one ? ", format gptq" : ", format gptq_v2") + ")";
    case quant_method::fp8:
    case quant_method::compressed_tensors:
      return name + " (e4m3, " + weight_phrase(spec) + ", " + activation_phrase(spec.activations) +
             ")";
    case quant_method::none:
      break;
  }
  return name;
}

}  // namespace pagedserve::quant
