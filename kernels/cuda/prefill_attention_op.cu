// prefill_attention: causal attention of the new tokens of every sequence with more than one
// (prefill chunks) over its paged cache, on tensor cores (FlashAttention-2's loop with
// mma.m16n8k16, bf16 or f16 operands, fp32 accumulation and softmax). Decode rows (one new
// token) are paged_attention_op.cu's.
//
// Grid (query tile, sequence, KV head). The M dimension of a tile is 64 (token, query head)
// pairs of one KV head's group, token-major (m -> token m / group, head m % group), so the K
// and V tiles a CTA loads serve every query head that shares them (GQA). Four warps own 16
// rows each. Per tile of 64 keys:
//
//   load K, V rows [n0, n0 + 64) of the sequence through its block table into shared memory
//   S = Q K^T               (Q's fragments stay in registers for the whole loop)
//   mask key > position     (causal; rows past the sequence's tokens mask everything)
//   online softmax in base 2: m' = max(m, rowmax S), p = 2^(S - m'), l = l 2^(m - m') + sum p
//   O = O 2^(m - m') + P V  (P's accumulator fragments become A fragments, rounded to T)
//
// then O / l. A row's max and sum are split over the four lanes of its quad; only l needs
// combining at the end, as every lane of a quad rescales by the same max.

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/check.h"
#include "kernels/cuda/block_reduce.cuh"
#include "kernels/cuda/cuda_ops.cuh"
#include "kernels/cuda/device_check.cuh"
#include "kernels/cuda/element.cuh"
#include "kernels/cuda/fp8_e4m3.cuh"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/mma.cuh"
#include "kernels/cuda/paged_batch.cuh"

