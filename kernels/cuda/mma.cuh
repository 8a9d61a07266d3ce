#pragma once
// One warp-wide tensor-core product: mma.sync.aligned.m16n8k16.row.col.f32.{bf16,f16}.
// D += A B for A 16x16 (row-major), B 16x8 (column-major), D 16x8 in fp32. Fragments as the
// PTX ISA lays them out ("Matrix Fragments for mma.m16n8k16 with floating point type"), with
// g = lane / 4 and t = lane % 4, the first element of a pair in a register's low half:
//
//   A   a[0] = A[g][2t],   A[g][2t+1]        a[1] = A[g+8][2t],   A[g+8][2t+1]
//       a[2] = A[g][2t+8], A[g][2t+9]        a[3] = A[g+8][2t+8], A[g+8][2t+9]
//   B   b[0] = B[2t][g],   B[2t+1][g]        b[1] = B[2t+8][g],   B[2t+9][g]
//   D   d[0] = D[g][2t]   d[1] = D[g][2t+1]   d[2] = D[g+8][2t]   d[3] = D[g+8][2t+1]
//
// Every lane of the warp calls it. Under the SIMT emulator the lanes exchange fragments and
// each computes its four D elements: exact fp32 products, summed in k order in fp32.

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/cuda/element.cuh"

#if PAGEDSERVE_SIMT_EMULATION
#include "kernels/cuda/emulator/simt.h"
#include "kernels/cuda/half_bits.h"
#endif

namespace pagedserve::kernels::cuda {

__device__ __forceinline__ std::uint16_t bits_of(bf16 x) { return __bfloat16_as_ushort(x); }
__device__ __forceinline__ std::uint16_t bits_of(f16 x) { return __half_as_ushort(x); }

// Two 16-bit elements in one register, `lo` in the low half.
template <class T>
__device__ __forceinline__ std::uint32_t pack_pair(T lo, T hi) {
  return std::uint32_t{bits_of(lo)} | (std::uint32_t{bits_of(hi)} << 16);
}
template <class T>
__device__ __forceinline__ std::uint32_t pack_floats(float lo, float hi) {
  return pack_pair(from_float<T>(lo), from_float<T>(hi));
}

#if PAGEDSERVE_SIMT_EMULATION
namespace emulated_mma {

struct fragments {
  std::uint32_t a[4];
  std::uint32_t b[2];
};

template <class T>
float element(std::uint32_t reg, int half) {
  const auto bits = static_cast<std::uint16_t>(half == 0 ? reg & 0xFFFFU : reg >> 16);
  if constexpr (std::is_same_v<T, bf16>) {
    return bf16_bits_to_f32(bits);
  } else {
    return f16_bits_to_f32(bits);
  }
}

// A[r][k] and B[k][c] read back out of the lanes' fragments (the layout above, inverted).
template <class T>
float a_at(const std::byte* all, int r, int k) {
  fragments f;
  std::memcpy(&f,
              all + static_cast<std::size_t>((r % 8) * 4 + (k % 8) / 2) * simt::max_exchange_bytes,
              sizeof(f));
  return element<T>(f.a[(r >= 8 ? 1 : 0) + (k >= 8 ? 2 : 0)], k % 2);
}
template <class T>
float b_at(const std::byte* all, int k, int c) {
  fragments f;
  std::memcpy(&f, all + static_cast<std::size_t>(c * 4 + (k % 8) / 2) * simt::max_exchange_bytes,
              sizeof(f));
  return element<T>(f.b[k >= 8 ? 1 : 0], k % 2);
}

}  // namespace emulated_mma
#endif

template <class T>
__device__ __forceinline__ void mma_m16n8k16(float (&d)[4], const std::uint32_t (&a)[4],
                                             const std::uint32_t (&b)[2]) {
  static_assert(sizeof(T) == 2, "bf16 or f16 operands");
#if PAGEDSERVE_SIMT_EMULATION
  const emulated_mma::fragments mine{{a[0], a[1], a[2], a[3]}, {b[0], b[1]}};
  const std::byte* all = simt::warp_exchange(0xffffffffU, &mine, sizeof(mine));
  const int lane = simt::current().lane();
  const int g = lane / 4;
  const int t = lane % 4;
  for (int i = 0; i < 4; ++i) {
    const int row = g + (i >= 2 ? 8 : 0);
    const int col = 2 * t + (i % 2);
    float sum = 0.0F;
    for (int k = 0; k < 16; ++k) {
      sum += emulated_mma::a_at<T>(all, row, k) * emulated_mma::b_at<T>(all, k, col);
    }
    d[i] += sum;
  }
#else
  if constexpr (std::is_same_v<T, bf16>) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
        "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
        "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
#endif
}

}  // namespace pagedserve::kernels::cuda
