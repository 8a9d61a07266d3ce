#pragma once
// The tensor names of a sparse layer as the hub stores them: one tensor per expert
// (transformers 5.x fuses experts in memory but save_pretrained writes these names).
//
//   qwen2_moe / qwen3_moe                         mixtral
//   mlp.gate.weight              [E, hidden]      block_sparse_moe.gate.weight   [E, hidden]
//   mlp.experts.{e}.gate_proj.weight [I, hidden]  block_sparse_moe.experts.{e}.w1.weight
//   mlp.experts.{e}.up_proj.weight   [I, hidden]  block_sparse_moe.experts.{e}.w3.weight
//   mlp.experts.{e}.down_proj.weight [hidden, I]  block_sparse_moe.experts.{e}.w2.weight
//   mlp.shared_expert.{gate,up,down}_proj.weight  (qwen2_moe: shared_expert_intermediate_size)
//   mlp.shared_expert_gate.weight    [1, hidden]  (qwen2_moe)

#include <cstdint>
#include <string>

#include "runtime/model/model_config.h"

namespace pagedserve {

enum class expert_projection { gate, up, down };

// "model.layers.{layer}.mlp.gate.weight" (mixtral: block_sparse_moe.gate.weight).
[[nodiscard]] std::string router_tensor_name(const model_config& config, std::int64_t layer);
// One projection of routed expert `expert` of `layer`.
[[nodiscard]] std::string expert_tensor_name(const model_config& config, std::int64_t layer,
                                             std::int64_t expert, expert_projection projection);
// One projection of the shared expert (qwen2_moe).
[[nodiscard]] std::string shared_expert_tensor_name(std::int64_t layer,
                                                    expert_projection projection);
// The shared expert's sigmoid gate, [1, hidden] (qwen2_moe).
[[nodiscard]] std::string shared_expert_gate_tensor_name(std::int64_t layer);

}  // namespace pagedserve
