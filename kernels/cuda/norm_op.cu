// rms_norm and add_rms_norm: one block per row; x * rsqrt(mean(x^2) + eps) * weight with the
// sum of squares reduced in fp32 by block_reduce. add_rms_norm rounds the updated residual
// to its storage type first and normalises the rounded value (what a bf16 model computes).

#include <cstdint>

#include "kernels/check.h"
#include "kernels/cuda/block_reduce.cuh"
#include "kernels/cuda/cuda_ops.cuh"
#include "kernels/cuda/element.cuh"
#include "kernels/cuda/launch.cuh"

namespace pagedserve::kernels::cuda {
namespace {

__device__ __forceinline__ float inverse_rms(float sum_sq, std::int64_t width, float eps) {
  return 1.0F / sqrtf(sum_sq / static_cast<float>(width) + eps);
}

// out may alias x: each thread reads its elements before writing them.
template <class T>
__global__ void rms_norm_kernel(T* out, const T* x, const T* weight, std::int64_t width,
                                float eps) {
  __shared__ float scratch[32];
  const std::int64_t offset = static_cast<std::int64_t>(blockIdx.x) * width;
  float sum_sq = 0.0F;
  for (std::int64_t i = threadIdx.x; i < width; i += blockDim.x) {
    const float v = to_float(x[offset + i]);
    sum_sq += v * v;
  }
  const float inv_rms = inverse_rms(block_reduce(sum_sq, sum_op{}, 0.0F, scratch), width, eps);
  for (std::int64_t i = threadIdx.x; i < width; i += blockDim.x) {
    out[offset + i] = from_float<T>(to_float(weight[i]) * (to_float(x[offset + i]) * inv_rms));
  }
}

template <class T>
__global__ void add_rms_norm_kernel(T* residual, const T* x, T* out, const T* weight,
                                    std::int64_t width, float eps) {
  __shared__ float scratch[32];
  const std::int64_t offset = static_cast<std::int64_t>(blockIdx.x) * width;
  float sum_sq = 0.0F;
  for (std::int64_t i = threadIdx.x; i < width; i += blockDim.x) {
    const T updated = from_float<T>(to_float(residual[offset + i]) + to_float(x[offset + i]));
    residual[offset + i] = updated;
    const float v = to_float(updated);
    sum_sq += v * v;
  }
  const float inv_rms = inverse_rms(block_reduce(sum_sq, sum_op{}, 0.0F, scratch), width, eps);
  // Each thread rereads only the residual elements it wrote itself.
  for (std::int64_t i = threadIdx.x; i < width; i += blockDim.x) {
    out[offset + i] =
        from_float<T>(to_float(weight[i]) * (to_float(residual[offset + i]) * inv_rms));
  }
}

int threads_for_width(std::int64_t width) {
  const std::int64_t rounded = (width + 31) / 32 * 32;
  return static_cast<int>(rounded < 256 ? rounded : 256);
}

}  // namespace

void rms_norm(const rms_norm_params& p, cudaStream_t stream) {
  const std::int64_t width = p.weight.numel();
  KERNEL_CHECK("rms_norm", p.x.type == p.out.type && p.weight.type == p.x.type && width > 0);
  KERNEL_CHECK("rms_norm", p.x.numel() % width == 0 && p.out.numel() == p.x.numel());
  const std::int64_t num_rows = p.x.numel() / width;
  KERNEL_CHECK("rms_norm", num_rows < (std::int64_t{1} << 31));
  if (num_rows == 0) return;
  dispatch_float_type("rms_norm", p.x.type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_kernel(rms_norm_kernel<T>, dim3(static_cast<unsigned int>(num_rows)),
                  dim3(threads_for_width(width)), 0, stream, p.out.as<T>(), p.x.as<const T>(),
                  p.weight.as<const T>(), width, p.eps);
  });
}

void add_rms_norm(const add_rms_norm_params& p, cudaStream_t stream) {
  const std::int64_t width = p.weight.numel();
  const dtype type = p.residual.type;
  KERNEL_CHECK("add_rms_norm", p.x.type == type && p.out.type == type && p.weight.type == type);
  KERNEL_CHECK("add_rms_norm", width > 0 && p.residual.numel() % width == 0);
  KERNEL_CHECK("add_rms_norm",
               p.x.numel() == p.residual.numel() && p.out.numel() == p.residual.numel());
  const std::int64_t num_rows = p.residual.numel() / width;
  KERNEL_CHECK("add_rms_norm", num_rows < (std::int64_t{1} << 31));
  if (num_rows == 0) return;
  dispatch_float_type("add_rms_norm", type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_kernel(add_rms_norm_kernel<T>, dim3(static_cast<unsigned int>(num_rows)),
                  dim3(threads_for_width(width)), 0, stream, p.residual.as<T>(), p.x.as<const T>(),
                  p.out.as<T>(), p.weight.as<const T>(), width, p.eps);
  });
}

}  // namespace pagedserve::kernels::cuda
