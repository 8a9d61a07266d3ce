#include "runtime/forward/weight_uploader.h"

#include "runtime/model/safetensors_file.h"

namespace pagedserve::forward {
namespace {

using kernels::buffer;

kernels::dtype stored_as(weight_dtype type) {
  switch (type) {
    case weight_dtype::bf16:
      return kernels::dtype::bf16;
    case weight_dtype::f16:
      return kernels::dtype::f16;
    case weight_dtype::f32:
      break;
  }
  return kernels::dtype::f32;
}

std::vector<std::int64_t> shape_of(std::int64_t rows, std::int64_t cols) {
  return cols == 0 ? std::vector<std::int64_t>{rows} : std::vector<std::int64_t>{rows, cols};
}

}  // namespace

void weight_uploader::fail(error_code code, std::string message) {
  if (!error_) error_ = make_error(code, std::move(message));
}

const host_tensor* weight_uploader::find_shaped(const std::string& name,
                                                const std::vector<std::int64_t>& want) {
  if (error_) return nullptr;
  const host_tensor* t = weights_.find(name);
  if (t == nullptr) {
    fail(error_code::not_found, "missing tensor " + name);
    return nullptr;
  }
  if (t->shape != want) {
    fail(error_code::invalid_argument, "tensor " + name + " has shape " +
                                           shape_to_string(t->shape) + ", expected " +
                                           shape_to_string(want));
    return nullptr;
  }
  return t;
}

bool weight_uploader::store(const kernels::tensor& dst, const std::string& name, std::int64_t rows,
                            std::int64_t cols) {
  const host_tensor* t = find_shaped(name, shape_of(rows, cols));
  if (t == nullptr) return false;
  if (stored_as(t->dtype) == dst.type) {
    // The backend keeps the checkpoint's own type (bf16 on CUDA): the bytes go as they are.
    backend_.copy_from_host(dst, t->bytes.data());
    return true;
  }
  host_f32_.resize(static_cast<std::size_t>(t->numel()));
  convert_to_f32(*t, host_f32_);
  backend_.upload_f32(dst, host_f32_);
  return true;
}

buffer weight_uploader::take(const std::string& name, std::int64_t rows, std::int64_t cols) {
  if (error_) return {};
  buffer b = cols == 0 ? backend_.allocate(backend_.compute_type(), {rows})
                       : backend_.allocate(backend_.compute_type(), {rows, cols});
  if (!store(b.view(), name, rows, cols)) return {};
  return b;
}

const quant::quantized_linear* weight_uploader::find_quantized(const std::string& name,
                                                               std::int64_t rows,
                                                               std::int64_t cols) {
  const quant::quantized_linear* q = weights_.find_quantized(name);
  if (q == nullptr || error_) return nullptr;
  if (q->out_features != rows || q->in_features != cols) {
    fail(error_code::invalid_argument,
         "quantized layer " + name + " is [" + std::to_string(q->out_features) + ", " +
             std::to_string(q->in_features) + "], expected [" + std::to_string(rows) + ", " +
             std::to_string(cols) + "]");
    return nullptr;
  }
  return q;
}

linear_weight weight_uploader::take_linear(const std::string& name, std::int64_t rows,
                                           std::int64_t cols) {
  const quant::quantized_linear* q = find_quantized(name, rows, cols);
  if (q == nullptr) return error_ ? linear_weight{} : linear_weight{take(name, rows, cols), {}, {}};
  if (backend_.computes_with(q->format)) {
    if (std::optional<linear_weight> w = upload_quantized(backend_, *q)) {
      ++kept_quantized_;
      return std::move(*w);
    }
  }
  ++dequantized_;
  buffer b = backend_.allocate(backend_.compute_type(), {rows, cols});
  backend_.upload_f32(b.view(), quant::dequantize(*q));
  return linear_weight{b, {}, {}};
}

}  // namespace pagedserve::forward
