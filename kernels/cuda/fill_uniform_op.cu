// fill_uniform: benchmark and test inputs generated on the device. Element i gets a uniform
// value in [-scale, scale) from a 32-bit integer hash of (seed, i); not a statistical-grade
// generator, only "not zeros, not a pattern the hardware could compress".

#include <cstdint>

#include "kernels/cuda/cuda_ops.cuh"
#include "kernels/cuda/element.cuh"
#include "kernels/cuda/launch.cuh"

namespace pagedserve::kernels::cuda {
namespace {

constexpr int fill_threads = 256;

// A murmur3-style finaliser over the seed-mixed index.
__device__ __forceinline__ std::uint32_t hash(std::uint32_t seed, std::uint64_t i) {
  std::uint32_t h =
      seed ^ static_cast<std::uint32_t>(i) ^ (static_cast<std::uint32_t>(i >> 32) * 0x9E3779B9U);
  h ^= h >> 16;
  h *= 0x85EBCA6BU;
  h ^= h >> 13;
  h *= 0xC2B2AE35U;
  h ^= h >> 16;
  return h;
}

template <class T>
__global__ void fill_uniform_kernel(T* dst, std::int64_t n, std::uint32_t seed, float scale) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    const float unit =
        static_cast<float>(hash(seed, static_cast<std::uint64_t>(i)) >> 8) * (1.0F / 16777216.0F);
    dst[i] = from_float<T>((2.0F * unit - 1.0F) * scale);
  }
}

}  // namespace

void fill_uniform(const tensor& dst, std::uint32_t seed, float scale, cudaStream_t stream) {
  const std::int64_t n = dst.numel();
  if (n == 0) return;
  dispatch_float_type("fill_uniform", dst.type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    launch_kernel(fill_uniform_kernel<T>, dim3(grid_for(n, fill_threads)), dim3(fill_threads), 0,
                  stream, dst.as<T>(), n, seed, scale);
  });
}

}  // namespace pagedserve::kernels::cuda