namespace pagedserve::kernels::cuda {
namespace {

constexpr int tile_m = 64;
constexpr int tile_n = 64;
constexpr int prefill_warps = 4;
constexpr int prefill_threads = prefill_warps * 32;
constexpr int smem_pad = 8;  // elements per shared row beyond head_dim: spreads the banks
constexpr float log2e = 1.4426950408889634F;

template <class T, class C>
struct prefill_args : paged_batch<T, C> {
  float scale_log2;  // softmax scale times log2(e)
};

template <int head_dim>
constexpr int smem_stride = head_dim + smem_pad;

template <int head_dim>
constexpr std::size_t prefill_shared_bytes(std::size_t element_bytes) {
  return element_bytes * static_cast<std::size_t>((tile_m + 2 * tile_n) * smem_stride<head_dim>);
}

__device__ __forceinline__ std::uint32_t load_u32(const void* p) {
  return *static_cast<const std::uint32_t*>(p);
}

// Rows [0, count) of a [rows][head_dim] tile from `row_address(i)` (null: zeros), 16 bytes
// at a time, into shared memory with a padded stride.
template <class T, int head_dim, class RowAddress>
__device__ void load_tile(T* dst, int count, RowAddress row_address) {
  constexpr int vectors_per_row = head_dim * static_cast<int>(sizeof(T)) / 16;
  for (int i = static_cast<int>(threadIdx.x); i < count * vectors_per_row; i += prefill_threads) {
    const int row = i / vectors_per_row;
    const int part = i % vectors_per_row;
    const T* src = row_address(row);
    uint4 v = make_uint4(0, 0, 0, 0);
    if (src != nullptr) v = reinterpret_cast<const uint4*>(src)[part];
    *reinterpret_cast<uint4*>(dst + row * smem_stride<head_dim> + part * (16 / sizeof(T))) = v;
  }
}

// Rows of a K or V tile from the cache: copied when it holds T; fp8 codes decoded as
// code x scale, rounded to T (8 codes, 8 bytes, to 16 bytes of shared memory at a time).
template <class T, class C, int head_dim, class RowAddress>
__device__ void load_cache_tile(T* dst, int count, RowAddress row_address, float scale) {
  if constexpr (std::is_same_v<C, T>) {
    load_tile<T, head_dim>(dst, count, row_address);
  } else {
    static_assert(sizeof(T) == 2, "the tensor-core kernel computes in bf16 or f16");
    constexpr int vectors_per_row = head_dim / 8;
    for (int i = static_cast<int>(threadIdx.x); i < count * vectors_per_row; i += prefill_threads) {
      const int row = i / vectors_per_row;
      const int part = i % vectors_per_row;
      const C* src = row_address(row);
      uint2 codes = make_uint2(0, 0);
      if (src != nullptr) codes = reinterpret_cast<const uint2*>(src)[part];
      const auto* code = reinterpret_cast<const std::uint8_t*>(&codes);
      alignas(16) T decoded[8];
#pragma unroll
      for (int j = 0; j < 8; ++j) decoded[j] = from_float<T>(e4m3_to_float(code[j]) * scale);
      *reinterpret_cast<uint4*>(dst + row * smem_stride<head_dim> + part * 8) =
          *reinterpret_cast<const uint4*>(decoded);
    }
  }
}

// One warp's 16 rows: S for 64 keys from Q's fragments and the K tile.
template <class T, int head_dim>
__device__ void scores(const std::uint32_t (&q)[head_dim / 16][4], const T* k_sh,
                       float (&s)[tile_n / 8][4]) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int g = lane / 4;
  const int t = lane % 4;
#pragma unroll
  for (int nt = 0; nt < tile_n / 8; ++nt) {
    s[nt][0] = s[nt][1] = s[nt][2] = s[nt][3] = 0.0F;
    const T* key = k_sh + (nt * 8 + g) * smem_stride<head_dim>;
#pragma unroll
    for (int kk = 0; kk < head_dim / 16; ++kk) {
      const std::uint32_t b[2] = {load_u32(key + kk * 16 + 2 * t),
                                  load_u32(key + kk * 16 + 2 * t + 8)};
      mma_m16n8k16<T>(s[nt], q[kk], b);
    }
  }
}

// O += P V for one warp: P (fp32 accumulators of S, rounded to T) times the V tile.
template <class T, int head_dim>
__device__ void accumulate(const float (&p)[tile_n / 8][4], const T* v_sh,
                           float (&o)[head_dim / 8][4]) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int g = lane / 4;
  const int t = lane % 4;
#pragma unroll
  for (int kk = 0; kk < tile_n / 16; ++kk) {
    const std::uint32_t pa[4] = {pack_floats<T>(p[2 * kk][0], p[2 * kk][1]),
                                 pack_floats<T>(p[2 * kk][2], p[2 * kk][3]),
                                 pack_floats<T>(p[2 * kk + 1][0], p[2 * kk + 1][1]),
                                 pack_floats<T>(p[2 * kk + 1][2], p[2 * kk + 1][3])};
    const T* rows = v_sh + (kk * 16 + 2 * t) * smem_stride<head_dim>;
#pragma unroll
    for (int dt = 0; dt < head_dim / 8; ++dt) {
      const int d = dt * 8 + g;
      const std::uint32_t b[2] = {
          pack_pair(rows[d], rows[smem_stride<head_dim> + d]),
          pack_pair(rows[8 * smem_stride<head_dim> + d], rows[9 * smem_stride<head_dim> + d])};
      mma_m16n8k16<T>(o[dt], pa, b);
    }
  }
}

// Online softmax of one key tile for this lane's two rows (r = 0: row g, r = 1: row g + 8).
// Masks keys past each row's position, rescales O and l, and leaves p = 2^(S - max) in s.
template <int head_dim>
__device__ void softmax_tile(float (&s)[tile_n / 8][4], int n0, const int (&position)[2],
                             float scale_log2, float (&row_max)[2], float (&row_sum)[2],
                             float (&o)[head_dim / 8][4]) {
  const int t = static_cast<int>(threadIdx.x % 4);
  float tile_max[2] = {-INFINITY, -INFINITY};
#pragma unroll
  for (int nt = 0; nt < tile_n / 8; ++nt) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int r = i / 2;
      const int key = n0 + nt * 8 + 2 * t + (i % 2);
      s[nt][i] = key <= position[r] ? s[nt][i] * scale_log2 : -INFINITY;
      tile_max[r] = fmaxf(tile_max[r], s[nt][i]);
    }
  }
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    tile_max[r] = fmaxf(tile_max[r], shuffle_xor(tile_max[r], 1));
    tile_max[r] = fmaxf(tile_max[r], shuffle_xor(tile_max[r], 2));
    const float new_max = fmaxf(row_max[r], tile_max[r]);
    // A row with nothing unmasked yet keeps max -inf; subtract 0 then, never -inf - -inf.
    const float base = new_max == -INFINITY ? 0.0F : new_max;
    const float rescale = exp2f(row_max[r] - base);
    row_max[r] = new_max;
    row_sum[r] *= rescale;
