// cuda_backend: kernels::backend on a device_runtime (one stream). Every op checks its
// arguments on the host (kernels/cuda/cuda_ops.cuh) and enqueues; nothing waits but the
// synchronous copies and synchronize(). The same source builds against the CUDA runtime
// and against the SIMT emulator (device_runtime.h).

#include "kernels/cuda/cuda_backend.h"

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "kernels/check.h"
#include "kernels/cuda/cuda_ops.cuh"
#include "kernels/cuda/device_runtime.h"
#include "kernels/cuda/e4m3_gemm.h"
#include "kernels/cuda/half_bits.h"
#include "kernels/cuda/mixed_gemm_packing.h"
#include "kernels/cuda/quantized_linear.h"

namespace pagedserve::kernels {
namespace {

void check_linear(const linear_params& p) {
  const dtype type = p.x.type;
  KERNEL_CHECK("linear", is_float_type(type));
  KERNEL_CHECK("linear", p.weight.type == type && p.weight.rank == 2);
  KERNEL_CHECK("linear", p.out.type == type || p.out.type == dtype::f32);
  const std::int64_t out_features = p.weight.dim(0);
  const std::int64_t in_features = p.weight.dim(1);
  KERNEL_CHECK("linear", in_features > 0 && p.x.numel() % in_features == 0);
  KERNEL_CHECK("linear", p.out.numel() == p.x.numel() / in_features * out_features);
  KERNEL_CHECK("linear", p.bias.empty() || p.bias.numel() == out_features);
}

class cuda_backend final : public backend {
 public:
  cuda_backend(dtype compute_type, std::unique_ptr<cuda::device_runtime> runtime)
      : compute_type_(compute_type),
        runtime_(std::move(runtime)),
        stream_(runtime_->stream()),
        quantized_(*runtime_) {}
  cuda_backend(const cuda_backend&) = delete;
  cuda_backend& operator=(const cuda_backend&) = delete;
  // Buffers may outlive the backend; its own workspace goes after the stream has drained.
  ~cuda_backend() override { runtime_->synchronize(); }

  [[nodiscard]] std::string_view name() const override { return "cuda"; }
  [[nodiscard]] dtype compute_type() const override { return compute_type_; }

  [[nodiscard]] buffer allocate(dtype type, std::initializer_list<std::int64_t> shape) override {
    tensor view = tensor::make(nullptr, type, shape);
    std::shared_ptr<void> memory = runtime_->allocate(view.num_bytes());
    view.data = memory.get();
    return buffer(view, std::move(memory));
  }

  [[nodiscard]] std::shared_ptr<void> allocate_host(std::size_t bytes) override {
    return runtime_->allocate_pinned(bytes);
  }

  void fill_zero(const tensor& dst) override { runtime_->fill_zero(dst.data, dst.num_bytes()); }

  // Both wait, so the caller may free or reuse the host memory as soon as they return.
  void copy_from_host(const tensor& dst, const void* src) override {
    copy_from_host_async(dst, src);
    runtime_->synchronize();
  }
  void copy_to_host(void* dst, const tensor& src) override {
    copy_to_host_async(dst, src);
    runtime_->synchronize();
  }

  void copy_from_host_async(const tensor& dst, const void* src) override {
    runtime_->copy_to_device(dst.data, src, dst.num_bytes());
  }
  void copy_to_host_async(void* dst, const tensor& src) override {
    runtime_->copy_to_host(dst, src.data, src.num_bytes());
  }
  void copy(const tensor& dst, const tensor& src) override {
    KERNEL_CHECK("copy", dst.num_bytes() == src.num_bytes());
    // cudaMemcpyAsync is undefined for overlapping ranges (the emulator's memmove is not).
    const auto* to = static_cast<const std::byte*>(dst.data);
    const auto* from = static_cast<const std::byte*>(src.data);
    const auto bytes = static_cast<std::size_t>(src.num_bytes());
    KERNEL_CHECK("copy", to + bytes <= from || from + bytes <= to);
    runtime_->copy_on_device(dst.data, src.data, src.num_bytes());
  }

  void upload_f32(const tensor& dst, std::span<const float> src) override {
    KERNEL_CHECK("upload_f32", static_cast<std::int64_t>(src.size()) == dst.numel());
    if (dst.type == dtype::f32) {
      copy_from_host(dst, src.data());
      return;
    }
    KERNEL_CHECK("upload_f32", dst.type == dtype::bf16 || dst.type == dtype::f16);
    std::vector<std::uint16_t> bits(src.size());
    for (std::size_t i = 0; i < src.size(); ++i) {
      bits[i] =
          dst.type == dtype::bf16 ? cuda::f32_to_bf16_bits(src[i]) : cuda::f32_to_f16_bits(src[i]);
    }
    copy_from_host(dst, bits.data());
  }

