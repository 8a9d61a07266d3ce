#include <algorithm>

#include "train/model/causal_attention.h"
#include "train/model/matrix_ops.h"
#include "train/model/transformer.h"

namespace pagedserve::train {

transformer::transformer(const parameter_layout& layout, std::int64_t batch, std::int64_t seq_len)
    : layout_(layout),
      shape_(layout.shape()),
      rope_(make_rope_table(shape_.head_dim, shape_.rope_theta, seq_len)),
      acts_(shape_, batch, seq_len) {
  const std::int64_t n = rows();
  const std::int64_t widest =
      std::max({shape_.hidden_size, shape_.intermediate_size, shape_.q_size()});
  auto floats = [](std::int64_t count) {
    return std::vector<float>(static_cast<std::size_t>(count));
  };
  backward_buffers& b = buffers_;
  b.x_t = floats(widest * n);
  b.dy_t = floats(std::max(widest, shape_.vocab_size) * n);
  b.w_t = floats(std::max(widest, shape_.vocab_size) * widest);
  b.dx_part = floats(n * widest);
  b.dx = floats(n * shape_.hidden_size);
  b.dnorm = floats(n * shape_.hidden_size);
  b.dh = floats(n * shape_.hidden_size);
  b.dmlp = floats(n * shape_.intermediate_size);
  b.dgate = floats(n * shape_.intermediate_size);
  b.dup = floats(n * shape_.intermediate_size);
  b.dattn = floats(n * shape_.q_size());
  b.dq = floats(n * shape_.q_size());
  b.dk = floats(n * shape_.kv_size());
  b.dv = floats(n * shape_.kv_size());
}

void transformer::forward(const std::vector<float>& params, const std::int32_t* tokens) {
  const model_view<const float> w = view_of(layout_, params.data());
  const std::int64_t n = rows();
  const std::int64_t d = shape_.hidden_size;
  std::copy_n(tokens, n, acts_.tokens.begin());
  embedding_forward(w.embed, tokens, n, d, acts_.layers[0].h_in.data());
  for (std::size_t l = 0; l < acts_.layers.size(); ++l) {
    float* h_out =
        l + 1 < acts_.layers.size() ? acts_.layers[l + 1].h_in.data() : acts_.h_final.data();
    layer_forward(w.layers[l], acts_.layers[l], acts_.layers[l].h_in.data(), h_out);
  }
  rms_norm_forward(acts_.h_final.data(), w.final_norm, n, d, shape_.rms_norm_eps,
                   acts_.x_final.data(), acts_.rstd_final.data());
  parallel_matmul_nt({acts_.x_final.data(), n, d, d}, {w.lm_head, shape_.vocab_size, d, d},
                     {acts_.logits.data(), shape_.vocab_size});
}

void transformer::layer_forward(const layer_view<const float>& w, layer_activations& a,
                                const float* h_in, float* h_out) {
  const std::int64_t n = rows();
  const std::int64_t d = shape_.hidden_size;
  const std::int64_t f = shape_.intermediate_size;
  const std::int64_t qs = shape_.q_size();
  const std::int64_t kvs = shape_.kv_size();
  rms_norm_forward(h_in, w.attn_norm, n, d, shape_.rms_norm_eps, a.x1.data(), a.rstd1.data());
  const matrix x1{a.x1.data(), n, d, d};
  parallel_matmul_nt(x1, {w.wq, qs, d, d}, {a.q.data(), qs});
  parallel_matmul_nt(x1, {w.wk, kvs, d, d}, {a.k.data(), kvs});
  parallel_matmul_nt(x1, {w.wv, kvs, d, d}, {a.v.data(), kvs});
  rope_forward(rope_, acts_.positions.data(), n, shape_.num_heads, a.q.data());
  rope_forward(rope_, acts_.positions.data(), n, shape_.num_kv_heads, a.k.data());
  const attention_shape as{acts_.batch, acts_.seq_len, shape_.num_heads, shape_.num_kv_heads,
                           shape_.head_dim};
  attention_forward(as, a.q.data(), a.k.data(), a.v.data(), a.probs.data(), a.attn.data());
  parallel_matmul_nt({a.attn.data(), n, qs, qs}, {w.wo, d, qs, qs}, {a.h_mid.data(), d});
  add_into(a.h_mid.data(), h_in, n * d);
  rms_norm_forward(a.h_mid.data(), w.mlp_norm, n, d, shape_.rms_norm_eps, a.x2.data(),
                   a.rstd2.data());
  const matrix x2{a.x2.data(), n, d, d};
  parallel_matmul_nt(x2, {w.w_gate, f, d, d}, {a.gate.data(), f});
  parallel_matmul_nt(x2, {w.w_up, f, d, d}, {a.up.data(), f});
  swiglu_forward(a.gate.data(), a.up.data(), n * f, a.mlp.data());
  parallel_matmul_nt({a.mlp.data(), n, f, f}, {w.w_down, d, f, f}, {h_out, d});
  add_into(h_out, a.h_mid.data(), n * d);
}

double transformer::loss_and_logit_gradient(const std::int32_t* targets) {
  return cross_entropy_forward_backward(acts_.logits.data(), targets, rows(), shape_.vocab_size);
}

}  // namespace pagedserve::train
