#pragma once
// activations: what the forward pass keeps for the backward, sized once for a batch of
// `batch` windows of `seq_len` tokens (rows = batch * seq_len).

#include <cstdint>
#include <vector>

#include "train/model/model_shape.h"

namespace pagedserve::train {

struct layer_activations {
  std::vector<float> h_in;   // [rows, D]: the residual stream entering the layer
  std::vector<float> rstd1;  // [rows]
  std::vector<float> x1;     // [rows, D]: input_layernorm(h_in)
  std::vector<float> q;      // [rows, H*hd] after RoPE
  std::vector<float> k;      // [rows, KV*hd] after RoPE
  std::vector<float> v;      // [rows, KV*hd]
  std::vector<float> probs;  // [batch, H, T, T]
  std::vector<float> attn;   // [rows, H*hd]: attention output, before o_proj
  std::vector<float> h_mid;  // [rows, D]: h_in + o_proj(attn)
  std::vector<float> rstd2;  // [rows]
  std::vector<float> x2;     // [rows, D]: post_attention_layernorm(h_mid)
  std::vector<float> gate;   // [rows, F]
  std::vector<float> up;     // [rows, F]
  std::vector<float> mlp;    // [rows, F]: silu(gate) * up
};

struct activations {
  std::int64_t batch = 0;
  std::int64_t seq_len = 0;
  std::vector<std::int32_t> tokens;     // [rows]
  std::vector<std::int64_t> positions;  // [rows]: 0..T-1 in each window
  std::vector<layer_activations> layers;
  std::vector<float> h_final;  // [rows, D]
  std::vector<float> rstd_final;
  std::vector<float> x_final;  // [rows, D]
  std::vector<float> logits;   // [rows, V]; d(loss)/d(logits) after the loss

  activations(const model_shape& shape, std::int64_t batch, std::int64_t seq_len);
  [[nodiscard]] std::int64_t rows() const { return batch * seq_len; }
};

}  // namespace pagedserve::train
