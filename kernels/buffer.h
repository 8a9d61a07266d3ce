#pragma once
// buffer: backend memory with its owner's release function attached. Copies share the
// memory (the last copy frees it), so weights and caches can be handed around by value.

#include <memory>
#include <utility>

#include "kernels/tensor.h"

namespace pagedserve::kernels {

class buffer {
 public:
  buffer() = default;
  buffer(tensor view, std::shared_ptr<void> storage) : view_(view), storage_(std::move(storage)) {}

  [[nodiscard]] const tensor& view() const { return view_; }
  [[nodiscard]] bool empty() const { return storage_ == nullptr; }

 private:
  tensor view_;
  std::shared_ptr<void> storage_;
};

}  // namespace pagedserve::kernels
