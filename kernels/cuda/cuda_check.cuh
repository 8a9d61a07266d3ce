#pragma once
// CUDA and cuBLAS error checks for CUDA-only code. A failed call is a broken invariant
// (bad launch geometry, a device fault, an exhausted device): print the call and where,
// then abort. Included only by .cu files and cuda_backend.cpp, never by non-CUDA code.

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

namespace pagedserve::kernels::cuda {

[[noreturn]] inline void cuda_failed(const char* call, const char* message, const char* file,
                                     int line) {
  std::fprintf(stderr, "%s:%d: CUDA call failed: %s: %s\n", file, line, call, message);
  std::abort();
}

}  // namespace pagedserve::kernels::cuda

#define CUDA_CHECK(call)                                                                   \
  do {                                                                                     \
    const cudaError_t cuda_check_err_ = (call);                                            \
    if (cuda_check_err_ != cudaSuccess) {                                                  \
      ::pagedserve::kernels::cuda::cuda_failed(#call, cudaGetErrorString(cuda_check_err_), \
                                               __FILE__, __LINE__);                        \
    }                                                                                      \
  } while (false)

#define CUBLAS_CHECK(call)                                                                         \
  do {                                                                                             \
    const cublasStatus_t cublas_check_status_ = (call);                                            \
    if (cublas_check_status_ != CUBLAS_STATUS_SUCCESS) {                                           \
      ::pagedserve::kernels::cuda::cuda_failed(#call, cublasGetStatusString(cublas_check_status_), \
                                               __FILE__, __LINE__);                                \
    }                                                                                              \
  } while (false)

// After every kernel launch: reports bad launch configurations at the launch site.
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())
