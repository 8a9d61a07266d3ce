#include "runtime/forward/linear_weight.h"

namespace pagedserve::forward {

std::int64_t linear_weight::num_bytes() const {
  std::int64_t bytes = dense.empty() ? 0 : static_cast<std::int64_t>(dense.view().num_bytes());
  for (const kernels::buffer& b : storage) bytes += static_cast<std::int64_t>(b.view().num_bytes());
  return bytes;
}

std::optional<linear_weight> upload_quantized(kernels::backend& backend,
                                              const quant::quantized_linear& layer) {
  linear_weight w;
  std::optional<kernels::quantized_weight> uploaded =
      backend.upload_quantized(layer.host_view(), w.storage);
  if (!uploaded) return std::nullopt;
  w.quantized = *uploaded;
  return w;
}

}  // namespace pagedserve::forward
