#pragma once
// parameters: every weight of the model in one flat fp32 buffer (gradients and AdamW's
// moments use the same layout), each tensor named as HF transformers names it, and typed
// views of a buffer by layer for the forward and backward passes.

#include <cstdint>
#include <string>
#include <vector>

#include "train/model/model_shape.h"

namespace pagedserve::train {

struct parameter_tensor {
  std::string name;                 // HF name, e.g. "model.layers.0.self_attn.q_proj.weight"
  std::vector<std::int64_t> shape;  // [rows, cols] or [n]
  std::int64_t offset = 0;          // in floats, into the flat buffer
  std::int64_t numel = 0;
  bool decays = false;  // AdamW's weight decay: matrices yes, norm gains no
};

class parameter_layout {
 public:
  explicit parameter_layout(const model_shape& shape);
  [[nodiscard]] const std::vector<parameter_tensor>& tensors() const { return tensors_; }
  [[nodiscard]] std::int64_t total() const { return total_; }
  [[nodiscard]] const model_shape& shape() const { return shape_; }

 private:
  void add(std::string name, std::vector<std::int64_t> shape, bool decays);

  model_shape shape_;
  std::vector<parameter_tensor> tensors_;
  std::int64_t total_ = 0;
};

// One layer's tensors inside a flat buffer (weights are [out, in], row-major).
template <typename T>
struct layer_view {
  T* attn_norm;  // [D]
  T* wq;         // [H*hd, D]
  T* wk;         // [KV*hd, D]
  T* wv;         // [KV*hd, D]
  T* wo;         // [D, H*hd]
  T* mlp_norm;   // [D]
  T* w_gate;     // [F, D]
  T* w_up;       // [F, D]
  T* w_down;     // [D, F]
};

template <typename T>
struct model_view {
  T* embed;  // [V, D]
  std::vector<layer_view<T>> layers;
  T* final_norm;  // [D]
  T* lm_head;     // [V, D]: the output projection; == embed when tied
};

// Views in the layout's order (the constructor adds tensors in exactly this order).
[[nodiscard]] model_view<float> view_of(const parameter_layout& layout, float* base);
[[nodiscard]] model_view<const float> view_of(const parameter_layout& layout, const float* base);

// GPT-2/Llama initialisation from `seed`: matrices N(0, 0.02), the two projections that write
// into the residual stream (o_proj, down_proj) scaled by 1/sqrt(2 * layers), norm gains 1.
void initialise(const parameter_layout& layout, std::uint64_t seed, std::vector<float>& params);

}  // namespace pagedserve::train
