#include "runtime/forward/model_weights.h"

#include <optional>
#include <string>

#include "runtime/forward/rope_frequencies.h"
#include "runtime/model/weight_names.h"

namespace pagedserve::forward {
namespace {

using kernels::buffer;

layer_weights take_layer(weight_uploader& up, const model_config& c, std::int64_t layer) {
  auto name = [layer](const char* suffix) { return layer_tensor_name(layer, suffix); };
  const std::int64_t hidden = c.hidden_size;
  layer_weights w;
  w.input_norm = up.take(name("input_layernorm.weight"), hidden);
  w.q_proj = up.take_linear(name("self_attn.q_proj.weight"), c.q_size(), hidden);
  w.k_proj = up.take_linear(name("self_attn.k_proj.weight"), c.kv_size(), hidden);
  w.v_proj = up.take_linear(name("self_attn.v_proj.weight"), c.kv_size(), hidden);
  w.q_bias = up.take_if(c.qkv_bias, name("self_attn.q_proj.bias"), c.q_size());
  w.k_bias = up.take_if(c.qkv_bias, name("self_attn.k_proj.bias"), c.kv_size());
  w.v_bias = up.take_if(c.qkv_bias, name("self_attn.v_proj.bias"), c.kv_size());
  w.q_norm = up.take_if(c.qk_norm, name("self_attn.q_norm.weight"), c.head_dim);
  w.k_norm = up.take_if(c.qk_norm, name("self_attn.k_norm.weight"), c.head_dim);
  w.o_proj = up.take_linear(name("self_attn.o_proj.weight"), hidden, c.q_size());
  w.o_bias = up.take_if(c.o_proj_bias, name("self_attn.o_proj.bias"), hidden);
  w.post_attention_norm = up.take(name("post_attention_layernorm.weight"), hidden);
  if (c.moe.is_sparse_layer(layer)) {
    w.moe = take_moe_layer(up, c, layer);
    return w;
  }
  w.gate_proj = up.take_linear(name("mlp.gate_proj.weight"), c.intermediate_size, hidden);
  w.up_proj = up.take_linear(name("mlp.up_proj.weight"), c.intermediate_size, hidden);
  w.down_proj = up.take_linear(name("mlp.down_proj.weight"), hidden, c.intermediate_size);
  w.gate_bias = up.take_if(c.mlp_bias, name("mlp.gate_proj.bias"), c.intermediate_size);
  w.up_bias = up.take_if(c.mlp_bias, name("mlp.up_proj.bias"), c.intermediate_size);
  w.down_bias = up.take_if(c.mlp_bias, name("mlp.down_proj.bias"), hidden);
  return w;
}

std::int64_t bytes_of(const buffer& b) {
  return b.empty() ? 0 : static_cast<std::int64_t>(b.view().num_bytes());
}

}  // namespace

std::int64_t model_weights::num_bytes() const {
  std::int64_t bytes = bytes_of(embed_tokens) + bytes_of(final_norm) + bytes_of(rope_inv_freq);
  if (lm_head.dense.view().data != embed_tokens.view().data) bytes += lm_head.num_bytes();
  for (const layer_weights& l : layers) {
    for (const linear_weight* w :
         {&l.q_proj, &l.k_proj, &l.v_proj, &l.o_proj, &l.gate_proj, &l.up_proj, &l.down_proj}) {
      bytes += w->num_bytes();
    }
    for (const buffer* b :
         {&l.input_norm, &l.q_bias, &l.k_bias, &l.v_bias, &l.q_norm, &l.k_norm, &l.o_bias,
          &l.post_attention_norm, &l.gate_bias, &l.up_bias, &l.down_bias}) {
      bytes += bytes_of(*b);
    }
    bytes += l.moe.num_bytes();
  }
  return bytes;
}

result<model_weights> upload_model_weights(kernels::backend& backend, const model_config& config,
                                           const checkpoint& weights) {
  if (config.moe.enabled() && !backend.runs_moe()) {
    return make_error(error_code::unsupported,
                      "model_type " + config.model_type + " has experts, and the " +
                          std::string(backend.name()) +
                          " backend does not run mixture-of-experts models yet");
  }
  weight_uploader up(backend, weights);
  model_weights w;
  w.embed_tokens = up.take("model.embed_tokens.weight", config.vocab_size, config.hidden_size);
  for (std::int64_t layer = 0; layer < config.num_layers; ++layer) {
    w.layers.push_back(take_layer(up, config, layer));
  }
  w.final_norm = up.take("model.norm.weight", config.hidden_size);
  w.lm_head = config.tie_word_embeddings
                  ? linear_weight{w.embed_tokens, {}, {}}
                  : up.take_linear("lm_head.weight", config.vocab_size, config.hidden_size);
  if (up.first_error()) return *up.first_error();
  w.quantized_layers = up.counts();

  if (const auto& scales = weights.kv_scales()) {
    w.k_scales = scales->key;
    w.v_scales = scales->value;
  } else {
    w.k_scales.assign(static_cast<std::size_t>(config.num_layers), 1.0F);
    w.v_scales.assign(static_cast<std::size_t>(config.num_layers), 1.0F);
  }
  const std::vector<float> inv_freq = rope_inv_freq(config.rope, config.head_dim, config.dtype);
  w.rope_inv_freq =
      backend.allocate(kernels::dtype::f32, {static_cast<std::int64_t>(inv_freq.size())});
  backend.copy_from_host(w.rope_inv_freq.view(), inv_freq.data());
  return w;
}

}  // namespace pagedserve::forward
