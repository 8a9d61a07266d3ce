// device_runtime on the CUDA runtime and cuBLAS: one non-blocking stream that every copy,
// kernel and GEMM is enqueued on, a cuBLAS handle bound to it with a fixed workspace (so
// GEMMs can be captured into graphs: cuBLAS then never allocates), CUDA graphs, and CUDA
// events as stream markers.

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <climits>
#include <memory>
#include <optional>
#include <string>

#include "kernels/check.h"
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_info.h"
#include "kernels/cuda/device_runtime.h"

namespace pagedserve::kernels::cuda {
namespace {

// cuBLAS's own recommendation for Hopper when a workspace is provided.
constexpr std::size_t blas_workspace_bytes = std::size_t{32} << 20;

// Frees device memory. A buffer that outlives the CUDA runtime (released during process
// teardown) finds it unloaded: the driver reclaims that memory anyway, so that is no error.
void free_device_memory(void* memory) {
  if (memory == nullptr) return;
  const cudaError_t err = cudaFree(memory);
  if (err != cudaSuccess && err != cudaErrorCudartUnloading) {
    cuda_failed("cudaFree", cudaGetErrorString(err), __FILE__, __LINE__);
  }
}

void free_pinned_memory(void* memory) {
  if (memory == nullptr) return;
  const cudaError_t err = cudaFreeHost(memory);
  if (err != cudaSuccess && err != cudaErrorCudartUnloading) {
    cuda_failed("cudaFreeHost", cudaGetErrorString(err), __FILE__, __LINE__);
  }
}

cudaDataType_t blas_type(dtype type) {
  switch (type) {
    case dtype::f32:
      return CUDA_R_32F;
    case dtype::bf16:
      return CUDA_R_16BF;
    case dtype::f16:
      return CUDA_R_16F;
    case dtype::i32:
    case dtype::u8:
      break;
  }
  check_failed("gemm", "a floating-point type", __FILE__, __LINE__);
}

error cuda_error(const char* what, cudaError_t err) {
  return make_error(error_code::unsupported, std::string(what) + ": " + cudaGetErrorString(err));
}

class cuda_graph final : public captured_ops {
 public:
  cuda_graph(cudaGraph_t graph, cudaGraphExec_t exec, cudaStream_t stream)
      : graph_(graph), exec_(exec), stream_(stream) {}
  cuda_graph(const cuda_graph&) = delete;
  cuda_graph& operator=(const cuda_graph&) = delete;
  ~cuda_graph() override {
    CUDA_CHECK(cudaGraphExecDestroy(exec_));
    CUDA_CHECK(cudaGraphDestroy(graph_));
  }
  void replay() override { CUDA_CHECK(cudaGraphLaunch(exec_, stream_)); }

 private:
  cudaGraph_t graph_;
  cudaGraphExec_t exec_;
  cudaStream_t stream_;
};

[[noreturn]] void refuse_capturing(const char* what) {
  check_failed(what, "not while a graph is being captured", __FILE__, __LINE__);
}

// A stream_marker on a CUDA event with timing, created once and recorded again each step.
// `capturing` is the runtime's capture state: an event recorded into a capture marks a point
// of the graph, not of the stream, so that is refused, as are polls and waits (no host waits
// while capturing).
class event_marker final : public stream_marker {
 public:
  event_marker(cudaStream_t stream, const bool* capturing)
      : stream_(stream), capturing_(capturing) {
    CUDA_CHECK(cudaEventCreate(&event_));
  }
  event_marker(const event_marker&) = delete;
  event_marker& operator=(const event_marker&) = delete;
  // As with memory, a marker released during process teardown finds the runtime unloaded.
  ~event_marker() override {
    const cudaError_t err = cudaEventDestroy(event_);
    if (err != cudaSuccess && err != cudaErrorCudartUnloading) {
      cuda_failed("cudaEventDestroy", cudaGetErrorString(err), __FILE__, __LINE__);
    }
  }

  void record() override {
    if (*capturing_) refuse_capturing("stream_marker::record");
    CUDA_CHECK(cudaEventRecord(event_, stream_));
    recorded_ = true;
  }

