#pragma once
// The CUDA backend's linear over quantized weights (kernels/ops.h linear_params::quantized in
// the layout of mixed_gemm_packing.h), routed by the number of rows m:
//   - up to 16 rows (decode): the mixed-input GEMM (mixed_gemm_op.cu), which reads the codes
//     once and dequantizes them in registers;
//   - more rows, FP8 W8A8 checkpoints (quantized_weight::fp8_activations) whose weights
//     have one scale per output row (per-channel or per-tensor): x quantized per token
//     (quantize_rows_e4m3) and cuBLASLt's FP8 matmul (e4m3_gemm);
//   - more rows, the rest (int4, int8, FP8 weight-only or with block scales): the weight
//     dequantized into scratch (dequantize_packed) and cuBLAS in the compute type.
// The scratch of the last two is allocated at the first large batch (the engine's profiling
// forward at its largest step, before the KV cache is sized) and never while a graph is
// being captured: a captured step whose route would need more takes the mixed GEMM.
// Internal to kernels/cuda.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/cuda/cuda_backend.h"
#include "kernels/cuda/device_runtime.h"
#include "kernels/cuda/e4m3_gemm.h"
#include "kernels/ops.h"

namespace pagedserve::kernels::cuda {

using quantized_route = quantized_linear_route;

// The route for m rows of x through `w` (packed), outside a capture.
[[nodiscard]] quantized_route route_quantized_linear(const quantized_weight& w, std::int64_t m);

class quantized_linear {
 public:
  explicit quantized_linear(device_runtime& runtime) : runtime_(runtime) {}

  // out = x @ W^T (no bias) by route_quantized_linear's route, or the mixed GEMM while
  // `capturing`. Enqueued.
  void run(const tensor& out, const tensor& x, const quantized_weight& w, bool capturing);
  // The same through one route, whatever m (benchmarks and tests compare them).
  void run_route(quantized_route route, const tensor& out, const tensor& x,
                 const quantized_weight& w);

  // cuBLASLt's FP8 matmul, made at first use (allocates: never in a capture).
  [[nodiscard]] e4m3_gemm& fp8_gemm();

 private:
  static std::size_t scratch_bytes(quantized_route route, const quantized_weight& w,
                                   std::int64_t m);
  void* scratch(std::size_t bytes);

  device_runtime& runtime_;
  std::unique_ptr<e4m3_gemm> e4m3_gemm_;
  std::shared_ptr<void> scratch_;
  std::size_t scratch_bytes_ = 0;
  std::vector<std::shared_ptr<void>> retired_scratch_;  // outgrown; graphs may point into it
};

}  // namespace pagedserve::kernels::cuda
