#include "runtime/forward/linear_weight.h"

namespace pagedserve::forward {
namespace {

// A backend copy of one host view (empty stays empty).
kernels::tensor upload_view(kernels::backend& backend, const kernels::tensor& host,
                            std::vector<kernels::buffer>& storage) {
  if (host.empty()) return {};
  kernels::buffer b = backend.allocate(host.type, {host.numel()});
  backend.copy_from_host(b.view(), host.data);
  kernels::tensor view = host;
  view.data = b.view().data;
  storage.push_back(std::move(b));
  return view;
}

}  // namespace

std::int64_t linear_weight::num_bytes() const {
  std::int64_t bytes = dense.empty() ? 0 : static_cast<std::int64_t>(dense.view().num_bytes());
  for (const kernels::buffer& b : storage) bytes += static_cast<std::int64_t>(b.view().num_bytes());
  return bytes;
}

linear_weight upload_quantized(kernels::backend& backend, const quant::quantized_linear& layer) {
  const kernels::quantized_weight host = layer.host_view();
  linear_weight w;
  w.quantized = host;
  w.quantized.codes = upload_view(backend, host.codes, w.storage);
  w.quantized.scales = upload_view(backend, host.scales, w.storage);
  w.quantized.zeros = upload_view(backend, host.zeros, w.storage);
  w.quantized.input_order = upload_view(backend, host.input_order, w.storage);
  return w;
}

}  // namespace pagedserve::forward
