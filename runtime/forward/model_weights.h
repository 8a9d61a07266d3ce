#pragma once
// model_weights: a model's tensors uploaded to a backend, in the backend's compute type.
// Built once from a host checkpoint (bf16/f16 widened to fp32 on the host, then stored as
// the backend likes: fp32 on CPU, bf16 on CUDA). Optional tensors (biases, q/k norms) are
// empty buffers when the model has none. A tied lm_head shares embed_tokens' buffer.

#include <vector>

#include "common/result.h"
#include "kernels/backend.h"
#include "runtime/model/checkpoint.h"
#include "runtime/model/model_config.h"

namespace pagedserve::forward {

struct layer_weights {
  kernels::buffer input_norm;
  kernels::buffer q_proj, k_proj, v_proj;
  kernels::buffer q_bias, k_bias, v_bias;
  kernels::buffer q_norm, k_norm;
  kernels::buffer o_proj, o_bias;
  kernels::buffer post_attention_norm;
  kernels::buffer gate_proj, up_proj, down_proj;
  kernels::buffer gate_bias, up_bias, down_bias;
};

struct model_weights {
  kernels::buffer embed_tokens;  // [vocab, hidden]
  std::vector<layer_weights> layers;
  kernels::buffer final_norm;     // [hidden]
  kernels::buffer lm_head;        // [vocab, hidden]
  kernels::buffer rope_inv_freq;  // [head_dim / 2] f32
};

// Fails (not_found / invalid_argument) when a tensor the config implies is missing or has
// another shape than the config says.
[[nodiscard]] result<model_weights> upload_model_weights(kernels::backend& backend,
                                                         const model_config& config,
                                                         const checkpoint& weights);

}  // namespace pagedserve::forward
