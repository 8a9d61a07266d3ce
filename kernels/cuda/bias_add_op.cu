// bias_add: out[r, c] += bias[c] in fp32, stored in out's type; the epilogue of `linear`
// (the GEMM runs in device_runtime). out may be the compute type or f32 (logits); bias is
// either.

#include <cstdint>

#include "kernels/check.h"
#include "kernels/cuda/cuda_ops.cuh"
#include "kernels/cuda/element.cuh"
#include "kernels/cuda/launch.cuh"

namespace pagedserve::kernels::cuda {
namespace {

constexpr int bias_threads = 256;

template <class TOut, class TBias>
__global__ void bias_add_kernel(TOut* out, const TBias* bias, std::int64_t num_rows,
                                std::int64_t num_cols) {
  const std::int64_t n = num_rows * num_cols;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    out[i] = from_float<TOut>(to_float(out[i]) + to_float(bias[i % num_cols]));
  }
}

}  // namespace

void bias_add(const tensor& out, const tensor& bias, cudaStream_t stream) {
  const std::int64_t num_cols = bias.numel();
  KERNEL_CHECK("bias_add", num_cols > 0 && out.numel() % num_cols == 0);
  KERNEL_CHECK("bias_add", is_float_type(out.type) && is_float_type(bias.type));
  const std::int64_t num_rows = out.numel() / num_cols;
  if (num_rows == 0) return;
  const unsigned int grid = grid_for(num_rows * num_cols, bias_threads);
  dispatch_float_type("bias_add", out.type, [&](auto out_tag) {
    using TOut = typename decltype(out_tag)::type;
    dispatch_float_type("bias_add", bias.type, [&](auto bias_tag) {
      using TBias = typename decltype(bias_tag)::type;
      launch_kernel(bias_add_kernel<TOut, TBias>, dim3(grid), dim3(bias_threads), 0, stream,
                    out.as<TOut>(), bias.as<const TBias>(), num_rows, num_cols);
    });
  });
}

}  // namespace pagedserve::kernels::cuda
