#pragma once
// cpu_backend: the reference backend. Host memory, fp32 weights and activations (bf16 and
// f16 checkpoints are widened once, at upload; int4, int8 and fp8 weights stay quantized and
// linear() reads their codes). Every op finishes before it returns.

#include <memory>

#include "kernels/backend.h"

namespace pagedserve::kernels {

struct cpu_backend_options {
  // int4 products of few rows of x (decode) from x quantized to int8 per weight group
  // (absmax / 127), where the processor has AVX512-VNNI: llama.cpp's Q4_0 x Q8_0 numerics,
  // faster, but no longer the logits of the checkpoint's dequantized twin. Off: exact
  // (fp32 activations).
  bool int8_activations = false;
};

class cpu_backend final : public backend {
 public:
  explicit cpu_backend(const cpu_backend_options& options = {}) : options_(options) {}

  [[nodiscard]] std::string_view name() const override { return "cpu"; }
  [[nodiscard]] dtype compute_type() const override { return dtype::f32; }

  [[nodiscard]] buffer allocate(dtype type, std::initializer_list<std::int64_t> shape) override;
  [[nodiscard]] std::shared_ptr<void> allocate_host(std::size_t bytes) override;
  void fill_zero(const tensor& dst) override;
  void copy_from_host(const tensor& dst, const void* src) override;
  void copy_to_host(void* dst, const tensor& src) override;
  // Ops finish before they return, so the asynchronous copies are the synchronous ones.
  void copy_from_host_async(const tensor& dst, const void* src) override {
    copy_from_host(dst, src);
  }
  void copy_to_host_async(void* dst, const tensor& src) override { copy_to_host(dst, src); }
  void copy(const tensor& dst, const tensor& src) override;
  void upload_f32(const tensor& dst, std::span<const float> src) override;

  void embedding(const embedding_params& p) override;
  void rms_norm(const rms_norm_params& p) override;
  void add_rms_norm(const add_rms_norm_params& p) override;
  void linear(const linear_params& p) override;
  // int4, int8 and fp8 e4m3 weights are read from their codes (kernels/cpu/quantized_linear_op).
  [[nodiscard]] bool computes_with(weight_format format) const override {
    return format == weight_format::dense || format == weight_format::int4 ||
           format == weight_format::int8 || format == weight_format::fp8_e4m3;
  }
  // int4 layers in the CPU's tiles (cpu/int4_tiles.h) where the kernel set reads them; the
  // host layout otherwise.
  [[nodiscard]] std::optional<quantized_weight> upload_quantized(
      const quantized_weight& host, std::vector<buffer>& storage) override;
  [[nodiscard]] std::optional<expert_weights> upload_quantized_experts(
      const expert_weights& host, std::vector<buffer>& storage) override;
  void rope(const rope_params& p) override;
  void kv_write(const kv_write_params& p) override;
  void paged_attention(const paged_attention_params& p) override;
  void silu_mul(const silu_mul_params& p) override;
  void gather_rows(const gather_rows_params& p) override;
  void add(const add_params& p) override;
  void scatter_tokens(const scatter_tokens_params& p) override;

  [[nodiscard]] bool runs_moe() const override { return true; }
  void moe_route(const moe_route_params& p) override;
  // Each chosen expert's projections through linear() (dense or quantized, kernels/cpu/moe_op).
  void fused_moe(const fused_moe_params& p) override;
  void sigmoid_gated_add(const sigmoid_gated_add_params& p) override;
  [[nodiscard]] std::int64_t fused_moe_scratch_bytes(const fused_moe_shape& shape) const override;

  void synchronize() override {}

 private:
  cpu_backend_options options_;
};

[[nodiscard]] std::unique_ptr<backend> make_cpu_backend(const cpu_backend_options& options = {});

}  // namespace pagedserve::kernels
