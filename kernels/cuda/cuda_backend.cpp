// cuda_backend: kernels::backend over one CUDA stream. Every op checks its arguments on the
// host (kernels/cuda/cuda_ops.cuh) and enqueues; memory comes from cudaMalloc.

#include "kernels/cuda/cuda_backend.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "kernels/check.h"
#include "kernels/cuda/bf16_host.h"
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/cuda_ops.cuh"
#include "kernels/cuda/device_info.h"

namespace pagedserve::kernels {
namespace {

// Frees device memory. A buffer that outlives the CUDA runtime (released during process
// teardown) finds it unloaded: the driver reclaims that memory anyway, so that is no error.
void free_device_memory(void* memory) {
  if (memory == nullptr) return;
  const cudaError_t err = cudaFree(memory);
  if (err != cudaSuccess && err != cudaErrorCudartUnloading) {
    cuda::cuda_failed("cudaFree", cudaGetErrorString(err), __FILE__, __LINE__);
  }
}

class cuda_backend final : public backend {
 public:
  cuda_backend(dtype compute_type, cudaStream_t stream, cublasHandle_t blas)
      : compute_type_(compute_type), stream_(stream), blas_(blas) {}
  cuda_backend(const cuda_backend&) = delete;
  cuda_backend& operator=(const cuda_backend&) = delete;
  ~cuda_backend() override {
    // Buffers may outlive the backend: they free themselves with cudaFree.
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    free_device_memory(workspace_);
    CUBLAS_CHECK(cublasDestroy(blas_));
    CUDA_CHECK(cudaStreamDestroy(stream_));
  }

  [[nodiscard]] std::string_view name() const override { return "cuda"; }
  [[nodiscard]] dtype compute_type() const override { return compute_type_; }

  [[nodiscard]] buffer allocate(dtype type, std::initializer_list<std::int64_t> shape) override {
    tensor view = tensor::make(nullptr, type, shape);
    const std::size_t bytes = view.num_bytes();
    void* memory = nullptr;
    CUDA_CHECK(cudaMalloc(&memory, bytes == 0 ? 256 : bytes));
    view.data = memory;
    return buffer(view, std::shared_ptr<void>(memory, free_device_memory));
  }

  void fill_zero(const tensor& dst) override {
    if (dst.num_bytes() != 0) CUDA_CHECK(cudaMemsetAsync(dst.data, 0, dst.num_bytes(), stream_));
  }

  // Waits, so the caller may free or reuse `src` as soon as this returns.
  void copy_from_host(const tensor& dst, const void* src) override {
    if (dst.num_bytes() == 0) return;
    CUDA_CHECK(cudaMemcpyAsync(dst.data, src, dst.num_bytes(), cudaMemcpyHostToDevice, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  void copy_to_host(void* dst, const tensor& src) override {
    if (src.num_bytes() == 0) return;
    CUDA_CHECK(cudaMemcpyAsync(dst, src.data, src.num_bytes(), cudaMemcpyDeviceToHost, stream_));
    CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  void upload_f32(const tensor& dst, std::span<const float> src) override {
    KERNEL_CHECK("upload_f32", static_cast<std::int64_t>(src.size()) == dst.numel());
    if (dst.type == dtype::f32) {
      copy_from_host(dst, src.data());
      return;
    }
    KERNEL_CHECK("upload_f32", dst.type == dtype::bf16);
    std::vector<std::uint16_t> bits(src.size());
    for (std::size_t i = 0; i < src.size(); ++i) bits[i] = cuda::f32_to_bf16_bits(src[i]);
    copy_from_host(dst, bits.data());
  }

  void embedding(const embedding_params& p) override { cuda::embedding(p, stream_); }
  void rms_norm(const rms_norm_params& p) override { cuda::rms_norm(p, stream_); }
  void add_rms_norm(const add_rms_norm_params& p) override { cuda::add_rms_norm(p, stream_); }
  void linear(const linear_params& p) override { cuda::linear(p, blas_, stream_); }
  void rope(const rope_params& p) override { cuda::rope(p, stream_); }
  void kv_write(const kv_write_params& p) override { cuda::kv_write(p, stream_); }
  void paged_attention(const paged_attention_params& p) override {
    cuda::paged_attention(p, workspace(cuda::paged_attention_workspace_floats(p)), stream_);
  }
  void silu_mul(const silu_mul_params& p) override { cuda::silu_mul(p, stream_); }
  void gather_rows(const gather_rows_params& p) override { cuda::gather_rows(p, stream_); }
  void add(const add_params& p) override { cuda::add(p, stream_); }

  void synchronize() override { CUDA_CHECK(cudaStreamSynchronize(stream_)); }

  void argmax_rows(const tensor& logits, const tensor& token_ids) {
    cuda::argmax_rows(logits, token_ids, stream_);
  }

 private:
  // Scratch for split-K attention, grown on demand. Growing waits for the stream, so no
  // enqueued kernel still uses the old allocation when it is freed.
  float* workspace(std::size_t num_floats) {
    if (num_floats <= workspace_floats_) return workspace_;
    CUDA_CHECK(cudaStreamSynchronize(stream_));
    free_device_memory(workspace_);
    workspace_ = nullptr;
    CUDA_CHECK(cudaMalloc(&workspace_, num_floats * sizeof(float)));
    workspace_floats_ = num_floats;
    return workspace_;
  }

  dtype compute_type_;
  cudaStream_t stream_;
  cublasHandle_t blas_;
  float* workspace_ = nullptr;
  std::size_t workspace_floats_ = 0;
};

error cuda_error(const char* what, cudaError_t err) {
  return make_error(error_code::unsupported, std::string(what) + ": " + cudaGetErrorString(err));
}

}  // namespace

result<std::unique_ptr<backend>> make_cuda_backend(const cuda_backend_options& options) {
  if (options.compute_type != dtype::f32 && options.compute_type != dtype::bf16) {
    return make_error(error_code::invalid_argument,
                      "the CUDA backend computes in f32 or bf16 only");
  }
  std::string why;
  if (!cuda::query_device(&why)) {
    return make_error(error_code::unsupported, "no CUDA device: " + why);
  }
  if (const cudaError_t err = cudaSetDevice(options.device); err != cudaSuccess) {
    return cuda_error("cudaSetDevice", err);
  }
  cudaStream_t stream = nullptr;
  if (const cudaError_t err = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
      err != cudaSuccess) {
    return cuda_error("cudaStreamCreate", err);
  }
  cublasHandle_t blas = nullptr;
  if (cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS) {
    CUDA_CHECK(cudaStreamDestroy(stream));
    return make_error(error_code::unsupported, "cublasCreate failed");
  }
  CUBLAS_CHECK(cublasSetStream(blas, stream));
  // f32 must match the fp32 reference: pedantic math forbids TF32 and reduced-precision paths.
  CUBLAS_CHECK(cublasSetMathMode(
      blas, options.compute_type == dtype::f32 ? CUBLAS_PEDANTIC_MATH : CUBLAS_DEFAULT_MATH));
  return std::unique_ptr<backend>(
      std::make_unique<cuda_backend>(options.compute_type, stream, blas));
}

void argmax_rows(backend& cuda, const tensor& logits, const tensor& token_ids) {
  auto* impl = dynamic_cast<cuda_backend*>(&cuda);
  KERNEL_CHECK("argmax_rows", impl != nullptr);
  impl->argmax_rows(logits, token_ids);
}

}  // namespace pagedserve::kernels