  [[nodiscard]] bool passed() override {
    if (*capturing_) refuse_capturing("stream_marker::passed");
    const cudaError_t err = cudaEventQuery(event_);
    if (err == cudaSuccess) return true;
    if (err != cudaErrorNotReady) {
      cuda_failed("cudaEventQuery", cudaGetErrorString(err), __FILE__, __LINE__);
    }
    // "Not ready" is an answer, not a fault: clear it, or the next launch's check
    // (cudaGetLastError) would report it. Every launch is checked as it is made, so no
    // other error is pending here to be lost.
    (void)cudaGetLastError();
    return false;
  }

  void wait() override {
    if (*capturing_) refuse_capturing("stream_marker::wait");
    CUDA_CHECK(cudaEventSynchronize(event_));
  }

  [[nodiscard]] std::optional<double> seconds_since(const stream_marker& earlier) const override {
    const auto* start = dynamic_cast<const event_marker*>(&earlier);
    KERNEL_CHECK("stream_marker::seconds_since", start != nullptr);
    if (!recorded_ || !start->recorded_) return std::nullopt;
    float ms = 0.0F;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start->event_, event_));
    return double{ms} * 1e-3;
  }

 private:
  cudaStream_t stream_;
  const bool* capturing_;
  cudaEvent_t event_ = nullptr;
  bool recorded_ = false;
};

}  // namespace

struct device_runtime::impl {
  cudaStream_t stream = nullptr;
  cublasHandle_t blas = nullptr;
  std::shared_ptr<void> blas_workspace;
  bool capturing = false;

  void refuse_while_capturing(const char* what) const {
    if (capturing) refuse_capturing(what);
  }
};

result<std::unique_ptr<device_runtime>> device_runtime::create(int device, dtype compute_type) {
  std::string why;
  if (!query_device(&why)) return make_error(error_code::unsupported, "no CUDA device: " + why);
  if (const cudaError_t err = cudaSetDevice(device); err != cudaSuccess) {
    return cuda_error("cudaSetDevice", err);
  }
  auto state = std::make_unique<impl>();
  if (const cudaError_t err = cudaStreamCreateWithFlags(&state->stream, cudaStreamNonBlocking);
      err != cudaSuccess) {
    return cuda_error("cudaStreamCreate", err);
  }
  if (cublasCreate(&state->blas) != CUBLAS_STATUS_SUCCESS) {
    CUDA_CHECK(cudaStreamDestroy(state->stream));
    return make_error(error_code::unsupported, "cublasCreate failed");
  }
  CUBLAS_CHECK(cublasSetStream(state->blas, state->stream));
  // f32 must match the fp32 reference: pedantic math forbids TF32 and reduced-precision paths.
  CUBLAS_CHECK(cublasSetMathMode(
      state->blas, compute_type == dtype::f32 ? CUBLAS_PEDANTIC_MATH : CUBLAS_DEFAULT_MATH));
  auto runtime = std::unique_ptr<device_runtime>(new device_runtime(std::move(state)));
  runtime->impl_->blas_workspace = runtime->allocate(blas_workspace_bytes);
  CUBLAS_CHECK(cublasSetWorkspace(runtime->impl_->blas, runtime->impl_->blas_workspace.get(),
                                  blas_workspace_bytes));
  return runtime;
}

device_runtime::device_runtime(std::unique_ptr<impl> state) : impl_(std::move(state)) {}

device_runtime::~device_runtime() {
  CUDA_CHECK(cudaStreamSynchronize(impl_->stream));
  CUBLAS_CHECK(cublasDestroy(impl_->blas));
  impl_->blas_workspace.reset();
  CUDA_CHECK(cudaStreamDestroy(impl_->stream));
}

std::shared_ptr<void> device_runtime::allocate(std::size_t bytes) {
  impl_->refuse_while_capturing("allocate");
  void* memory = nullptr;
  if (const cudaError_t err = cudaMalloc(&memory, bytes == 0 ? 256 : bytes); err != cudaSuccess) {
    std::size_t free_bytes = 0;
    std::size_t total_bytes = 0;
    (void)cudaMemGetInfo(&free_bytes, &total_bytes);
    const std::string what = "cudaMalloc of " + std::to_string(bytes) + " bytes (" +
                             std::to_string(free_bytes) + " of " + std::to_string(total_bytes) +
                             " free)";
    cuda_failed(what.c_str(), cudaGetErrorString(err), __FILE__, __LINE__);
  }
  return {memory, free_device_memory};
}

