#include "runtime/model/weight_names.h"

#include "runtime/model/moe_weight_names.h"

namespace pagedserve {
namespace {

void add_sparse_mlp(const model_config& config, std::int64_t layer, std::vector<tensor_spec>& out) {
  const std::int64_t hidden = config.hidden_size;
  const moe_config& moe = config.moe;
  const std::int64_t inter = moe.expert_intermediate_size;
  out.push_back(
      {router_tensor_name(config, layer), {moe.num_experts, hidden}, tensor_role::router});
  for (std::int64_t e = 0; e < moe.num_experts; ++e) {
    auto name = [&](expert_projection p) { return expert_tensor_name(config, layer, e, p); };
    out.push_back({name(expert_projection::gate), {inter, hidden}, tensor_role::linear});
    out.push_back({name(expert_projection::up), {inter, hidden}, tensor_role::linear});
    out.push_back({name(expert_projection::down), {hidden, inter}, tensor_role::linear});
  }
  if (!moe.has_shared_expert()) return;
  const std::int64_t shared = moe.shared_expert_intermediate_size;
  auto name = [&](expert_projection p) { return shared_expert_tensor_name(layer, p); };
  out.push_back({name(expert_projection::gate), {shared, hidden}, tensor_role::linear});
  out.push_back({name(expert_projection::up), {shared, hidden}, tensor_role::linear});
  out.push_back({name(expert_projection::down), {hidden, shared}, tensor_role::linear});
  out.push_back({shared_expert_gate_tensor_name(layer), {1, hidden}, tensor_role::router});
}

void add_layer(const model_config& config, std::int64_t layer, std::vector<tensor_spec>& out) {
  const std::int64_t hidden = config.hidden_size;
  const std::int64_t inter = config.intermediate_size;
  auto add = [&](std::string_view suffix, std::vector<std::int64_t> shape, tensor_role role) {
    out.push_back({layer_tensor_name(layer, suffix), std::move(shape), role});
  };
  add("input_layernorm.weight", {hidden}, tensor_role::norm);
  add("self_attn.q_proj.weight", {config.q_size(), hidden}, tensor_role::linear);
  add("self_attn.k_proj.weight", {config.kv_size(), hidden}, tensor_role::linear);
  add("self_attn.v_proj.weight", {config.kv_size(), hidden}, tensor_role::linear);
  if (config.qkv_bias) {
    add("self_attn.q_proj.bias", {config.q_size()}, tensor_role::bias);
    add("self_attn.k_proj.bias", {config.kv_size()}, tensor_role::bias);
    add("self_attn.v_proj.bias", {config.kv_size()}, tensor_role::bias);
  }
  if (config.qk_norm) {
    add("self_attn.q_norm.weight", {config.head_dim}, tensor_role::norm);
    add("self_attn.k_norm.weight", {config.head_dim}, tensor_role::norm);
  }
  add("self_attn.o_proj.weight", {hidden, config.q_size()}, tensor_role::linear);
  if (config.o_proj_bias) add("self_attn.o_proj.bias", {hidden}, tensor_role::bias);
  add("post_attention_layernorm.weight", {hidden}, tensor_role::norm);
  if (config.moe.is_sparse_layer(layer)) {
    add_sparse_mlp(config, layer, out);
    return;
  }
  add("mlp.gate_proj.weight", {inter, hidden}, tensor_role::linear);
  add("mlp.up_proj.weight", {inter, hidden}, tensor_role::linear);
  add("mlp.down_proj.weight", {hidden, inter}, tensor_role::linear);
  if (config.mlp_bias) {
    add("mlp.gate_proj.bias", {inter}, tensor_role::bias);
    add("mlp.up_proj.bias", {inter}, tensor_role::bias);
    add("mlp.down_proj.bias", {hidden}, tensor_role::bias);
  }
}

}  // namespace

std::string layer_tensor_name(std::int64_t layer, std::string_view suffix) {
  return "model.layers." + std::to_string(layer) + "." + std::string(suffix);
}

bool is_recomputed_buffer(std::string_view name) { return name.ends_with("rotary_emb.inv_freq"); }

std::vector<tensor_spec> expected_tensors(const model_config& config) {
  std::vector<tensor_spec> out;
  out.push_back({"model.embed_tokens.weight",
                 {config.vocab_size, config.hidden_size},
                 tensor_role::embedding});
  for (std::int64_t layer = 0; layer < config.num_layers; ++layer) add_layer(config, layer, out);
  out.push_back({"model.norm.weight", {config.hidden_size}, tensor_role::norm});
  if (!config.tie_word_embeddings) {
    out.push_back({"lm_head.weight", {config.vocab_size, config.hidden_size}, tensor_role::linear});
  }
  return out;
}

}  // namespace pagedserve
