#pragma once
// device_runtime: what the CUDA backend needs beneath its kernels: device and pinned host
// memory, one stream with its copies, waits and markers, GEMMs, memory figures and graph
// capture.
// Each build of kernels/cuda links one implementation:
//   device_runtime_cuda.cpp            the CUDA runtime and cuBLAS (the real device)
//   emulator/device_runtime_emulated.cpp  host memory, a reference GEMM and recorded launches,
//                                      under the SIMT emulator (CI, no GPU)
// so cuda_backend.cpp, above it, is the same code in both. Internal to kernels/cuda.

#include <driver_types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

#include "common/result.h"
#include "kernels/backend.h"
#include "kernels/tensor.h"

namespace pagedserve::kernels::cuda {

class device_runtime {
 public:
  // Errors: no usable device or driver, a failed stream or cuBLAS set-up. f32 compute makes
  // GEMMs strict fp32 (no TF32), so results match the fp32 reference.
  [[nodiscard]] static result<std::unique_ptr<device_runtime>> create(int device,
                                                                      dtype compute_type);
  device_runtime(const device_runtime&) = delete;
  device_runtime& operator=(const device_runtime&) = delete;
  ~device_runtime();

  // Memory whose last owner frees it; it may outlive the runtime. Aborts when the device has
  // no room (callers size their big allocations from memory() first).
  [[nodiscard]] std::shared_ptr<void> allocate(std::size_t bytes);
  // Page-locked host memory: the source or target of copies that overlap with kernels.
  [[nodiscard]] std::shared_ptr<void> allocate_pinned(std::size_t bytes);

  // Enqueued on the stream; the host side must stay untouched until synchronize().
  void copy_to_device(void* dst, const void* src, std::size_t bytes);
  void copy_to_host(void* dst, const void* src, std::size_t bytes);
  void copy_on_device(void* dst, const void* src, std::size_t bytes);
  void fill_zero(void* dst, std::size_t bytes);
  void synchronize();

  [[nodiscard]] cudaStream_t stream() const;

  // A marker on the stream (kernels/backend.h): a CUDA event, or the emulator's stand-in.
  // Recording it, polling it or waiting for it while a graph is being captured is a broken
  // invariant. It is used only while this runtime lives (it may be destroyed later).
  [[nodiscard]] std::unique_ptr<stream_marker> make_marker();

  // out[m, n] = x[m, k] @ weight[n, k]^T, fp32 accumulation; x and weight of one type (f32,
  // bf16 or f16), out of that type or f32. Enqueued.
  void gemm(const tensor& out, const tensor& x, const tensor& weight);

  [[nodiscard]] memory_figures memory() const;

  // Records what `ops` enqueues on the stream (kernels and GEMMs only: a copy, a wait or an
  // allocation while recording is a broken invariant) and returns it for replay.
  [[nodiscard]] std::unique_ptr<captured_ops> capture(const std::function<void()>& ops);

  // Seconds the stream takes to run what `ops` enqueues, measured with events around it
  // (waits for the stream first and after).
  [[nodiscard]] double time_on_stream(const std::function<void()>& ops);

 private:
  struct impl;
  explicit device_runtime(std::unique_ptr<impl> state);
  std::unique_ptr<impl> impl_;
};

}  // namespace pagedserve::kernels::cuda
