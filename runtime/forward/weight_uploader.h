#pragma once
// weight_uploader: takes a checkpoint's tensors onto a backend one by one, checking each
// against the shape the config implies, and remembers the first failure, so the loaders
// (model_weights.cpp, moe_weights.cpp) read as lists of names.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "kernels/backend.h"
#include "runtime/forward/linear_weight.h"
#include "runtime/model/checkpoint.h"

namespace pagedserve::forward {

// A checkpoint's quantized linear layers on the backend: kept as codes (the backend computes
// with them) or dequantized to the compute type at load (it does not, for that format or
// that layer's shape).
struct quantized_layer_counts {
  std::int64_t kept = 0;
  std::int64_t dequantized = 0;
};

class weight_uploader {
 public:
  weight_uploader(kernels::backend& backend, const checkpoint& weights)
      : backend_(backend), weights_(weights) {}

  [[nodiscard]] kernels::backend& backend() const { return backend_; }
  [[nodiscard]] const checkpoint& weights() const { return weights_; }

  // The dense tensor `name` of shape [rows] (cols 0) or [rows, cols], in the compute type.
  kernels::buffer take(const std::string& name, std::int64_t rows, std::int64_t cols = 0);
  // Stores the dense tensor `name` of shape [rows, cols] into `dst` (compute type, same
  // number of elements); false after a failure.
  bool store(const kernels::tensor& dst, const std::string& name, std::int64_t rows,
             std::int64_t cols);
  // A linear layer's weight: its quantized form where the checkpoint has one (uploaded in the
  // backend's layout where it computes with the layer, dequantized to the compute type where
  // not), else the dense tensor.
  linear_weight take_linear(const std::string& name, std::int64_t rows, std::int64_t cols);
  kernels::buffer take_if(bool present, const std::string& name, std::int64_t rows,
                          std::int64_t cols = 0) {
    return present ? take(name, rows, cols) : kernels::buffer{};
  }
  // The quantized layer `name` checked to be [rows, cols]; nullptr when it is dense (or after
  // a failure, which it records).
  const quant::quantized_linear* find_quantized(const std::string& name, std::int64_t rows,
                                                std::int64_t cols);

  void fail(error_code code, std::string message);
  void count_kept(std::int64_t layers) { kept_quantized_ += layers; }
  void count_dequantized(std::int64_t layers) { dequantized_ += layers; }

  [[nodiscard]] bool failed() const { return error_.has_value(); }
  [[nodiscard]] const std::optional<error>& first_error() const { return error_; }
  [[nodiscard]] quantized_layer_counts counts() const { return {kept_quantized_, dequantized_}; }

 private:
  const host_tensor* find_shaped(const std::string& name, const std::vector<std::int64_t>& want);

  kernels::backend& backend_;
  const checkpoint& weights_;
  std::vector<float> host_f32_;  // reused conversion scratch
  std::optional<error> error_;
  std::int64_t kept_quantized_ = 0;
  std::int64_t dequantized_ = 0;
};

}  // namespace pagedserve::forward
