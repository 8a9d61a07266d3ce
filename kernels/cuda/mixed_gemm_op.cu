// The mixed-input GEMM of a quantized linear (W4A16 for AWQ and GPTQ, W8A16 for int8 and
// FP8 weights): out[m, n] = sum_k x[m, k] W[n, k] with W read as codes in the layout of
// mixed_gemm_packing.h, dequantized in registers to the activations' type (bf16 or f16) and
// multiplied on the tensor cores (mma.m16n8k16, fp32 accumulation).
//
// A block of 4 warps owns 8 output columns and up to 64 rows of x; its warps split the inputs
// (each warp every 4th tile of 64 code bytes per row: split-K inside the block) and sum their
// partial tiles through shared memory at the end. Lane (g, t) of a warp reads row g's 16 code
// bytes t of a tile with one 16-byte load, the warp keeping the loads of the next 4 tiles in
// flight while it multiplies the current 4 (the memory-level parallelism a weight-streaming
// decode needs). The mma's k positions are
// permuted so that these bytes are the lane's own B fragments: its mma inputs 2t, 2t + 1,
// 2t + 8, 2t + 9 of step s are the tile's inputs base_t + 4s + 0..3, and the A fragments read
// x at the same inputs (8 contiguous bytes per row). Each B fragment is dequantized once and
// multiplied with every 16-row tile of x the block holds: int codes OR-ed into 2^23's mantissa
// minus (2^23 + zero) give code - zero exactly, times the group's scale; e4m3 pairs convert
// with one cvt. x is read from global memory directly (decode's x is a few KiB, cache
// resident); act-order reads it through input_order. Rows past 64 take more blocks
// (gridDim.y), each streaming the weight again: the backend routes large batches to
// dequantize + cuBLAS instead (cuda_backend.cpp).

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernels/check.h"
#include "kernels/cuda/cuda_ops.cuh"
#include "kernels/cuda/element.cuh"
#include "kernels/cuda/fp8_e4m3.cuh"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/mixed_gemm_packing.h"
#include "kernels/cuda/mma.cuh"