  void embedding(const embedding_params& p) override { cuda::embedding(p, stream_); }
  void rms_norm(const rms_norm_params& p) override { cuda::rms_norm(p, stream_); }
  void add_rms_norm(const add_rms_norm_params& p) override { cuda::add_rms_norm(p, stream_); }
  void linear(const linear_params& p) override {
    if (p.quantized.is_quantized()) {
      quantized_.run(p.out, p.x, p.quantized, capturing_);
    } else {
      check_linear(p);
      runtime_->gemm(p.out, p.x, p.weight);
    }
    if (!p.bias.empty()) cuda::bias_add(p.out, p.bias, stream_);
  }
  void rope(const rope_params& p) override { cuda::rope(p, stream_); }
  void kv_write(const kv_write_params& p) override { cuda::kv_write(p, stream_); }
  void paged_attention(const paged_attention_params& p) override {
    const std::size_t needed = cuda::paged_attention_workspace_floats(p);
    float* scratch =
        needed == 0 ? nullptr : workspace(needed, cuda::paged_attention_workspace_bound(p));
    cuda::paged_attention(p, scratch, stream_);
  }
  void silu_mul(const silu_mul_params& p) override { cuda::silu_mul(p, stream_); }
  void gather_rows(const gather_rows_params& p) override { cuda::gather_rows(p, stream_); }
  void add(const add_params& p) override { cuda::add(p, stream_); }
  void scatter_tokens(const scatter_tokens_params& p) override { cuda::scatter_tokens(p, stream_); }

  // Mixture of experts (fused_moe_op.cu). Quantized stacks stay in the host layout, which the
  // grouped GEMM dequantizes as it reads; others (act-order, fp32 compute) are refused, and
  // the loader dequantizes them to the compute type.
  [[nodiscard]] bool runs_moe() const override { return true; }
  void moe_route(const moe_route_params& p) override { cuda::moe_route(p, stream_); }
  void fused_moe(const fused_moe_params& p) override { cuda::fused_moe(p, stream_); }
  void sigmoid_gated_add(const sigmoid_gated_add_params& p) override {
    cuda::sigmoid_gated_add(p, stream_);
  }
  [[nodiscard]] std::int64_t fused_moe_scratch_bytes(const fused_moe_shape& shape) const override {
    return cuda::fused_moe_scratch_bytes(shape);
  }
  [[nodiscard]] std::optional<expert_weights> upload_quantized_experts(
      const expert_weights& host, std::vector<buffer>& storage) override {
    if (!computes_with(host.quantized.format) || !cuda::fused_moe_reads(host.quantized)) {
      return std::nullopt;
    }
    return backend::upload_quantized_experts(host, storage);
  }

  void synchronize() override { runtime_->synchronize(); }

  [[nodiscard]] std::unique_ptr<stream_marker> make_marker() override {
    return runtime_->make_marker();
  }

  [[nodiscard]] std::optional<memory_figures> memory() const override { return runtime_->memory(); }

  [[nodiscard]] std::unique_ptr<captured_ops> capture(const std::function<void()>& ops) override {
    struct capture_flag {
      bool& flag;
      explicit capture_flag(bool& f) : flag(f) { flag = true; }
      ~capture_flag() { flag = false; }
      capture_flag(const capture_flag&) = delete;
      capture_flag& operator=(const capture_flag&) = delete;
    } const capturing(capturing_);  // reset even if capture throws
    return runtime_->capture(ops);
  }

  // int4, int8 and e4m3 weights stay quantized in 16-bit compute (the tensor cores' types);
  // fp32 compute dequantizes them at load, to match the fp32 reference.
  [[nodiscard]] bool computes_with(weight_format format) const override {
    return format == weight_format::dense || compute_type_ != dtype::f32;
  }

  [[nodiscard]] std::optional<quantized_weight> upload_quantized(
      const quantized_weight& host, std::vector<buffer>& storage) override {
    if (!computes_with(host.format) || !cuda::mixed_gemm_supports(host)) return std::nullopt;
    const cuda::packed_mixed_weight packed = cuda::pack_mixed_gemm_weight(host);
    quantized_weight w = host;
    w.packing = cuda::mixed_gemm_packing;
    w.block_rows = 1;
    w.codes = keep(storage, dtype::u8, {host.codes.numel()}, packed.codes.data());
    w.scales =
        keep(storage, dtype::f32, {host.out_features, host.num_groups()}, packed.scales.data());
    if (!host.zeros.empty()) {
      w.zeros = keep(storage, dtype::u8, {host.zeros.numel()}, host.zeros.data);
    }
    if (!host.input_order.empty()) {
      w.input_order = keep(storage, dtype::i32, {host.in_features}, host.input_order.data);
    }
    return w;
  }

