#include "kernels/cpu/cpu_backend.h"

#include <cstdlib>
#include <cstring>

#include "kernels/check.h"
#include "kernels/cpu/cpu_ops.h"
#include "kernels/cpu/linear_op.h"
#include "kernels/cpu/moe_op.h"
#include "kernels/cpu/simd/simd_kernels.h"

namespace pagedserve::kernels {
namespace {

// Cache-line alignment keeps BLAS and vector loops on their fast paths.
constexpr std::size_t alignment = 64;

}  // namespace

buffer cpu_backend::allocate(dtype type, std::initializer_list<std::int64_t> shape) {
  tensor view = tensor::make(nullptr, type, shape);
  const std::size_t bytes = view.num_bytes();
  const std::size_t rounded = (bytes + alignment - 1) / alignment * alignment;
  void* memory = std::aligned_alloc(alignment, rounded == 0 ? alignment : rounded);
  KERNEL_CHECK("allocate", memory != nullptr);
  view.data = memory;
  return buffer(view, std::shared_ptr<void>(memory, std::free));
}

std::shared_ptr<void> cpu_backend::allocate_host(std::size_t bytes) {
  const std::size_t rounded = (bytes + alignment - 1) / alignment * alignment;
  void* memory = std::aligned_alloc(alignment, rounded == 0 ? alignment : rounded);
  KERNEL_CHECK("allocate_host", memory != nullptr);
  return {memory, std::free};
}

void cpu_backend::copy(const tensor& dst, const tensor& src) {
  KERNEL_CHECK("copy", dst.num_bytes() == src.num_bytes());
  if (dst.num_bytes() != 0) std::memmove(dst.data, src.data, src.num_bytes());
}

void cpu_backend::fill_zero(const tensor& dst) { std::memset(dst.data, 0, dst.num_bytes()); }

void cpu_backend::copy_from_host(const tensor& dst, const void* src) {
  if (dst.num_bytes() != 0) std::memcpy(dst.data, src, dst.num_bytes());
}

void cpu_backend::copy_to_host(void* dst, const tensor& src) {
  if (src.num_bytes() != 0) std::memcpy(dst, src.data, src.num_bytes());
}

void cpu_backend::upload_f32(const tensor& dst, std::span<const float> src) {
  KERNEL_CHECK("upload_f32", dst.type == dtype::f32);
  KERNEL_CHECK("upload_f32", static_cast<std::int64_t>(src.size()) == dst.numel());
  copy_from_host(dst, src.data());
}

void cpu_backend::embedding(const embedding_params& p) { cpu::embedding(p); }
void cpu_backend::rms_norm(const rms_norm_params& p) { cpu::rms_norm(p); }
void cpu_backend::add_rms_norm(const add_rms_norm_params& p) { cpu::add_rms_norm(p); }
void cpu_backend::linear(const linear_params& p) {
  if (p.quantized.is_quantized()) {
    cpu::quantized_linear(p, cpu::simd::active_kernels(), {options_.int8_activations});
    return;
  }
  cpu::linear(p);
}
void cpu_backend::rope(const rope_params& p) { cpu::rope(p); }
void cpu_backend::kv_write(const kv_write_params& p) { cpu::kv_write(p); }
void cpu_backend::paged_attention(const paged_attention_params& p) { cpu::paged_attention(p); }
void cpu_backend::silu_mul(const silu_mul_params& p) { cpu::silu_mul(p); }
void cpu_backend::moe_route(const moe_route_params& p) { cpu::moe_route(p); }
void cpu_backend::fused_moe(const fused_moe_params& p) {
  cpu::fused_moe(p, [this](const linear_params& expert) { linear(expert); });
}
void cpu_backend::sigmoid_gated_add(const sigmoid_gated_add_params& p) {
  cpu::sigmoid_gated_add(p);
}
std::int64_t cpu_backend::fused_moe_scratch_bytes(const fused_moe_shape& shape) const {
  return cpu::fused_moe_scratch_bytes(shape);
}
void cpu_backend::gather_rows(const gather_rows_params& p) { cpu::gather_rows(p); }
void cpu_backend::add(const add_params& p) { cpu::add(p); }
void cpu_backend::scatter_tokens(const scatter_tokens_params& p) { cpu::scatter_tokens(p); }

std::unique_ptr<backend> make_cpu_backend(const cpu_backend_options& options) {
  return std::make_unique<cpu_backend>(options);
}

}  // namespace pagedserve::kernels
