#include "kernels/cpu/cpu_backend.h"

#include <cstdlib>
#include <cstring>
#include <functional>

#include "kernels/check.h"
#include "kernels/cpu/cpu_ops.h"
#include "kernels/cpu/int4_tiles.h"
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

namespace {

// Whether this processor's kernels read int4 tiles, and the weight has their layout.
bool packs_int4_tiles(const quantized_weight& host) {
  return cpu::simd::active_kernels().int4_tiles != nullptr && cpu::has_int4_tiles_layout(host);
}

// One weight of `one`'s shape per slice(e), e < experts, packed into one u8 buffer appended
// to storage: [bytes], or [experts, bytes] for a stack (moe_ops.h). input_order: the caller's.
quantized_weight packed_tiles(cpu_backend& be, const quantized_weight& one, std::int64_t experts,
                              bool stack,
                              const std::function<quantized_weight(std::int64_t)>& slice,
                              std::vector<buffer>& storage) {
  const cpu::int4_tiles_layout l = cpu::int4_tiles_layout_of(one);
  const std::int64_t bytes = l.num_tiles * l.tile_bytes;
  buffer codes = stack ? be.allocate(dtype::u8, {experts, bytes}) : be.allocate(dtype::u8, {bytes});
  for (std::int64_t e = 0; e < experts; ++e) {
    cpu::pack_int4_tiles(slice(e), codes.view().as<std::uint8_t>() + e * bytes);
  }
  quantized_weight w = one;
  w.packing = cpu::int4_tiles_packing;
  w.codes = codes.view();
  w.scales = {};
  w.zeros = {};
  w.input_order = {};
  storage.push_back(std::move(codes));
  return w;
}

}  // namespace

std::optional<quantized_weight> cpu_backend::upload_quantized(const quantized_weight& host,
                                                              std::vector<buffer>& storage) {
  if (!packs_int4_tiles(host)) return backend::upload_quantized(host, storage);
  quantized_weight w = packed_tiles(
      *this, host, 1, false, [&](std::int64_t) { return host; }, storage);
  if (!host.input_order.empty()) {
    buffer order = allocate(dtype::i32, {host.in_features});
    copy_from_host(order.view(), host.input_order.data);
    w.input_order = order.view();
    storage.push_back(std::move(order));
  }
  return w;
}

std::optional<expert_weights> cpu_backend::upload_quantized_experts(const expert_weights& host,
                                                                    std::vector<buffer>& storage) {
  const quantized_weight one = host.quantized_expert(0);
  if (!packs_int4_tiles(one)) return backend::upload_quantized_experts(host, storage);
  expert_weights w = host;
  w.quantized = packed_tiles(
      *this, one, host.num_experts, true, [&](std::int64_t e) { return host.quantized_expert(e); },
      storage);
  if (!host.quantized.input_order.empty()) {
    buffer order = allocate(dtype::i32, {host.num_experts, host.quantized.in_features});
    copy_from_host(order.view(), host.quantized.input_order.data);
    w.quantized.input_order = order.view();
    storage.push_back(std::move(order));
  }
  return w;
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
