#pragma once
// model_weights: a model's tensors uploaded to a backend, in the backend's compute type.
// Built once from a host checkpoint (bf16/f16 widened to fp32 on the host, then stored as
// the backend likes: fp32 on CPU, bf16 on CUDA). Optional tensors (biases, q/k norms) are
// empty buffers when the model has none. A tied lm_head shares embed_tokens' buffer.
// Quantized linears (checkpoint::find_quantized) stay quantized on a backend that computes
// with their format, and are dequantized on the host at load for one that does not.

#include <vector>

#include "common/result.h"
#include "kernels/backend.h"
#include "runtime/forward/linear_weight.h"
#include "runtime/forward/moe_weights.h"
#include "runtime/forward/weight_uploader.h"
#include "runtime/model/checkpoint.h"
#include "runtime/model/model_config.h"

namespace pagedserve::forward {

struct layer_weights {
  kernels::buffer input_norm;
  linear_weight q_proj, k_proj, v_proj;
  kernels::buffer q_bias, k_bias, v_bias;
  kernels::buffer q_norm, k_norm;
  linear_weight o_proj;
  kernels::buffer o_bias;
  kernels::buffer post_attention_norm;
  linear_weight gate_proj, up_proj, down_proj;
  kernels::buffer gate_bias, up_bias, down_bias;
  moe_layer_weights moe;  // a sparse layer's (the dense MLP above is then empty)
};

struct model_weights {
  kernels::buffer embed_tokens;  // [vocab, hidden]
  std::vector<layer_weights> layers;
  kernels::buffer final_norm;  // [hidden]
  linear_weight lm_head;       // [vocab, hidden]

  // Backend bytes of every weight (a tied lm_head counted once).
  [[nodiscard]] std::int64_t num_bytes() const;
  kernels::buffer rope_inv_freq;  // [head_dim / 2] f32
  // Per layer, the scales of an fp8 KV cache: the checkpoint's, else 1.0 (vLLM's default).
  std::vector<float> k_scales;
  std::vector<float> v_scales;
  quantized_layer_counts quantized_layers;
};

// Fails (not_found / invalid_argument) when a tensor the config implies is missing or has
// another shape than the config says.
[[nodiscard]] result<model_weights> upload_model_weights(kernels::backend& backend,
                                                         const model_config& config,
                                                         const checkpoint& weights);

}  // namespace pagedserve::forward
