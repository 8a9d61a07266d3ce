#pragma once
// FP8 GEMMs on the device, the W8A8 path's matmul: out[m, n] = (sum_k e4m3(x[m, k]) *
// e4m3(w[n, k])) * x_scale * w_scale with fp32 accumulation, out bf16, f16 or f32. Codes u8
// (e4m3fn), x [m, k] and w [n, k] row-major; scales f32, either one (per tensor) or one per
// row: x_scales [m] per token, w_scales [n] per output channel. k and n multiples of 16.
// Each build of kernels/cuda links one implementation:
//   e4m3_gemm_cuda.cpp                cuBLASLt's FP8 matmul, the scales through its scale
//                                     pointers (scalar or outer-vector mode)
//   emulator/e4m3_gemm_emulated.cpp   a reference loop on the emulated stream
// Internal to kernels/cuda.

#include <cstdint>
#include <memory>

#include "kernels/check.h"
#include "kernels/cuda/device_runtime.h"
#include "kernels/tensor.h"

namespace pagedserve::kernels::cuda {

class e4m3_gemm {
 public:
  // Allocates its workspace: never while a graph is being captured.
  [[nodiscard]] static std::unique_ptr<e4m3_gemm> create(device_runtime& runtime);
  virtual ~e4m3_gemm() = default;
  // Enqueued on the runtime's stream.
  virtual void run(const tensor& out, const tensor& x_codes, const tensor& w_codes,
                   const tensor& x_scales, const tensor& w_scales) = 0;
};

// The shapes and types above (aborts with the op's message where they do not hold).
inline void check_e4m3_gemm(const tensor& out, const tensor& x_codes, const tensor& w_codes,
                            const tensor& x_scales, const tensor& w_scales) {
  KERNEL_CHECK("gemm_e4m3", x_codes.type == dtype::u8 && w_codes.type == dtype::u8);
  KERNEL_CHECK("gemm_e4m3", x_codes.rank == 2 && w_codes.rank == 2 && out.rank == 2);
  const std::int64_t m = x_codes.dim(0);
  const std::int64_t n = w_codes.dim(0);
  const std::int64_t k = w_codes.dim(1);
  KERNEL_CHECK("gemm_e4m3", x_codes.dim(1) == k && out.dim(0) == m && out.dim(1) == n);
  KERNEL_CHECK("gemm_e4m3", k % 16 == 0 && n % 16 == 0);
  KERNEL_CHECK("gemm_e4m3",
               out.type == dtype::f32 || out.type == dtype::bf16 || out.type == dtype::f16);
  KERNEL_CHECK("gemm_e4m3", x_scales.type == dtype::f32 && w_scales.type == dtype::f32);
  KERNEL_CHECK("gemm_e4m3", x_scales.numel() == 1 || x_scales.numel() == m);
  KERNEL_CHECK("gemm_e4m3", w_scales.numel() == 1 || w_scales.numel() == n);
}

}  // namespace pagedserve::kernels::cuda
