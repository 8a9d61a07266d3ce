#include "kernels/cuda/device_info.h"

#include <cuda_runtime.h>

namespace pagedserve::kernels::cuda {

std::optional<device_info> query_device(std::string* why) {
  int count = 0;
  if (const cudaError_t err = cudaGetDeviceCount(&count); err != cudaSuccess || count == 0) {
    if (why != nullptr) {
      *why = err != cudaSuccess ? cudaGetErrorString(err) : "no CUDA device found";
    }
    return std::nullopt;
  }
  cudaDeviceProp prop{};
  if (const cudaError_t err = cudaGetDeviceProperties(&prop, 0); err != cudaSuccess) {
    if (why != nullptr) *why = cudaGetErrorString(err);
    return std::nullopt;
  }
  return device_info{prop.name,
                     prop.major,
                     prop.minor,
                     prop.multiProcessorCount,
                     static_cast<std::int64_t>(prop.totalGlobalMem),
                     static_cast<std::int64_t>(prop.l2CacheSize)};
}

}  // namespace pagedserve::kernels::cuda
