// quantize_rows_e4m3: the dynamic per-token activation quantization of an FP8 W8A8 linear
// (vLLM's dynamic_per_token_scaled_fp8_quant): for each row of x, in one pass of one block,
//   scale = max(max|x| / 448, 1 / (448 * 512))     codes = e4m3(x * (1 / scale))
// with the satfinite conversion of fp8_e4m3.cuh. The floor keeps an all-zero row's scale
// finite and its codes zero.

#include <cstdint>

#include "kernels/check.h"
#include "kernels/cuda/block_reduce.cuh"
#include "kernels/cuda/cuda_ops.cuh"
#include "kernels/cuda/element.cuh"
#include "kernels/cuda/fp8_e4m3.cuh"
#include "kernels/cuda/launch.cuh"

namespace pagedserve::kernels::cuda {
namespace {

constexpr int quantize_threads = 256;
constexpr float e4m3_max = 448.0F;
constexpr float min_scale = 1.0F / (448.0F * 512.0F);

template <class T>
__global__ void __launch_bounds__(quantize_threads)
    quantize_rows_kernel(std::uint8_t* codes, float* scales, const T* x, std::int64_t width) {
  __shared__ float scratch[32];
  const T* row = x + static_cast<std::int64_t>(blockIdx.x) * width;
  float largest = 0.0F;
  for (std::int64_t i = threadIdx.x; i < width; i += quantize_threads) {
    largest = fmaxf(largest, fabsf(to_float(row[i])));
  }
  largest = block_reduce(largest, max_op{}, 0.0F, scratch);
  const float scale = fmaxf(largest / e4m3_max, min_scale);
  const float inverse = 1.0F / scale;
  if (threadIdx.x == 0) scales[blockIdx.x] = scale;
  std::uint8_t* out = codes + static_cast<std::int64_t>(blockIdx.x) * width;
  for (std::int64_t i = threadIdx.x; i < width; i += quantize_threads) {
    out[i] = float_to_e4m3(to_float(row[i]) * inverse);
  }
}

}  // namespace

void quantize_rows_e4m3(const tensor& codes, const tensor& scales, const tensor& x,
                        cudaStream_t stream) {
  KERNEL_CHECK("quantize_rows_e4m3", x.rank == 2 && codes.type == dtype::u8);
  KERNEL_CHECK("quantize_rows_e4m3", codes.shape == x.shape);
  KERNEL_CHECK("quantize_rows_e4m3", scales.type == dtype::f32 && scales.numel() == x.dim(0));
  KERNEL_CHECK("quantize_rows_e4m3", x.dim(0) < (std::int64_t{1} << 31));
  if (x.dim(0) == 0) return;
  dispatch_float_type("quantize_rows_e4m3", x.type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_kernel(quantize_rows_kernel<T>, dim3(static_cast<unsigned int>(x.dim(0))),
                  dim3(quantize_threads), 0, stream, codes.as<std::uint8_t>(), scales.as<float>(),
                  x.as<const T>(), x.dim(1));
  });
}

}  // namespace pagedserve::kernels::cuda
