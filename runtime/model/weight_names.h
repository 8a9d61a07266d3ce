#pragma once
// weight_names: the tensors a model_config implies, with HF's names and PyTorch shapes.
//
//   model.embed_tokens.weight                  [vocab, hidden]
//   model.layers.{i}.input_layernorm.weight    [hidden]
//   model.layers.{i}.self_attn.{q,k,v}_proj.weight  [q_size | kv_size, hidden]
//   model.layers.{i}.self_attn.{q,k,v}_proj.bias    [q_size | kv_size]   (qkv_bias)
//   model.layers.{i}.self_attn.o_proj.weight   [hidden, q_size]
//   model.layers.{i}.self_attn.o_proj.bias     [hidden]                  (o_proj_bias)
//   model.layers.{i}.self_attn.{q,k}_norm.weight    [head_dim]           (qk_norm)
//   model.layers.{i}.post_attention_layernorm.weight [hidden]
//   model.layers.{i}.mlp.{gate,up}_proj.weight [intermediate, hidden]  (+ .bias with mlp_bias)
//   model.layers.{i}.mlp.down_proj.weight      [hidden, intermediate]  (+ .bias with mlp_bias)
//   (a sparse layer of a MoE model has a router and experts instead: moe_weight_names.h)
//   model.norm.weight                          [hidden]
//   lm_head.weight                             [vocab, hidden]           (absent when tied)

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/model/model_config.h"

namespace pagedserve {

// router: a linear layer that stays dense in quantized checkpoints (MoE routers and the
// shared expert's gate, as the hub's FP8/GPTQ/AWQ checkpoints and vLLM leave them).
enum class tensor_role { embedding, norm, linear, bias, router };

struct tensor_spec {
  std::string name;
  std::vector<std::int64_t> shape;
  tensor_role role = tensor_role::linear;
};

// Every tensor the forward pass reads, in a fixed order (embedding, layers, norm, lm_head).
[[nodiscard]] std::vector<tensor_spec> expected_tensors(const model_config& config);

// "model.layers.<layer>.<suffix>", e.g. layer_tensor_name(3, "self_attn.q_proj.weight").
[[nodiscard]] std::string layer_tensor_name(std::int64_t layer, std::string_view suffix);

// Stored by some exporters but recomputed by us: rotary "*.rotary_emb.inv_freq" buffers.
[[nodiscard]] bool is_recomputed_buffer(std::string_view name);

}  // namespace pagedserve