std::shared_ptr<void> device_runtime::allocate_pinned(std::size_t bytes) {
  impl_->refuse_while_capturing("allocate_pinned");
  void* memory = nullptr;
  CUDA_CHECK(cudaMallocHost(&memory, bytes == 0 ? 256 : bytes));
  return {memory, free_pinned_memory};
}

void device_runtime::copy_to_device(void* dst, const void* src, std::size_t bytes) {
  impl_->refuse_while_capturing("copy_to_device");
  if (bytes == 0) return;
  CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, impl_->stream));
}

void device_runtime::copy_to_host(void* dst, const void* src, std::size_t bytes) {
  impl_->refuse_while_capturing("copy_to_host");
  if (bytes == 0) return;
  CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, impl_->stream));
}

void device_runtime::copy_on_device(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, impl_->stream));
}

void device_runtime::fill_zero(void* dst, std::size_t bytes) {
  if (bytes == 0) return;
  CUDA_CHECK(cudaMemsetAsync(dst, 0, bytes, impl_->stream));
}

void device_runtime::synchronize() {
  impl_->refuse_while_capturing("synchronize");
  CUDA_CHECK(cudaStreamSynchronize(impl_->stream));
}

cudaStream_t device_runtime::stream() const { return impl_->stream; }

std::unique_ptr<stream_marker> device_runtime::make_marker() {
  return std::make_unique<event_marker>(impl_->stream, &impl_->capturing);
}

// cuBLAS is column-major. Row-major W [n, k] is column-major W^T [k, n] (ld k); row-major x
// [m, k] is column-major x^T [k, m] (ld k); row-major out [m, n] is column-major out^T [n, m]
// (ld n). So out^T = W * x^T: A = W with op T (lda k), B = x with op N (ldb k), C = out
// (ldc n), and cuBLAS's (m, n, k) are (out_features, rows, in_features).
void device_runtime::gemm(const tensor& out, const tensor& x, const tensor& weight) {
  const std::int64_t out_features = weight.dim(0);
  const std::int64_t in_features = weight.dim(1);
  const std::int64_t rows = x.numel() / in_features;
  KERNEL_CHECK("gemm", rows <= INT_MAX && out_features <= INT_MAX && in_features <= INT_MAX);
  if (rows == 0 || out_features == 0) return;
  const float alpha = 1.0F;
  const float beta = 0.0F;
  CUBLAS_CHECK(cublasGemmEx(impl_->blas, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(out_features),
                            static_cast<int>(rows), static_cast<int>(in_features), &alpha,
                            weight.data, blas_type(weight.type), static_cast<int>(in_features),
                            x.data, blas_type(x.type), static_cast<int>(in_features), &beta,
                            out.data, blas_type(out.type), static_cast<int>(out_features),
                            CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

memory_figures device_runtime::memory() const {
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return {static_cast<std::int64_t>(total_bytes), static_cast<std::int64_t>(free_bytes)};
}

std::unique_ptr<captured_ops> device_runtime::capture(const std::function<void()>& ops) {
  impl_->refuse_while_capturing("capture");
  CUDA_CHECK(cudaStreamBeginCapture(impl_->stream, cudaStreamCaptureModeThreadLocal));
  impl_->capturing = true;
  ops();
  impl_->capturing = false;
  cudaGraph_t graph = nullptr;
  CUDA_CHECK(cudaStreamEndCapture(impl_->stream, &graph));
  cudaGraphExec_t exec = nullptr;
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  return std::make_unique<cuda_graph>(graph, exec, impl_->stream);
}

double device_runtime::time_on_stream(const std::function<void()>& ops) {
  synchronize();
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start, impl_->stream));
  ops();
  CUDA_CHECK(cudaEventRecord(stop, impl_->stream));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms = 0.0F;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  CUDA_CHECK(cudaEventDestroy(start));
  CUDA_CHECK(cudaEventDestroy(stop));
  return ms * 1e-3;
}

}  // namespace pagedserve::kernels::cuda