#pragma unroll
    for (int dt = 0; dt < head_dim / 8; ++dt) {
      o[dt][2 * r] *= rescale;
      o[dt][2 * r + 1] *= rescale;
    }
#pragma unroll
    for (int nt = 0; nt < tile_n / 8; ++nt) {
      s[nt][2 * r] = exp2f(s[nt][2 * r] - base);
      s[nt][2 * r + 1] = exp2f(s[nt][2 * r + 1] - base);
      row_sum[r] += s[nt][2 * r] + s[nt][2 * r + 1];
    }
  }
}

template <class T, class C, int head_dim>
__global__ void __launch_bounds__(prefill_threads)
    prefill_attention_kernel(const prefill_args<T, C> a) {
  static_assert(head_dim % 16 == 0, "k steps of 16");
  const int seq = static_cast<int>(blockIdx.y);
  const int kv_head = static_cast<int>(blockIdx.z);
  const int group = a.num_heads / a.num_kv_heads;
  const int first_row = a.query_start[seq];
  const int num_new = a.query_start[seq + 1] - first_row;
  const int m_begin = static_cast<int>(blockIdx.x) * tile_m;
  if (num_new <= 1 || m_begin >= num_new * group) return;  // a decode row, or no rows here
  const int first_position = a.context_lens[seq] - num_new;
  DEVICE_CHECK("prefill_attention", first_position >= 0);
  const int last_token = min(num_new - 1, (m_begin + tile_m - 1) / group);
  const int last_key = first_position + last_token;
  DEVICE_CHECK("prefill_attention", last_key < a.max_blocks_per_seq * a.block_size);
  const std::int32_t* table = a.table(seq);

  DYNAMIC_SHARED(T, shared);
  T* q_sh = shared;
  T* k_sh = q_sh + tile_m * smem_stride<head_dim>;
  T* v_sh = k_sh + tile_n * smem_stride<head_dim>;

  // (token, head) pair of tile row m, or token -1 past the sequence's new tokens.
  const auto row_token = [&](int m) {
    const int token = (m_begin + m) / group;
    return token < num_new ? token : -1;
  };
  const auto query_row = [&](int m) -> const T* {
    const int token = row_token(m);
    if (token < 0) return nullptr;
    const int head = kv_head * group + (m_begin + m) % group;
    return a.query + (static_cast<std::int64_t>(first_row + token) * a.num_heads + head) * head_dim;
  };
  load_tile<T, head_dim>(q_sh, tile_m, query_row);
  __syncthreads();

  const int warp = static_cast<int>(threadIdx.x / 32);
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int g = lane / 4;
  const int t = lane % 4;
  std::uint32_t q[head_dim / 16][4];
#pragma unroll
  for (int kk = 0; kk < head_dim / 16; ++kk) {
    const T* row0 = q_sh + (warp * 16 + g) * smem_stride<head_dim> + kk * 16 + 2 * t;
    const T* row8 = row0 + 8 * smem_stride<head_dim>;
    q[kk][0] = load_u32(row0);
    q[kk][1] = load_u32(row8);
    q[kk][2] = load_u32(row0 + 8);
    q[kk][3] = load_u32(row8 + 8);
  }
  int position[2];
  for (int r = 0; r < 2; ++r) {
    const int token = row_token(warp * 16 + g + 8 * r);
    position[r] = token < 0 ? -1 : first_position + token;
  }
  // The warp's last row with a position: keys beyond it are masked for all its rows.
  const int warp_last_token =
      row_token(warp * 16 + 15) >= 0 ? row_token(warp * 16 + 15) : num_new - 1;
  const int warp_last_key = row_token(warp * 16) < 0 ? -1 : first_position + warp_last_token;

  float o[head_dim / 8][4] = {};
  float row_max[2] = {-INFINITY, -INFINITY};
  float row_sum[2] = {0.0F, 0.0F};
  for (int n0 = 0; n0 <= last_key; n0 += tile_n) {
    __syncthreads();  // every warp is done with the previous K and V tiles
    const int count = min(tile_n, last_key + 1 - n0);
    const auto key_row = [&](int i) -> const C* {
      return i < count ? a.key_cache + a.cache_offset(table, n0 + i, kv_head, head_dim) : nullptr;
    };
    const auto value_row = [&](int i) -> const C* {
      return i < count ? a.value_cache + a.cache_offset(table, n0 + i, kv_head, head_dim) : nullptr;
    };
    load_cache_tile<T, C, head_dim>(k_sh, tile_n, key_row, a.key_scale);
    load_cache_tile<T, C, head_dim>(v_sh, tile_n, value_row, a.value_scale);
    __syncthreads();
    if (n0 > warp_last_key) continue;  // uniform over the warp: all its keys here are masked
    float s[tile_n / 8][4];
    scores<T, head_dim>(q, k_sh, s);
    softmax_tile<head_dim>(s, n0, position, a.scale_log2, row_max, row_sum, o);
    accumulate<T, head_dim>(s, v_sh, o);
  }

  for (int r = 0; r < 2; ++r) {
    row_sum[r] += shuffle_xor(row_sum[r], 1);
    row_sum[r] += shuffle_xor(row_sum[r], 2);
    const int m = warp * 16 + g + 8 * r;
    const int token = row_token(m);
    if (token < 0) continue;
    const int head = kv_head * group + (m_begin + m) % group;
    T* out = a.out + (static_cast<std::int64_t>(first_row + token) * a.num_heads + head) * head_dim;
    const float inverse = 1.0F / row_sum[r];
#pragma unroll
    for (int dt = 0; dt < head_dim / 8; ++dt) {
      out[dt * 8 + 2 * t] = from_float<T>(o[dt][2 * r] * inverse);
      out[dt * 8 + 2 * t + 1] = from_float<T>(o[dt][2 * r + 1] * inverse);
    }
  }
}

