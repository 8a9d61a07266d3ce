#pragma once
// The kernel of paged_attention_op.cu: causal attention of query rows over the paged KV cache.
//
// Grid: (row, kv_head x head tile, split). One CTA takes one query row, one KV head, up to G
// of the query heads that share it (GQA; G is a template argument, so its running state
// lives in registers) and one split of consecutive key positions. Each key and value row of
// the split is read once for the G heads.
//
// Inside the CTA every warp owns its own run of keys and its own online softmax: no block
// barrier and no shared memory until the end. A warp reads `rows_per_warp` key rows at a
// time, `lanes` lanes per row, each lane one 16-byte word (or two) of the row; it issues the
// loads of `unroll_keys` such rows of keys and of values before using any, so many loads are
// in flight. A lane keeps, for each of the G heads, the running max m, sum l and the
// weighted sum of values acc over its elements of the row:
//
//   s = scale * q . k            (the row's lanes reduce the dot with shuffles)
//   m' = max(m, s...)    l = l e^(m - m') + sum e^(s - m')    acc = acc e^(m - m') + sum e^(s - m')
//   v
//
// At the end the row slots of a warp merge by shuffles, the warps through shared memory,
// with the same rule; one split writes out = acc / l, several write (m, l, acc) partials for
// combine_splits_kernel (paged_attention_op.cu). The first warp starts at the split's first
// key, so the merged max is finite and the sum positive.
//
// The previous kernel (before the GPU was measured) scored a chunk of keys into shared
// memory, ran the softmax with one warp per head and then the values, with a block barrier
// between the phases: on an H200 it read the cache at 11% of the memory bandwidth.

#include <cmath>
#include <cstdint>

#include "kernels/cuda/block_reduce.cuh"
#include "kernels/cuda/cache_row.cuh"
#include "kernels/cuda/device_check.cuh"
#include "kernels/cuda/element.cuh"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/paged_batch.cuh"
#include "kernels/cuda/running_softmax.cuh"

