#pragma once
// DEVICE_CHECK(what, condition) inside kernels: a violated invariant on data the host never
// reads (slot numbers, token ids, block tables) prints the op and condition, then traps. The
// trap makes the next CUDA_CHECK on the host fail and abort ("unspecified launch failure").

#include <cstdio>

#define DEVICE_CHECK(what, condition)                                                       \
  do {                                                                                      \
    if (!(condition)) {                                                                     \
      printf("%s:%d: device check failed in %s: %s (block %d,%d,%d thread %d)\n", __FILE__, \
             __LINE__, what, #condition, static_cast<int>(blockIdx.x),                      \
             static_cast<int>(blockIdx.y), static_cast<int>(blockIdx.z),                    \
             static_cast<int>(threadIdx.x));                                                \
      __trap();                                                                             \
    }                                                                                       \
  } while (false)
