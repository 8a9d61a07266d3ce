#pragma once
// transformer: the trainer's own Llama forward and backward over batches of whole windows
// (it shares no code with the engine's runtime/forward, so comparing the two checks both).
//
//   h = embed(tokens)
//   per layer:  x1 = rms_norm(h) * g1;  q, k, v = x1 Wq^T, x1 Wk^T, x1 Wv^T;  rope(q, k)
//               h += causal_gqa_attention(q, k, v) Wo^T
//               x2 = rms_norm(h) * g2;  h += (silu(x2 Wg^T) * (x2 Wu^T)) Wd^T
//   logits = (rms_norm(h) * g_final) lm_head^T     (lm_head: the embedding, when tied)

#include <cstdint>
#include <vector>

#include "train/model/activations.h"
#include "train/model/layer_ops.h"
#include "train/model/parameters.h"

namespace pagedserve::train {

class transformer {
 public:
  transformer(const parameter_layout& layout, std::int64_t batch, std::int64_t seq_len);

  // Fills acts().logits for `tokens` ([batch * seq_len]); keeps what backward needs.
  void forward(const std::vector<float>& params, const std::int32_t* tokens);
  // Mean cross-entropy of the logits against `targets`; turns acts().logits into its
  // gradient. Call after forward, before backward.
  double loss_and_logit_gradient(const std::int32_t* targets);
  // Overwrites `grads` (the layout's size) with d(loss)/d(params).
  void backward(const std::vector<float>& params, std::vector<float>& grads);

  [[nodiscard]] const activations& acts() const { return acts_; }
  [[nodiscard]] std::int64_t rows() const { return acts_.rows(); }

 private:
  void layer_forward(const layer_view<const float>& w, layer_activations& a, const float* h_in,
                     float* h_out);
  void layer_backward(const layer_view<const float>& w, const layer_view<float>& g,
                      const layer_activations& a);
  void mlp_backward(const layer_view<const float>& w, const layer_view<float>& g,
                    const layer_activations& a);
  void attention_block_backward(const layer_view<const float>& w, const layer_view<float>& g,
                                const layer_activations& a);

  const parameter_layout& layout_;
  model_shape shape_;
  rope_table rope_;
  activations acts_;
  // backward's buffers, sized once (see the constructor).
  struct backward_buffers {
    std::vector<float> x_t;      // an input, transposed: [in, rows]
    std::vector<float> dy_t;     // an output gradient, transposed: [out, rows]
    std::vector<float> w_t;      // a weight, transposed: [in, out]
    std::vector<float> dx_part;  // [rows, in]: one product's share of an input gradient
    std::vector<float> dx;       // [rows, max(D, F)]
    std::vector<float> dnorm;    // [rows, D]
    std::vector<float> dh;       // [rows, D]: the residual stream's gradient
    std::vector<float> dmlp;     // [rows, F]
    std::vector<float> dgate;    // [rows, F]
    std::vector<float> dup;      // [rows, F]
    std::vector<float> dattn;    // [rows, H*hd]
    std::vector<float> dq;       // [rows, H*hd]
    std::vector<float> dk;       // [rows, KV*hd]
    std::vector<float> dv;       // [rows, KV*hd]
  };
  // y = x W^T over rows: dW = dy^T x (overwritten), dx = dy W (overwritten, or added to
  // when `add`). x_t is x transposed ([in, rows]).
  void linear_backward(const float* dy, std::int64_t out, const float* x_t, std::int64_t in,
                       const float* w, float* dw, float* dx, bool add);
  // x transposed into buffers_.x_t.
  const float* transposed(const std::vector<float>& x, std::int64_t cols);

  backward_buffers buffers_;
};

}  // namespace pagedserve::train