namespace pagedserve::kernels::cuda {
namespace {

constexpr int gemm_warps = 4;
constexpr int prefetch_tiles = 4;
constexpr int rows_per_block = 64;
// Inputs per 64 code bytes of a row (a tile: 16 bytes per lane of a row's 4 lanes).
template <weight_format F>
constexpr int tile_k_of = F == weight_format::int4 ? 128 : 64;

struct mixed_args {
  void* out;
  const void* x;
  const std::uint8_t* codes;
  const float* scales;
  const std::uint8_t* zeros;        // null for e4m3
  const std::int32_t* input_order;  // null: identity
  int m;
  int n;
  int k;
  int row_bytes;
  int groups;
  int group_shift;
  bool out_f32;
};

__device__ __forceinline__ std::uint32_t word_of(const uint4& v, int i) {
  return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
}

// Codes 4 step + 2 half + {0, 1} of a lane's 16 bytes, dequantized and packed as two T.
template <class T, weight_format F>
__device__ __forceinline__ std::uint32_t dequantize_pair(const uint4& codes, int step, int half,
                                                         float scale, std::uint32_t zero) {
  if constexpr (F == weight_format::fp8_e4m3) {
    const std::uint32_t word = word_of(codes, step);
    const float2 v = e4m3x2_to_float2(static_cast<std::uint16_t>(half == 0 ? word : word >> 16));
    return pack_floats<T>(v.x * scale, v.y * scale);
  } else {
    // Both codes as 16-bit fields at bits 0 and 16.
    std::uint32_t pair = 0;
    if constexpr (F == weight_format::int4) {
      pair = (word_of(codes, step / 2) >> (4 * ((step % 2) * 2 + half))) & 0x000F000FU;
    } else {
      const std::uint32_t word = word_of(codes, step);
      pair = half == 0 ? (word & 0xFFU) | ((word << 8) & 0xFF0000U)
                       : ((word >> 16) & 0xFFU) | ((word >> 8) & 0xFF0000U);
    }
    const float biased_zero = __uint_as_float(0x4B000000U | zero);
    const float lo = __uint_as_float(0x4B000000U | (pair & 0xFFFFU)) - biased_zero;
    const float hi = __uint_as_float(0x4B000000U | (pair >> 16)) - biased_zero;
    return pack_floats<T>(lo * scale, hi * scale);
  }
}

// x[row][k .. k + 3] as two packed pairs (zeros past the last row or input), through
// input_order for act-order.
template <class T>
__device__ __forceinline__ uint2 x_quad(const mixed_args& a, int row, int k, bool inside) {
  if (row >= a.m || !inside) return uint2{0, 0};
  const T* x_row = static_cast<const T*>(a.x) + static_cast<std::int64_t>(row) * a.k;
  if (a.input_order == nullptr) return *reinterpret_cast<const uint2*>(x_row + k);
  const std::int32_t* order = a.input_order + k;
  return uint2{pack_pair(x_row[order[0]], x_row[order[1]]),
               pack_pair(x_row[order[2]], x_row[order[3]])};
}

// The lane's 16 code bytes of tile `tile` (zeros past the last tile, row or input).
template <weight_format F>
__device__ __forceinline__ uint4 load_codes(const mixed_args& a, int tile, int tiles) {
  const int lane = threadIdx.x % 32;
  const int row = blockIdx.x * 8 + lane / 4;
  const int first_input = tile * tile_k_of<F> + (tile_k_of<F> / 4) * (lane % 4);
  if (tile >= tiles || row >= a.n || first_input >= a.k) return uint4{0, 0, 0, 0};
  const std::int64_t at =
      static_cast<std::int64_t>(row) * a.row_bytes + tile * 64 + 16 * (lane % 4);
  return *reinterpret_cast<const uint4*>(a.codes + at);
}

template <class T, weight_format F, int MT>
__device__ __forceinline__ void multiply_tile(const mixed_args& a, const uint4& codes, int tile,
                                              int row_base, float (&acc)[MT][4]) {
  const int lane = threadIdx.x % 32;
  const int g = lane / 4;
  const int column = min(static_cast<int>(blockIdx.x) * 8 + g, a.n - 1);
  const int base = tile * tile_k_of<F> + (tile_k_of<F> / 4) * (lane % 4);
  const bool inside = base < a.k;  // a.k is a multiple of a lane's inputs
  // A lane's inputs lie in one group (mixed_gemm_supports: groups of at least that many).
  const std::int64_t at =
      static_cast<std::int64_t>(column) * a.groups + (inside ? (base >> a.group_shift) : 0);
  const float scale = a.scales[at];
  const std::uint32_t zero = a.zeros == nullptr ? 0U : a.zeros[at];
#pragma unroll
  for (int step = 0; step < tile_k_of<F> / 16; ++step) {
    const int k = base + 4 * step;
    const std::uint32_t b[2] = {dequantize_pair<T, F>(codes, step, 0, scale, zero),
                                dequantize_pair<T, F>(codes, step, 1, scale, zero)};
#pragma unroll
    for (int mt = 0; mt < MT; ++mt) {
      const int row = row_base + 16 * mt + g;
      const uint2 upper = x_quad<T>(a, row, k, inside);
      const uint2 lower = x_quad<T>(a, row + 8, k, inside);
      const std::uint32_t x[4] = {upper.x, lower.x, upper.y, lower.y};
      mma_m16n8k16<T>(acc[mt], x, b);
    }
  }
}

template <class T, int MT>
__device__ __forceinline__ void store_sums(const mixed_args& a, int row_base,
                                           const float (&acc)[MT][4]) {
  __shared__ float partial[gemm_warps][4 * 4][32];
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
#pragma unroll
  for (int mt = 0; mt < MT; ++mt) {
#pragma unroll
    for (int i = 0; i < 4; ++i) partial[warp][4 * mt + i][lane] = acc[mt][i];
  }
  __syncthreads();
  for (int e = threadIdx.x; e < MT * 4 * 32; e += gemm_warps * 32) {
    const int slot = e / 32;
    const int owner = e % 32;
    float sum = 0.0F;
#pragma unroll
    for (int w = 0; w < gemm_warps; ++w) sum += partial[w][slot][owner];
    const int row = row_base + 16 * (slot / 4) + owner / 4 + (slot % 4 >= 2 ? 8 : 0);
    const int column = blockIdx.x * 8 + 2 * (owner % 4) + slot % 2;
    if (row >= a.m || column >= a.n) continue;
    const std::int64_t at = static_cast<std::int64_t>(row) * a.n + column;
    if (a.out_f32) {
      static_cast<float*>(a.out)[at] = sum;
    } else {
      static_cast<T*>(a.out)[at] = from_float<T>(sum);
    }
  }
}

template <class T, weight_format F, int MT>
__global__ void __launch_bounds__(gemm_warps * 32) mixed_gemm_kernel(mixed_args a) {
  const int warp = threadIdx.x / 32;
  const int row_base = blockIdx.y * rows_per_block;
  const int tiles = (a.k + tile_k_of<F> - 1) / tile_k_of<F>;
  constexpr int stride = gemm_warps * prefetch_tiles;  // tiles of one batch of loads
  float acc[MT][4] = {};
  // Double-buffered: the next batch's loads are in flight while this batch is multiplied.
  uint4 next[prefetch_tiles];
#pragma unroll
  for (int d = 0; d < prefetch_tiles; ++d) next[d] = load_codes<F>(a, warp + d * gemm_warps, tiles);
  for (int first = warp; first < tiles; first += stride) {
    uint4 codes[prefetch_tiles];
#pragma unroll
    for (int d = 0; d < prefetch_tiles; ++d) {
      codes[d] = next[d];
      next[d] = load_codes<F>(a, first + stride + d * gemm_warps, tiles);
    }
#pragma unroll
    for (int d = 0; d < prefetch_tiles; ++d) {
      const int tile = first + d * gemm_warps;
      if (tile < tiles) multiply_tile<T, F, MT>(a, codes[d], tile, row_base, acc);
    }
  }
  store_sums<T, MT>(a, row_base, acc);
}

// dense[n, k] (T) = the weight dequantized, in x's column order: one thread per 16 code bytes,
// decoded as the GEMM's lanes decode them.
template <class T, weight_format F>
__global__ void dequantize_kernel(T* dense, mixed_args a) {
  constexpr int inputs = tile_k_of<F> / 4;  // per 16 code bytes
  const std::int64_t chunk = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t chunks_per_row = a.k / inputs;
  if (chunk >= chunks_per_row * a.n) return;
  const std::int64_t row = chunk / chunks_per_row;
  const int base = static_cast<int>(chunk % chunks_per_row) * inputs;
  const uint4 codes = *reinterpret_cast<const uint4*>(a.codes + chunk * 16);
  for (int step = 0; step < inputs / 4; ++step) {
    const int k = base + 4 * step;
    const std::int64_t at = row * a.groups + (k >> a.group_shift);
    const std::uint32_t zero = a.zeros == nullptr ? 0U : a.zeros[at];
    const std::uint32_t pairs[2] = {dequantize_pair<T, F>(codes, step, 0, a.scales[at], zero),
                                    dequantize_pair<T, F>(codes, step, 1, a.scales[at], zero)};
    T* out = dense + row * a.k;
    if (a.input_order == nullptr) {
      std::memcpy(out + k, pairs, sizeof(pairs));
      continue;
    }
    // Act-order: code column k belongs to x's column input_order[k].
    T values[4];
    std::memcpy(values, pairs, sizeof(pairs));
    for (int i = 0; i < 4; ++i) out[a.input_order[k + i]] = values[i];
  }
}

mixed_args args_of(const tensor& out, const tensor& x, const quantized_weight& w) {
  mixed_args a{};
  a.out = out.data;
  a.x = x.data;
  a.codes = w.codes.as<const std::uint8_t>();
  a.scales = w.scales.as<const float>();
  a.zeros = w.zeros.empty() ? nullptr : w.zeros.as<const std::uint8_t>();
  a.input_order = w.input_order.empty() ? nullptr : w.input_order.as<const std::int32_t>();
  a.m = x.empty() ? 0 : static_cast<int>(x.numel() / w.in_features);
  a.n = static_cast<int>(w.out_features);
  a.k = static_cast<int>(w.in_features);
  a.row_bytes =
      static_cast<int>(w.format == weight_format::int4 ? w.in_features / 2 : w.in_features);
  a.groups = static_cast<int>(w.num_groups());
  a.group_shift = mixed_gemm_group_shift(w);
  a.out_f32 = out.type == dtype::f32;
  return a;
}

void check_packed(const char* op, const quantized_weight& w) {
  KERNEL_CHECK(op, w.packing == mixed_gemm_packing && w.block_rows == 1);
  KERNEL_CHECK(op, w.in_features % 32 == 0 && w.out_features > 0);
  KERNEL_CHECK(op, w.in_features < (1LL << 30) && w.out_features < (1LL << 31) - 8);
  KERNEL_CHECK(op, reinterpret_cast<std::uintptr_t>(w.codes.data) % 16 == 0);  // uint4 loads
  KERNEL_CHECK(op,
               w.scales.type == dtype::f32 && w.scales.numel() == w.out_features * w.num_groups());
  KERNEL_CHECK(op, (w.format == weight_format::fp8_e4m3) == w.zeros.empty());
}

template <class Body>
void dispatch_format(weight_format format, Body&& body) {
  switch (format) {
    case weight_format::int4:
      return body(std::integral_constant<weight_format, weight_format::int4>{});
    case weight_format::int8:
      return body(std::integral_constant<weight_format, weight_format::int8>{});
    case weight_format::fp8_e4m3:
      return body(std::integral_constant<weight_format, weight_format::fp8_e4m3>{});
    case weight_format::dense:
      break;
  }
  KERNEL_CHECK("mixed_gemm", false);
}

}  // namespace

void mixed_gemm(const tensor& out, const tensor& x, const quantized_weight& w,
                cudaStream_t stream) {
  check_packed("mixed_gemm", w);
  KERNEL_CHECK("mixed_gemm", x.type == dtype::bf16 || x.type == dtype::f16);
  KERNEL_CHECK("mixed_gemm", out.type == x.type || out.type == dtype::f32);
  KERNEL_CHECK("mixed_gemm", x.numel() % w.in_features == 0);
  KERNEL_CHECK("mixed_gemm", reinterpret_cast<std::uintptr_t>(x.data) % 8 == 0);  // uint2 loads
  const std::int64_t m = x.numel() / w.in_features;
  KERNEL_CHECK("mixed_gemm", out.numel() == m * w.out_features);
  KERNEL_CHECK("mixed_gemm", m <= std::int64_t{65535} * rows_per_block);  // gridDim.y
  if (m == 0) return;
  const mixed_args a = args_of(out, x, w);
  const dim3 grid(static_cast<unsigned>((w.out_features + 7) / 8),
                  static_cast<unsigned>((m + rows_per_block - 1) / rows_per_block));
  dispatch_float_type("mixed_gemm", x.type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (sizeof(T) == 2) {
      dispatch_format(w.format, [&](auto format) {
        constexpr weight_format F = decltype(format)::value;
        auto* kernel = m <= 16   ? mixed_gemm_kernel<T, F, 1>
                       : m <= 32 ? mixed_gemm_kernel<T, F, 2>
                                 : mixed_gemm_kernel<T, F, 4>;
        launch_kernel(kernel, grid, dim3(gemm_warps * 32), 0, stream, a);
      });
    }
  });
}

void dequantize_packed(const tensor& dense, const quantized_weight& w, cudaStream_t stream) {
  check_packed("dequantize_packed", w);
  KERNEL_CHECK("dequantize_packed", dense.type == dtype::bf16 || dense.type == dtype::f16);
  KERNEL_CHECK("dequantize_packed", dense.numel() == w.out_features * w.in_features);
  const mixed_args a = args_of(dense, tensor{}, w);
  constexpr int threads = 256;
  const std::int64_t chunks = w.codes.numel() / 16;
  const dim3 grid(static_cast<unsigned>((chunks + threads - 1) / threads));
  dispatch_float_type("dequantize_packed", dense.type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (sizeof(T) == 2) {
      dispatch_format(w.format, [&](auto format) {
        constexpr weight_format F = decltype(format)::value;
        launch_kernel(dequantize_kernel<T, F>, grid, dim3(threads), 0, stream, dense.as<T>(), a);
      });
    }
  });
}

}  // namespace pagedserve::kernels::cuda
