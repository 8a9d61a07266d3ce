#include "train/model/activations.h"

namespace pagedserve::train {

activations::activations(const model_shape& shape, std::int64_t batch_size, std::int64_t length)
    : batch(batch_size), seq_len(length) {
  const auto n = static_cast<std::size_t>(batch * seq_len);
  const auto d = static_cast<std::size_t>(shape.hidden_size);
  const auto f = static_cast<std::size_t>(shape.intermediate_size);
  const auto q = static_cast<std::size_t>(shape.q_size());
  const auto kv = static_cast<std::size_t>(shape.kv_size());
  tokens.resize(n);
  positions.resize(n);
  for (std::size_t r = 0; r < n; ++r) positions[r] = static_cast<std::int64_t>(r) % seq_len;
  layers.resize(static_cast<std::size_t>(shape.num_layers));
  for (layer_activations& a : layers) {
    a.h_in.resize(n * d);
    a.rstd1.resize(n);
    a.x1.resize(n * d);
    a.q.resize(n * q);
    a.k.resize(n * kv);
    a.v.resize(n * kv);
    a.probs.resize(static_cast<std::size_t>(batch * shape.num_heads * seq_len * seq_len));
    a.attn.resize(n * q);
    a.h_mid.resize(n * d);
    a.rstd2.resize(n);
    a.x2.resize(n * d);
    a.gate.resize(n * f);
    a.up.resize(n * f);
    a.mlp.resize(n * f);
  }
  h_final.resize(n * d);
  rstd_final.resize(n);
  x_final.resize(n * d);
  logits.resize(n * static_cast<std::size_t>(shape.vocab_size));
}

}  // namespace pagedserve::train
