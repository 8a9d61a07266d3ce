#include <algorithm>

#include "train/model/causal_attention.h"
#include "train/model/matrix_ops.h"
#include "train/model/transformer.h"

namespace pagedserve::train {
void transformer::backward(const std::vector<float>& params, std::vector<float>& grads) {
  const model_view<const float> w = view_of(layout_, params.data());
  grads.assign(static_cast<std::size_t>(layout_.total()), 0.0F);
  const model_view<float> g = view_of(layout_, grads.data());
  const std::int64_t n = rows();
  const std::int64_t d = shape_.hidden_size;
  backward_buffers& b = buffers_;
  // logits = x_final lm_head^T. Tied, this writes the embedding's gradient first and the
  // input side's rows are added last.
  linear_backward(acts_.logits.data(), shape_.vocab_size, transposed(acts_.x_final, d), d,
                  w.lm_head, g.lm_head, b.dx.data(), false);
  rms_norm_backward(acts_.h_final.data(), w.final_norm, acts_.rstd_final.data(), b.dx.data(), n, d,
                    b.dh.data(), g.final_norm);
  for (std::size_t l = acts_.layers.size(); l-- > 0;) {
    layer_backward(w.layers[l], g.layers[l], acts_.layers[l]);
  }
  embedding_backward(acts_.tokens.data(), b.dh.data(), n, d, g.embed);
}

// buffers_.dh holds d(loss)/d(layer output) and leaves holding d(loss)/d(layer input).
void transformer::layer_backward(const layer_view<const float>& w, const layer_view<float>& g,
                                 const layer_activations& a) {
  mlp_backward(w, g, a);
  attention_block_backward(w, g, a);
}

void transformer::mlp_backward(const layer_view<const float>& w, const layer_view<float>& g,
                               const layer_activations& a) {
  const std::int64_t n = rows();
  const std::int64_t d = shape_.hidden_size;
  const std::int64_t f = shape_.intermediate_size;
  backward_buffers& b = buffers_;
  linear_backward(b.dh.data(), d, transposed(a.mlp, f), f, w.w_down, g.w_down, b.dmlp.data(),
                  false);
  swiglu_backward(a.gate.data(), a.up.data(), b.dmlp.data(), n * f, b.dgate.data(), b.dup.data());
  const float* x2_t = transposed(a.x2, d);
  linear_backward(b.dgate.data(), f, x2_t, d, w.w_gate, g.w_gate, b.dx.data(), false);
  linear_backward(b.dup.data(), f, x2_t, d, w.w_up, g.w_up, b.dx.data(), true);
  rms_norm_backward(a.h_mid.data(), w.mlp_norm, a.rstd2.data(), b.dx.data(), n, d, b.dnorm.data(),
                    g.mlp_norm);
  add_into(b.dh.data(), b.dnorm.data(), n * d);
}

void transformer::attention_block_backward(const layer_view<const float>& w,
                                           const layer_view<float>& g, const layer_activations& a) {
  const std::int64_t n = rows();
  const std::int64_t d = shape_.hidden_size;
  const std::int64_t qs = shape_.q_size();
  const std::int64_t kvs = shape_.kv_size();
  backward_buffers& b = buffers_;
  linear_backward(b.dh.data(), d, transposed(a.attn, qs), qs, w.wo, g.wo, b.dattn.data(), false);
  const attention_shape as{acts_.batch, acts_.seq_len, shape_.num_heads, shape_.num_kv_heads,
                           shape_.head_dim};
  attention_backward(as, a.q.data(), a.k.data(), a.v.data(), a.probs.data(), b.dattn.data(),
                     b.dq.data(), b.dk.data(), b.dv.data());
  rope_backward(rope_, acts_.positions.data(), n, shape_.num_heads, b.dq.data());
  rope_backward(rope_, acts_.positions.data(), n, shape_.num_kv_heads, b.dk.data());
  const float* x1_t = transposed(a.x1, d);
  linear_backward(b.dq.data(), qs, x1_t, d, w.wq, g.wq, b.dx.data(), false);
  linear_backward(b.dk.data(), kvs, x1_t, d, w.wk, g.wk, b.dx.data(), true);
  linear_backward(b.dv.data(), kvs, x1_t, d, w.wv, g.wv, b.dx.data(), true);
  rms_norm_backward(a.h_in.data(), w.attn_norm, a.rstd1.data(), b.dx.data(), n, d, b.dnorm.data(),
                    g.attn_norm);
  add_into(b.dh.data(), b.dnorm.data(), n * d);
}

void transformer::linear_backward(const float* dy, std::int64_t out, const float* x_t,
                                  std::int64_t in, const float* w, float* dw, float* dx, bool add) {
  const std::int64_t n = rows();
  backward_buffers& b = buffers_;
  parallel_transpose({dy, n, out, out}, b.dy_t.data());
  parallel_matmul_nt({b.dy_t.data(), out, n, n}, {x_t, in, n, n}, {dw, in});
  parallel_transpose({w, out, in, in}, b.w_t.data());
  float* target = add ? b.dx_part.data() : dx;
  parallel_matmul_nt({dy, n, out, out}, {b.w_t.data(), in, out, out}, {target, in});
  if (add) add_into(dx, b.dx_part.data(), n * in);
}

const float* transformer::transposed(const std::vector<float>& x, std::int64_t cols) {
  const std::int64_t n = rows();
  parallel_transpose({x.data(), n, cols, cols}, buffers_.x_t.data());
  return buffers_.x_t.data();
}

}  // namespace pagedserve::train