template <class T, class C, int head_dim>
void launch(const paged_attention_params& p, cudaStream_t stream) {
  prefill_args<T, C> a{};
  static_cast<paged_batch<T, C>&>(a) = paged_batch<T, C>::from(p);
  a.scale_log2 = p.scale * log2e;
  const int group = a.num_heads / a.num_kv_heads;
  const auto num_tiles = static_cast<unsigned int>((p.max_query_len * group + tile_m - 1) / tile_m);
  const std::size_t shared_bytes = prefill_shared_bytes<head_dim>(sizeof(T));
  static const bool opted_in = [shared_bytes] {  // once per kernel, as sizes are fixed per kernel
    allow_dynamic_shared(prefill_attention_kernel<T, C, head_dim>, shared_bytes);
    return true;
  }();
  (void)opted_in;
  const dim3 grid(num_tiles, static_cast<unsigned int>(p.context_lens.numel()),
                  static_cast<unsigned int>(a.num_kv_heads));
  launch_kernel(prefill_attention_kernel<T, C, head_dim>, grid, dim3(prefill_threads), shared_bytes,
                stream, a);
}

template <class T, class C>
void launch_for_head_dim(const paged_attention_params& p, cudaStream_t stream) {
  switch (p.query.dim(2)) {
    case 32:
      launch<T, C, 32>(p, stream);
      break;
    case 64:
      launch<T, C, 64>(p, stream);
      break;
    case 128:
      launch<T, C, 128>(p, stream);
      break;
    default:
      launch<T, C, 256>(p, stream);
      break;
  }
}

}  // namespace

bool prefill_attention_supported(const paged_attention_params& p) {
  const std::int64_t head_dim = p.query.dim(2);
  const bool sixteen_bit = p.query.type == dtype::bf16 || p.query.type == dtype::f16;
  return sixteen_bit && p.max_query_len > 1 &&
         (head_dim == 32 || head_dim == 64 || head_dim == 128 || head_dim == 256);
}

void prefill_attention(const paged_attention_params& p, cudaStream_t stream) {
  KERNEL_CHECK("prefill_attention", prefill_attention_supported(p));
  const bool codes = p.key_cache.type == dtype::u8;
  if (p.query.type == dtype::bf16 && codes) {
    launch_for_head_dim<bf16, std::uint8_t>(p, stream);
  } else if (p.query.type == dtype::bf16) {
    launch_for_head_dim<bf16, bf16>(p, stream);
  } else if (codes) {
    launch_for_head_dim<f16, std::uint8_t>(p, stream);
  } else {
    launch_for_head_dim<f16, f16>(p, stream);
  }
}

}  // namespace pagedserve::kernels::cuda
