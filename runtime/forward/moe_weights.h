#pragma once
// moe_weights: a sparse layer's router, experts and shared expert on a backend. Each
// projection of the routed experts is one stack (kernels::expert_weights) so that fused_moe
// reaches any expert by offset: dense [E, out, in] in the compute type, or quantized, where
// every expert of the projection has the same format and group shape and the backend's
// fused_moe computes with it; otherwise each quantized expert is dequantized into a dense stack.

#include <cstdint>
#include <vector>

#include "kernels/backend.h"
#include "runtime/forward/linear_weight.h"
#include "runtime/forward/weight_uploader.h"
#include "runtime/model/model_config.h"

namespace pagedserve::forward {

struct expert_stack {
  kernels::expert_weights weights;       // views into `dense` or `storage`
  kernels::buffer dense;                 // [E, out, in] when not quantized
  std::vector<kernels::buffer> storage;  // the quantized stack's buffers

  [[nodiscard]] std::int64_t num_bytes() const;
};

struct moe_layer_weights {
  kernels::buffer router;  // [E, hidden]
  expert_stack gate, up, down;
  linear_weight shared_gate_proj, shared_up_proj, shared_down_proj;  // qwen2_moe
  kernels::buffer shared_expert_gate;                                // [1, hidden], qwen2_moe

  [[nodiscard]] std::int64_t num_bytes() const;
};

// The router, experts and shared expert of sparse layer `layer` (moe_weight_names.h).
[[nodiscard]] moe_layer_weights take_moe_layer(weight_uploader& up, const model_config& config,
                                               std::int64_t layer);

}  // namespace pagedserve::forward