namespace pagedserve::kernels::cuda::paged_attention_detail {

constexpr int attention_warps = 4;
constexpr int attention_threads = attention_warps * 32;
constexpr int unroll_keys = 4;  // key (and value) rows whose loads a lane issues before using them

// Resident CTAs asked of the register allocator: 4 (16 warps) up to G = 4, whose running
// state is 2 x 4 x 8 floats a lane; G = 8 takes twice that and settles for 2.
template <int G>
constexpr int min_ctas_per_sm = G <= 4 ? 4 : 2;

template <class T, class C>
struct attention_args : paged_batch<T, C> {
  float* part_max;  // [rows, heads, splits]; null with one split
  float* part_sum;  // [rows, heads, splits]
  float* part_acc;  // [rows, heads, splits, head_dim]
  int num_splits;
  int keys_per_split;
  float scale;             // the softmax scale times key_scale
  bool skip_prefill_rows;  // rows of sequences with > 1 new token belong to prefill_attention
};

// How a warp reads rows of head_dim elements: `lanes` lanes per row, `elems` consecutive
// elements per lane (one or two 16-byte words of T); `rows_per_warp` rows at once. A cache of
// fp8 codes keeps T's layout with narrower loads.
template <class T, int head_dim>
struct row_layout {
  static constexpr int vector = 16 / static_cast<int>(sizeof(T));
  static constexpr int lanes = head_dim / vector < 32 ? head_dim / vector : 32;
  static constexpr int elems = head_dim / lanes;
  static constexpr int rows_per_warp = 32 / lanes;
  static constexpr int keys_per_warp_step = rows_per_warp * unroll_keys;
  static_assert(head_dim % vector == 0 && (lanes & (lanes - 1)) == 0 && elems % vector == 0,
                "head_dim layout");
};

// Floats of shared memory for the merge of the warps: acc [warps][G][head_dim], m and l
// [warps][G]. Within the default 48 KiB for every (G <= 8, head_dim <= 256).
template <int G, int head_dim>
constexpr int merge_floats() {
  return attention_warps * G * (head_dim + 2);
}

// The sequence owning `row`: the largest s with query_start[s] <= row (skips empty ones).
__device__ inline int sequence_of(const std::int32_t* query_start, int num_seqs, int row) {
  int lo = 0;
  int hi = num_seqs - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (query_start[mid] <= row) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

// One warp's keys [first, key_end) in steps of `stride` keys, into `state`.
template <class T, class C, int head_dim, int G>
__device__ __forceinline__ void attend_keys(
    const attention_args<T, C>& a, const std::int32_t* table, int kv_head, int first, int key_end,
    int stride, const float (&q)[G][row_layout<T, head_dim>::elems],
    running_softmax<G, row_layout<T, head_dim>::elems, unroll_keys>& state) {
  using layout = row_layout<T, head_dim>;
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int slot = lane / layout::lanes;
  const int element = (lane % layout::lanes) * layout::elems;
  // The loop bound is the same for the whole warp, so every lane reaches the shuffles.
  for (int base = first; base < key_end; base += stride) {
    packed_row<C, layout::elems> k[unroll_keys];
    packed_row<C, layout::elems> v[unroll_keys];
#pragma unroll
    for (int u = 0; u < unroll_keys; ++u) {
      const int key = base + u * layout::rows_per_warp + slot;
      if (key < key_end) {
        const std::int64_t at = a.cache_offset(table, key, kv_head, head_dim) + element;
        k[u].load(a.key_cache + at);
        v[u].load(a.value_cache + at);
      } else {
        k[u].zero();
        v[u].zero();
      }
    }
    // Each row is converted once, for all G heads.
    float s[G][unroll_keys];
#pragma unroll
    for (int u = 0; u < unroll_keys; ++u) {
      const bool valid = base + u * layout::rows_per_warp + slot < key_end;
      float key[layout::elems];
      k[u].to_floats(key);
#pragma unroll
      for (int g = 0; g < G; ++g) {
        float dot = 0.0F;
#pragma unroll
        for (int e = 0; e < layout::elems; ++e) dot += q[g][e] * key[e];
        dot = warp_reduce<layout::lanes>(dot, sum_op{});
        s[g][u] = valid ? dot * a.scale : -INFINITY;
      }
    }
#pragma unroll
    for (int g = 0; g < G; ++g) state.rescale(g, s[g]);
#pragma unroll
    for (int u = 0; u < unroll_keys; ++u) {
      float value[layout::elems];
      v[u].to_floats(value);
      state.accumulate(s, u, value);
    }
  }
}

template <class T, class C, int head_dim, int G>
__global__ void __launch_bounds__(attention_threads, min_ctas_per_sm<G>)
    paged_attention_kernel(const attention_args<T, C> a) {
  using layout = row_layout<T, head_dim>;
  const int row = static_cast<int>(blockIdx.x);
  const int group = a.num_heads / a.num_kv_heads;
  const int tiles = (group + G - 1) / G;
  const int kv_head = static_cast<int>(blockIdx.y) / tiles;
  const int first_head = (static_cast<int>(blockIdx.y) % tiles) * G;  // within the group
  const int heads = min(G, group - first_head);
  const int split = static_cast<int>(blockIdx.z);
  const int seq = sequence_of(a.query_start, a.num_seqs, row);
  const int num_new = a.query_start[seq + 1] - a.query_start[seq];
  if (a.skip_prefill_rows && num_new > 1) return;
  const int num_keys = a.context_lens[seq] - num_new + (row - a.query_start[seq]) + 1;
  DEVICE_CHECK("paged_attention", num_keys >= 1 && num_keys <= a.num_splits * a.keys_per_split);
  DEVICE_CHECK("paged_attention", num_keys <= a.max_blocks_per_seq * a.block_size);
  const int key_begin = split * a.keys_per_split;
  const int key_end = min(num_keys, key_begin + a.keys_per_split);
  const std::int64_t head0 =
      static_cast<std::int64_t>(row) * a.num_heads + kv_head * group + first_head;

  if (key_begin >= num_keys) {  // an empty split of a short row: contributes nothing
    for (int i = static_cast<int>(threadIdx.x); i < heads * head_dim; i += attention_threads) {
      const std::int64_t part = (head0 + i / head_dim) * a.num_splits + split;
      a.part_acc[part * head_dim + i % head_dim] = 0.0F;
      if (i % head_dim == 0) {
        a.part_max[part] = -INFINITY;
        a.part_sum[part] = 0.0F;
      }
    }
    return;
  }

  const int warp = static_cast<int>(threadIdx.x / 32);
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int element = (lane % layout::lanes) * layout::elems;
  float q[G][layout::elems];
#pragma unroll
  for (int g = 0; g < G; ++g) {
#pragma unroll
    for (int e = 0; e < layout::elems; ++e) {
      q[g][e] = g < heads ? to_float(a.query[(head0 + g) * head_dim + element + e]) : 0.0F;
    }
  }
  running_softmax<G, layout::elems, unroll_keys> state;
  state.reset();
  attend_keys<T, C, head_dim, G>(a, a.table(seq), kv_head,
                                 key_begin + warp * layout::keys_per_warp_step, key_end,
                                 attention_warps * layout::keys_per_warp_step, q, state);
  state.template merge_across_lanes<layout::lanes>();

  DYNAMIC_SHARED(float, shared);
  float* acc_sh = shared;                                   // [warps][G][head_dim]
  float* max_sh = acc_sh + attention_warps * G * head_dim;  // [warps][G]
  float* sum_sh = max_sh + attention_warps * G;             // [warps][G]
  if (lane < layout::lanes) {  // row slot 0 holds the warp's merged state
#pragma unroll
    for (int g = 0; g < G; ++g) {
#pragma unroll
      for (int e = 0; e < layout::elems; ++e) {
        acc_sh[(warp * G + g) * head_dim + element + e] = state.acc[g][e];
      }
      if (lane == 0) {
        max_sh[warp * G + g] = state.m[g];
        sum_sh[warp * G + g] = state.l[g];
      }
    }
  }
  __syncthreads();

  for (int i = static_cast<int>(threadIdx.x); i < heads * head_dim; i += attention_threads) {
    const int g = i / head_dim;
    float top = -INFINITY;
    for (int w = 0; w < attention_warps; ++w) top = fmaxf(top, max_sh[w * G + g]);
    float total = 0.0F;
    float sum = 0.0F;
    for (int w = 0; w < attention_warps; ++w) {
      const float m = max_sh[w * G + g];
      if (m == -INFINITY) continue;  // a warp that had no keys
      const float factor = expf(m - top);
      total += factor * acc_sh[(w * G + g) * head_dim + i % head_dim];
      sum += factor * sum_sh[w * G + g];
    }
    total *= a.value_scale;  // the values were summed as codes (1 for a cache of T)
    if (a.num_splits == 1) {
      a.out[head0 * head_dim + i] = from_float<T>(total / sum);
    } else {
      const std::int64_t part = (head0 + g) * a.num_splits + split;
      a.part_acc[part * head_dim + i % head_dim] = total;
      if (i % head_dim == 0) {
        a.part_max[part] = top;
        a.part_sum[part] = sum;
      }
    }
  }
}

}  // namespace pagedserve::kernels::cuda::paged_attention_detail