  [[nodiscard]] bool samples_on_device() const override { return true; }
  void sample(const sample_params& p) override { cuda::sample(p, stream_); }
  void process_logits(const process_logits_params& p) override { cuda::process_logits(p, stream_); }
  void count_tokens(const count_tokens_params& p) override { cuda::count_tokens(p, stream_); }
  void count_sampled(const count_sampled_params& p) override { cuda::count_sampled(p, stream_); }

  void argmax_rows(const tensor& logits, const tensor& token_ids) {
    cuda::argmax_rows(logits, token_ids, stream_);
  }
  void fill_uniform(const tensor& dst, std::uint32_t seed, float scale) {
    cuda::fill_uniform(dst, seed, scale, stream_);
  }
  void quantize_rows_e4m3(const tensor& codes, const tensor& scales, const tensor& x) {
    cuda::quantize_rows_e4m3(codes, scales, x, stream_);
  }
  void gemm_e4m3(const tensor& out, const tensor& x_codes, const tensor& w_codes,
                 const tensor& x_scales, const tensor& w_scales) {
    quantized_.fp8_gemm().run(out, x_codes, w_codes, x_scales, w_scales);
  }
  void linear_through(quantized_linear_route route, const linear_params& p) {
    quantized_.run_route(route, p.out, p.x, p.quantized);
    if (!p.bias.empty()) cuda::bias_add(p.out, p.bias, stream_);
  }
  [[nodiscard]] double time_on_stream(const std::function<void()>& ops) {
    return runtime_->time_on_stream(ops);
  }

 private:
  // Scratch for split-K attention: the first use allocates the model's bound (a few MiB), so
  // it never grows again for that model, and never under a captured graph. Growing (another
  // model's bound) waits for the stream, so no enqueued kernel still uses the old memory.
  // A buffer of `shape` holding the host bytes at `src`, kept alive by `storage`.
  tensor keep(std::vector<buffer>& storage, dtype type, std::initializer_list<std::int64_t> shape,
              const void* src) {
    buffer b = allocate(type, shape);
    copy_from_host(b.view(), src);
    storage.push_back(std::move(b));
    return storage.back().view();
  }

  float* workspace(std::size_t num_floats, std::size_t bound) {
    if (num_floats <= workspace_floats_) return static_cast<float*>(workspace_.get());
    runtime_->synchronize();
    workspace_.reset();
    workspace_floats_ = std::max(num_floats, bound);
    workspace_ = runtime_->allocate(workspace_floats_ * sizeof(float));
    return static_cast<float*>(workspace_.get());
  }

  dtype compute_type_;
  std::unique_ptr<cuda::device_runtime> runtime_;
  cudaStream_t stream_;
  std::shared_ptr<void> workspace_;
  std::size_t workspace_floats_ = 0;
  cuda::quantized_linear quantized_;  // goes before runtime_
  bool capturing_ = false;
};

cuda_backend& as_cuda(backend& be, const char* what) {
  auto* impl = dynamic_cast<cuda_backend*>(&be);
  KERNEL_CHECK(what, impl != nullptr);
  return *impl;
}

}  // namespace

result<std::unique_ptr<backend>> make_cuda_backend(const cuda_backend_options& options) {
  if (!is_float_type(options.compute_type)) {
    return make_error(error_code::invalid_argument,
                      "the CUDA backend computes in float32, bfloat16 or float16");
  }
  auto runtime = cuda::device_runtime::create(options.device, options.compute_type);
  if (!runtime) return runtime.err();
  return std::unique_ptr<backend>(
      std::make_unique<cuda_backend>(options.compute_type, std::move(*runtime)));
}

void argmax_rows(backend& cuda, const tensor& logits, const tensor& token_ids) {
  as_cuda(cuda, "argmax_rows").argmax_rows(logits, token_ids);
}

void quantize_rows_e4m3(backend& cuda, const tensor& codes, const tensor& scales, const tensor& x) {
  as_cuda(cuda, "quantize_rows_e4m3").quantize_rows_e4m3(codes, scales, x);
}

void gemm_e4m3(backend& cuda, const tensor& out, const tensor& x_codes, const tensor& w_codes,
               const tensor& x_scales, const tensor& w_scales) {
  as_cuda(cuda, "gemm_e4m3").gemm_e4m3(out, x_codes, w_codes, x_scales, w_scales);
}

void linear_through(backend& cuda, quantized_linear_route route, const linear_params& p) {
  as_cuda(cuda, "linear_through").linear_through(route, p);
}

void fill_uniform(backend& cuda, const tensor& dst, std::uint32_t seed, float scale) {
  as_cuda(cuda, "fill_uniform").fill_uniform(dst, seed, scale);
}

double time_on_stream(backend& cuda, const std::function<void()>& ops) {
  return as_cuda(cuda, "time_on_stream").time_on_stream(ops);
}

}  // namespace pagedserve::kernels
