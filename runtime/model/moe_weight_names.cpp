#include "runtime/model/moe_weight_names.h"

#include "runtime/model/weight_names.h"

namespace pagedserve {
namespace {

std::string qwen_projection(expert_projection projection) {
  switch (projection) {
    case expert_projection::gate:
      return "gate_proj";
    case expert_projection::up:
      return "up_proj";
    case expert_projection::down:
      break;
  }
  return "down_proj";
}

// Mixtral's w1 = gate, w3 = up, w2 = down (MixtralBlockSparseTop2MLP).
std::string mixtral_projection(expert_projection projection) {
  switch (projection) {
    case expert_projection::gate:
      return "w1";
    case expert_projection::up:
      return "w3";
    case expert_projection::down:
      break;
  }
  return "w2";
}

}  // namespace

std::string router_tensor_name(const model_config& config, std::int64_t layer) {
  return layer_tensor_name(layer, config.family == model_family::mixtral
                                      ? "block_sparse_moe.gate.weight"
                                      : "mlp.gate.weight");
}

std::string expert_tensor_name(const model_config& config, std::int64_t layer, std::int64_t expert,
                               expert_projection projection) {
  const std::string e = std::to_string(expert);
  if (config.family == model_family::mixtral) {
    return layer_tensor_name(
        layer, "block_sparse_moe.experts." + e + "." + mixtral_projection(projection) + ".weight");
  }
  return layer_tensor_name(layer,
                           "mlp.experts." + e + "." + qwen_projection(projection) + ".weight");
}

std::string shared_expert_tensor_name(std::int64_t layer, expert_projection projection) {
  return layer_tensor_name(layer, "mlp.shared_expert." + qwen_projection(projection) + ".weight");
}

std::string shared_expert_gate_tensor_name(std::int64_t layer) {
  return layer_tensor_name(layer, "mlp.shared_expert_gate.weight");
}

}  // namespace pagedserve
