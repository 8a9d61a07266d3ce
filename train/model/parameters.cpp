#include "train/model/parameters.h"

#include <cmath>

#include "train/model/seeded_random.h"

namespace pagedserve::train {

parameter_layout::parameter_layout(const model_shape& shape) : shape_(shape) {
  const std::int64_t d = shape.hidden_size;
  const std::int64_t f = shape.intermediate_size;
  add("model.embed_tokens.weight", {shape.vocab_size, d}, true);
  for (std::int64_t l = 0; l < shape.num_layers; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    add(p + "input_layernorm.weight", {d}, false);
    add(p + "self_attn.q_proj.weight", {shape.q_size(), d}, true);
    add(p + "self_attn.k_proj.weight", {shape.kv_size(), d}, true);
    add(p + "self_attn.v_proj.weight", {shape.kv_size(), d}, true);
    add(p + "self_attn.o_proj.weight", {d, shape.q_size()}, true);
    add(p + "post_attention_layernorm.weight", {d}, false);
    add(p + "mlp.gate_proj.weight", {f, d}, true);
    add(p + "mlp.up_proj.weight", {f, d}, true);
    add(p + "mlp.down_proj.weight", {d, f}, true);
  }
  add("model.norm.weight", {d}, false);
  if (!shape.tie_word_embeddings) add("lm_head.weight", {shape.vocab_size, d}, true);
}

void parameter_layout::add(std::string name, std::vector<std::int64_t> shape, bool decays) {
  std::int64_t numel = 1;
  for (std::int64_t dim : shape) numel *= dim;
  tensors_.push_back({std::move(name), std::move(shape), total_, numel, decays});
  total_ += numel;
}

namespace {

template <typename T>
model_view<T> make_view(const parameter_layout& layout, T* base) {
  const std::vector<parameter_tensor>& t = layout.tensors();
  std::size_t i = 0;
  auto next = [&] { return base + t[i++].offset; };
  model_view<T> view{};
  view.embed = next();
  for (std::int64_t l = 0; l < layout.shape().num_layers; ++l) {
    layer_view<T> layer{};
    layer.attn_norm = next();
    layer.wq = next();
    layer.wk = next();
    layer.wv = next();
    layer.wo = next();
    layer.mlp_norm = next();
    layer.w_gate = next();
    layer.w_up = next();
    layer.w_down = next();
    view.layers.push_back(layer);
  }
  view.final_norm = next();
  view.lm_head = layout.shape().tie_word_embeddings ? view.embed : next();
  return view;
}

bool writes_residual(const std::string& name) {
  return name.ends_with("o_proj.weight") || name.ends_with("down_proj.weight");
}

}  // namespace

model_view<float> view_of(const parameter_layout& layout, float* base) {
  return make_view(layout, base);
}

model_view<const float> view_of(const parameter_layout& layout, const float* base) {
  return make_view(layout, base);
}

void initialise(const parameter_layout& layout, std::uint64_t seed, std::vector<float>& params) {
  params.assign(static_cast<std::size_t>(layout.total()), 0.0F);
  seeded_random random(seed);
  const double residual_scale =
      1.0 / std::sqrt(2.0 * static_cast<double>(layout.shape().num_layers));
  for (const parameter_tensor& t : layout.tensors()) {
    float* data = params.data() + t.offset;
    if (t.shape.size() == 1) {
      for (std::int64_t i = 0; i < t.numel; ++i) data[i] = 1.0F;
      continue;
    }
    const double std_dev = 0.02 * (writes_residual(t.name) ? residual_scale : 1.0);
    for (std::int64_t i = 0; i < t.numel; ++i) {
      data[i] = static_cast<float>(random.normal() * std_dev);
    }
  }
}

}  // namespace pagedserve::train
