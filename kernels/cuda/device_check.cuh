#pragma once
// DEVICE_CHECK(what, condition) inside kernels: a violated invariant on data the host never
// reads (slot numbers, token ids, block tables) prints the op and condition, then traps. The
// trap makes the next CUDA_CHECK on the host fail and abort ("unspecified launch failure").

#include <cstdio>

#include "kernels/check.h"

namespace pagedserve::kernels {

__device__ inline void device_check_failed(const char* what, const char* condition,
                                           const char* file, int line) {
  printf("%s:%d: device check failed in %s: %s (block %d,%d,%d thread %d)\n", file, line, what,
         condition, static_cast<int>(blockIdx.x), static_cast<int>(blockIdx.y),
         static_cast<int>(blockIdx.z), static_cast<int>(threadIdx.x));
  __trap();
}

}  // namespace pagedserve::kernels

#define DEVICE_CHECK(what, condition) \
  KERNEL_CHECK_WITH(::pagedserve::kernels::device_check_failed, what, condition)
