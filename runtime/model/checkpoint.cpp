#include "runtime/model/checkpoint.h"

#include <cstdio>
#include <cstdlib>

#include "runtime/model/dtype.h"

namespace pagedserve {

std::int64_t host_tensor::numel() const {
  std::int64_t count = 1;
  for (std::int64_t extent : shape) count *= extent;
  return count;
}

const host_tensor* checkpoint::find(const std::string& name) const {
  auto it = tensors_.find(name);
  return it == tensors_.end() ? nullptr : &it->second;
}

void checkpoint::add(host_tensor tensor, std::shared_ptr<const void> keep_alive) {
  const auto expected_bytes = static_cast<std::size_t>(tensor.numel()) * element_size(tensor.dtype);
  if (tensor.bytes.size() != expected_bytes || tensors_.contains(tensor.name)) {
    std::fprintf(stderr, "checkpoint::add(%s): %zu bytes for %zu expected, or added twice\n",
                 tensor.name.c_str(), tensor.bytes.size(), expected_bytes);
    std::abort();
  }
  storage_.push_back(std::move(keep_alive));
  std::string name = tensor.name;
  tensors_.emplace(std::move(name), std::move(tensor));
}

const quant::quantized_linear* checkpoint::find_quantized(const std::string& name) const {
  auto it = quantized_.find(name);
  return it == quantized_.end() ? nullptr : it->second.get();
}

void checkpoint::add_quantized(std::string name,
                               std::shared_ptr<const quant::quantized_linear> layer) {
  quantized_.insert_or_assign(std::move(name), std::move(layer));
}

}  // namespace pagedserve
