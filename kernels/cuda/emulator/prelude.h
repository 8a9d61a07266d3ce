#pragma once
// Included first by every translation unit that compiles the CUDA kernels for the SIMT
// emulator (simt.h). It pulls in the CUDA headers the kernels use for their types (nothing of
// the CUDA runtime is called or linked), then maps the CUDA built-ins onto the emulator:
//   __shared__ variables     static locals: every fiber of a block sees the same object, and
//                            blocks run one at a time
//   threadIdx, blockIdx, ... the running fiber's coordinates
//   __syncthreads, __shfl_*_sync, __ballot_sync, __syncwarp   emulator barriers/collectives
//   atomics                  plain read-modify-write: fibers switch only at barriers and
//                            collectives, so nothing can interleave inside one
//   fast-math intrinsics     their accurate host counterparts (the GPU's approximations are
//                            checked on the GPU, against the same tolerances)
// Shuffles follow PTX shfl.sync, width segments included; a lane that reads a lane outside
// the mask aborts (undefined on the hardware).

#define PAGEDSERVE_SIMT_EMULATION 1

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>  // its declarations only (kernel headers include it too)
#include <driver_types.h>
#include <vector_functions.h>
#include <vector_types.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "kernels/cuda/emulator/simt.h"

#undef __shared__
#define __shared__ static
#define __launch_bounds__(...)

#define threadIdx (::pagedserve::simt::current().thread_idx)
#define blockIdx (::pagedserve::simt::current().block_idx)
#define blockDim (::pagedserve::simt::current().block_dim)
#define gridDim (::pagedserve::simt::current().grid_dim)
#define warpSize 32

using std::isfinite;
using std::isinf;
using std::isnan;

namespace pagedserve::simt::device {

// The lane whose value a shuffle returns, per PTX shfl.sync. Lanes of a segment of `width`
// may read earlier segments but never later ones (they get their own value instead).
[[nodiscard]] inline int shuffle_source(int lane, int requested, int width, bool clamp_down,
                                        bool clamp_up) {
  const int segment_begin = lane / width * width;
  const int segment_end = segment_begin + width;
  if (clamp_down) return requested >= segment_end ? lane : requested;
  if (clamp_up) return requested < segment_begin ? lane : requested;
  return requested >= segment_end ? lane : requested;
}

template <class T>
[[nodiscard]] T shuffle(unsigned mask, T value, int source) {
  static_assert(sizeof(T) <= max_exchange_bytes);
  const std::byte* all = warp_exchange(mask, &value, sizeof(T));
  if ((mask & (1U << source)) == 0) {
    std::fprintf(stderr, "simt emulator: a shuffle reads lane %d, outside mask %08x\n", source,
                 mask);
    trap();
  }
  T out;
  std::memcpy(&out, all + static_cast<std::size_t>(source) * max_exchange_bytes, sizeof(T));
  return out;
}

[[nodiscard]] inline unsigned ballot(unsigned mask, bool predicate) {
  const std::byte* all = warp_exchange(mask, &predicate, sizeof(predicate));
  unsigned bits = 0;
  for (int l = 0; l < warp_size; ++l) {
    bool p = false;
    if ((mask & (1U << l)) == 0) continue;
    std::memcpy(&p, all + static_cast<std::size_t>(l) * max_exchange_bytes, sizeof(p));
    if (p) bits |= 1U << l;
  }
  return bits;
}

}  // namespace pagedserve::simt::device

inline void __syncthreads() { ::pagedserve::simt::sync_threads(); }
inline void __syncwarp(unsigned mask = 0xffffffffU) {
  (void)::pagedserve::simt::warp_exchange(mask, nullptr, 0);
}
inline void __threadfence() {}
inline void __threadfence_block() {}
[[noreturn]] inline void __trap() { ::pagedserve::simt::trap(); }

