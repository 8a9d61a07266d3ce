#pragma once
// How the CUDA ops launch their kernels, written once for both builds of kernels/cuda:
//   nvcc                     kernel<<<grid, block, shared_bytes, stream>>>(args...), checked
//   the SIMT emulator        queued on the emulated stream, run on the CPU when it drains
//                            (kernels/cuda/emulator/simt.h), or recorded by a graph capture
// Every .cu file launches through launch_kernel and declares dynamic shared memory with
// DYNAMIC_SHARED, so the same kernel source is tested in CI without a GPU.

#include <cstddef>
#include <tuple>
#include <utility>

#if PAGEDSERVE_SIMT_EMULATION
#include <driver_types.h>
#include <vector_types.h>

#include "kernels/cuda/emulator/simt.h"
#else
#include <cuda_runtime.h>

#include "kernels/cuda/cuda_check.cuh"
#endif

// DYNAMIC_SHARED(type, name): `type* name` pointing at the block's dynamic shared memory
// (16-byte aligned), whose size the launch gives.
#if PAGEDSERVE_SIMT_EMULATION
#define DYNAMIC_SHARED(type, name) \
  type* name = static_cast<type*>(::pagedserve::simt::dynamic_shared())
#else
#define DYNAMIC_SHARED(type, name)                                 \
  extern __shared__ __align__(16) unsigned char name##_storage_[]; \
  type* name = reinterpret_cast<type*>(name##_storage_)
#endif

namespace pagedserve::kernels::cuda {

// kernel<<<grid, block, shared_bytes, stream>>>(args...); a bad launch configuration aborts
// here with the launch site's error.
template <class... Params, class... Args>
void launch_kernel(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t shared_bytes,
                   cudaStream_t stream, Args&&... args) {
#if PAGEDSERVE_SIMT_EMULATION
  simt::check_dynamic_shared(reinterpret_cast<const void*>(kernel), shared_bytes);
  const simt::launch_shape shape{grid, block, shared_bytes};
  simt::enqueue(stream,
                [shape, kernel, params = std::tuple<Params...>(std::forward<Args>(args)...)] {
                  simt::launch(shape, [&] { std::apply(kernel, params); });
                });
#else
  // clang-format splits the closing chevrons of a launch inside a template.
  // clang-format off
  kernel<<<grid, block, shared_bytes, stream>>>(std::forward<Args>(args)...);
  // clang-format on
  CUDA_CHECK_LAUNCH();
#endif
}

// Opts `kernel` in to `bytes` of dynamic shared memory (needed above 48 KiB).
template <class... Params>
void allow_dynamic_shared(void (*kernel)(Params...), std::size_t bytes) {
#if PAGEDSERVE_SIMT_EMULATION
  simt::allow_dynamic_shared(reinterpret_cast<const void*>(kernel), bytes);
#else
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(bytes)));
#endif
}

}  // namespace pagedserve::kernels::cuda
