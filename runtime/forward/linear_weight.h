#pragma once
// linear_weight: one linear layer's weight on a backend, dense (a buffer in the compute
// type) or quantized (the backend buffers behind a kernels::quantized_weight, for backends
// that compute with that format; others get the layer dequantized at load, see
// model_weights.cpp). The forward only asks for the op's parameters.

#include <optional>
#include <vector>

#include "kernels/backend.h"
#include "runtime/quant/quantized_linear.h"

namespace pagedserve::forward {

struct linear_weight {
  kernels::buffer dense;
  kernels::quantized_weight quantized;   // views into `storage`; format dense when unused
  std::vector<kernels::buffer> storage;  // keeps the quantized views' memory alive

  [[nodiscard]] kernels::linear_params params(const kernels::tensor& out, const kernels::tensor& x,
                                              const kernels::tensor& bias) const {
    return {out, x, dense.view(), bias, quantized};
  }
  // Bytes of backend memory the weight takes.
  [[nodiscard]] std::int64_t num_bytes() const;
};

// The layer's buffers on `backend` in the layout its linear reads (backend::upload_quantized:
// the host layout, or the backend's repacking of it); nullopt where the backend does not
// compute with this layer.
[[nodiscard]] std::optional<linear_weight> upload_quantized(kernels::backend& backend,
                                                            const quant::quantized_linear& layer);

}  // namespace pagedserve::forward