template <class T>
T __shfl_sync(unsigned mask, T value, int source_lane, int width = warpSize) {
  const int lane = ::pagedserve::simt::current().lane();
  const int source = lane / width * width + source_lane % width;
  return ::pagedserve::simt::device::shuffle(mask, value, source);
}
template <class T>
T __shfl_xor_sync(unsigned mask, T value, int lane_mask, int width = warpSize) {
  const int lane = ::pagedserve::simt::current().lane();
  return ::pagedserve::simt::device::shuffle(
      mask, value,
      ::pagedserve::simt::device::shuffle_source(lane, lane ^ lane_mask, width, false, false));
}
template <class T>
T __shfl_down_sync(unsigned mask, T value, unsigned delta, int width = warpSize) {
  const int lane = ::pagedserve::simt::current().lane();
  return ::pagedserve::simt::device::shuffle(
      mask, value,
      ::pagedserve::simt::device::shuffle_source(lane, lane + static_cast<int>(delta), width, true,
                                                 false));
}
template <class T>
T __shfl_up_sync(unsigned mask, T value, unsigned delta, int width = warpSize) {
  const int lane = ::pagedserve::simt::current().lane();
  return ::pagedserve::simt::device::shuffle(
      mask, value,
      ::pagedserve::simt::device::shuffle_source(lane, lane - static_cast<int>(delta), width, false,
                                                 true));
}
inline unsigned __ballot_sync(unsigned mask, int predicate) {
  return ::pagedserve::simt::device::ballot(mask, predicate != 0);
}
inline int __any_sync(unsigned mask, int predicate) {
  return ::pagedserve::simt::device::ballot(mask, predicate != 0) != 0 ? 1 : 0;
}
inline int __all_sync(unsigned mask, int predicate) {
  return ::pagedserve::simt::device::ballot(mask, predicate != 0) == mask ? 1 : 0;
}

template <class T>
T atomicAdd(T* address, T value) {
  const T old = *address;
  *address = old + value;
  return old;
}
template <class T>
T atomicMax(T* address, T value) {
  const T old = *address;
  *address = std::max(old, value);
  return old;
}
template <class T>
T atomicMin(T* address, T value) {
  const T old = *address;
  *address = std::min(old, value);
  return old;
}
template <class T>
T atomicOr(T* address, T value) {
  const T old = *address;
  *address = old | value;
  return old;
}
template <class T>
T atomicExch(T* address, T value) {
  const T old = *address;
  *address = value;
  return old;
}
template <class T>
T atomicCAS(T* address, T compare, T value) {
  const T old = *address;
  if (old == compare) *address = value;
  return old;
}

// Separately rounded arithmetic (the host compiler never fuses, so plain operators are).
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline float rsqrtf(float x) { return 1.0F / std::sqrt(x); }
inline float __expf(float x) { return std::exp(x); }
inline float __logf(float x) { return std::log(x); }
inline float __fdividef(float a, float b) { return a / b; }
inline float __saturatef(float x) { return std::clamp(x, 0.0F, 1.0F); }
inline unsigned __float_as_uint(float x) { return std::bit_cast<unsigned>(x); }
inline float __uint_as_float(unsigned x) { return std::bit_cast<float>(x); }
inline int __float_as_int(float x) { return std::bit_cast<int>(x); }
inline float __int_as_float(int x) { return std::bit_cast<float>(x); }
inline long long __double_as_longlong(double x) { return std::bit_cast<long long>(x); }
inline double __longlong_as_double(long long x) { return std::bit_cast<double>(x); }
inline int __popc(unsigned x) { return std::popcount(x); }
inline int __clz(int x) { return std::countl_zero(static_cast<unsigned>(x)); }
inline int __ffs(int x) { return x == 0 ? 0 : std::countr_zero(static_cast<unsigned>(x)) + 1; }
inline unsigned __brev(unsigned x) {
  unsigned r = 0;
  for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1U) << (31 - i);
  return r;
}
template <class T>
T __ldg(const T* p) {
  return *p;
}

// CUDA's device min/max overloads (the standard ones need equal argument types too).
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }
inline long min(long a, long b) { return a < b ? a : b; }
inline long max(long a, long b) { return a > b ? a : b; }
inline float min(float a, float b) { return std::fmin(a, b); }
inline float max(float a, float b) { return std::fmax(a, b); }
