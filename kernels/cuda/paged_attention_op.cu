// paged_attention: causal attention of every query row over the paged KV cache, decode and
// prefill rows alike, with flash-decoding split-K.
//
// Grid: (row, kv_head, split). One CTA takes one query row, one KV head and one split of
// `keys_per_split` consecutive key positions, and serves all `group` query heads that share
// the KV head (GQA), so each key and value row of the split is read once per query row. It
// walks its split in chunks of `chunk_keys`, keeping a running softmax:
//
//   phase 1  scores   s[g][j] = scale * q[g] . K[chunk + j]              lane groups, one key each
//   phase 2  softmax  m' = max(m, max_j s), p[g][j] = exp(s - m'), l = l e^(m - m') + sum_j p
//                                                                        one warp per g
//   phase 3  values   acc[g][:] = acc e^(m - m') + sum_j p[g][j] V[chunk + j]   thread pairs
//
// The split count is chosen for parallelism (about target_ctas CTAs in the grid; never more
// splits than chunks of context), so long contexts over few rows split and big batches do
// not; the scratch for partials is then bounded for a model (paged_attention_workspace_bound)
// and never grows under a captured graph. One split: out = acc / l directly. Several: each
// CTA writes (m, l, acc) of its split and combine_splits_kernel merges them:
// out = sum_s e^(m_s - M) acc_s / sum_s e^(m_s - M) l_s with M = max_s m_s. Split 0 always
// holds key 0, so M is finite and the sum positive.
//
// Prefill rows can use the same kernel (a row's keys end at its own position, which is the
// causal mask): f32 does, to match the fp32 reference. In 16-bit types the rows of sequences
// with several new tokens go to prefill_attention_op.cu's tensor-core kernel instead, which
// reuses each K/V tile across 64 rows; this kernel then skips them.

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "kernels/check.h"
#include "kernels/cuda/block_reduce.cuh"
#include "kernels/cuda/cuda_ops.cuh"
#include "kernels/cuda/device_check.cuh"
#include "kernels/cuda/element.cuh"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/paged_batch.cuh"

namespace pagedserve::kernels::cuda {
namespace {

constexpr int attention_threads = 128;
constexpr int chunk_keys = 256;  // keys scored at a time (one p_sh row)
// About 8 resident CTAs on each of an H200's 132 SMs: splits beyond that add partials
// without adding parallelism.
constexpr int target_ctas = 1024;
constexpr int max_group = 16;
constexpr int unroll_keys = 4;  // keys whose loads a thread issues before using them
constexpr int default_shared_bytes = 48 * 1024;

template <class T>
struct attention_args : paged_batch<T> {
  float* part_max;  // [rows, heads, splits]; null with one split
  float* part_sum;  // [rows, heads, splits]
  float* part_acc;  // [rows, heads, splits, head_dim]
  int num_splits;
  int keys_per_split;  // a multiple of chunk_keys
  float scale;
  bool skip_prefill_rows;  // rows of sequences with > 1 new token belong to prefill_attention
};

// Lanes per key in phase 1: each lane loads 16 bytes at a time.
template <class T, int head_dim>
struct key_layout {
  static constexpr int vector = 16 / static_cast<int>(sizeof(T));
  static constexpr int lanes = head_dim / vector < 32 ? head_dim / vector : 32;
  static constexpr int elems = head_dim / lanes;
  static constexpr int groups = attention_threads / lanes;
  static_assert(head_dim % vector == 0 && (lanes & (lanes - 1)) == 0, "head_dim layout");
};

// Threads per value row in phase 3: each thread owns two consecutive dims.
template <int head_dim>
struct value_layout {
  static constexpr int dim_threads = head_dim / 2;
  static constexpr int lanes = attention_threads / dim_threads;
  static_assert(attention_threads % dim_threads == 0, "head_dim layout");
};

template <int head_dim>
int shared_floats(int group) {
  return group * head_dim + group * chunk_keys + value_layout<head_dim>::lanes * group * head_dim +
         3 * group;
}

// The sequence owning `row`: the largest s with query_start[s] <= row (skips empty ones).
__device__ int sequence_of(const std::int32_t* query_start, int num_seqs, int row) {
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

template <class T, int head_dim>
__device__ void score_keys(const attention_args<T>& a, const std::int32_t* table, int kv_head,
                           int key_begin, int key_end, int group, const float* q_sh, float* p_sh) {
  using layout = key_layout<T, head_dim>;
  const int key_group = static_cast<int>(threadIdx.x) / layout::lanes;
  const int lane = static_cast<int>(threadIdx.x) % layout::lanes;
  // The loop bound is uniform across the block, so whole warps reach the shuffles. Each lane
  // group loads `unroll_keys` keys before using any, to keep several loads in flight.
  for (int base = key_begin; base < key_end; base += layout::groups * unroll_keys) {
    float k[unroll_keys][layout::elems] = {};
#pragma unroll
    for (int u = 0; u < unroll_keys; ++u) {
      const int key = base + u * layout::groups + key_group;
      if (key < key_end) {
        load_vector<layout::elems>(
            a.key_cache + a.cache_offset(table, key, kv_head, head_dim) + lane * layout::elems,
            k[u]);
      }
    }
#pragma unroll
    for (int u = 0; u < unroll_keys; ++u) {
      const int key = base + u * layout::groups + key_group;
      for (int g = 0; g < group; ++g) {
        const float* q = q_sh + g * head_dim + lane * layout::elems;
        float dot = 0.0F;
#pragma unroll
        for (int e = 0; e < layout::elems; ++e) dot += q[e] * k[u][e];
        dot = warp_reduce<layout::lanes>(dot, sum_op{});
        if (key < key_end && lane == 0) p_sh[g * chunk_keys + (key - key_begin)] = dot * a.scale;
      }
    }
  }
}

// One warp per query head, for one chunk of `num_keys` scores: the running max m and sum l
// move on, p = exp(s - m') in place, and factor = e^(m - m') rescales what came before.
// stats = [m x group, l x group, factor x group].
__device__ void softmax_chunk(int num_keys, int group, float* p_sh, float* stats) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  for (int g = static_cast<int>(threadIdx.x / 32); g < group; g += attention_threads / 32) {
    float* p = p_sh + g * chunk_keys;
    float m = -INFINITY;
    for (int j = lane; j < num_keys; j += 32) m = fmaxf(m, p[j]);
    m = fmaxf(warp_reduce(m, max_op{}), stats[g]);
    float l = 0.0F;
    for (int j = lane; j < num_keys; j += 32) {
      const float e = expf(p[j] - m);
      p[j] = e;
      l += e;
    }
    l = warp_reduce(l, sum_op{});
    // Every lane has read stats[g] (inside the reductions' shuffles) before lane 0 writes.
    if (lane == 0) {
      const float factor = expf(stats[g] - m);  // 0 for the first chunk (m was -inf)
      stats[g] = m;
      stats[group + g] = stats[group + g] * factor + l;
      stats[2 * group + g] = factor;
    }
  }
}

// Each thread sums two dims over a strided subset of one chunk's keys into acc, after
// rescaling what acc held by the chunk's factor (stats[2 * group + g]).
template <class T, int head_dim>
__device__ void accumulate_values(const attention_args<T>& a, const std::int32_t* table,
                                  int kv_head, int key_begin, int key_end, int group,
                                  const float* p_sh, const float* stats,
                                  float (&acc)[max_group][2]) {
  using layout = value_layout<head_dim>;
  const int d = 2 * (static_cast<int>(threadIdx.x) % layout::dim_threads);
  const int value_lane = static_cast<int>(threadIdx.x) / layout::dim_threads;
#pragma unroll
  for (int g = 0; g < max_group; ++g) {
    if (g < group) {
      acc[g][0] *= stats[2 * group + g];
      acc[g][1] *= stats[2 * group + g];
    }
  }
  // Loads of `unroll_keys` value rows are issued before any is used (several in flight).
  for (int base = key_begin + value_lane; base < key_end; base += layout::lanes * unroll_keys) {
    float2 v[unroll_keys];
#pragma unroll
    for (int u = 0; u < unroll_keys; ++u) {
      const int key = base + u * layout::lanes;
      v[u] = key < key_end
                 ? load_pair(a.value_cache + a.cache_offset(table, key, kv_head, head_dim) + d)
                 : make_float2(0.0F, 0.0F);
    }
#pragma unroll
    for (int u = 0; u < unroll_keys; ++u) {
      const int key = base + u * layout::lanes;
      if (key >= key_end) break;
      const float* p = p_sh + (key - key_begin);
#pragma unroll
      for (int g = 0; g < max_group; ++g) {
        if (g < group) {
          const float w = p[g * chunk_keys];
          acc[g][0] += w * v[u].x;
          acc[g][1] += w * v[u].y;
        }
      }
    }
  }
}

// red_sh[lane][g][d] = this thread's acc, for the sum over value lanes.
template <int head_dim>
__device__ void store_partial_sums(int group, const float (&acc)[max_group][2], float* red_sh) {
  using layout = value_layout<head_dim>;
  const int d = 2 * (static_cast<int>(threadIdx.x) % layout::dim_threads);
  const int value_lane = static_cast<int>(threadIdx.x) / layout::dim_threads;
#pragma unroll
  for (int g = 0; g < max_group; ++g) {
    if (g < group) {
      float* r = red_sh + (value_lane * group + g) * head_dim + d;
      r[0] = acc[g][0];
      r[1] = acc[g][1];
    }
  }
}

template <class T, int head_dim>
__global__ void __launch_bounds__(attention_threads)
    paged_attention_kernel(const attention_args<T> a) {
  const int row = static_cast<int>(blockIdx.x);
  const int kv_head = static_cast<int>(blockIdx.y);
  const int split = static_cast<int>(blockIdx.z);
  const int group = a.num_heads / a.num_kv_heads;
  const int seq = sequence_of(a.query_start, a.num_seqs, row);
  const int num_new = a.query_start[seq + 1] - a.query_start[seq];
  if (a.skip_prefill_rows && num_new > 1) return;
  const int num_keys = a.context_lens[seq] - num_new + (row - a.query_start[seq]) + 1;
  DEVICE_CHECK("paged_attention", num_keys >= 1 && num_keys <= a.num_splits * a.keys_per_split);
  DEVICE_CHECK("paged_attention", num_keys <= a.max_blocks_per_seq * a.block_size);
  const int key_begin = split * a.keys_per_split;
  const int key_end = min(num_keys, key_begin + a.keys_per_split);
  const std::int64_t head0 = static_cast<std::int64_t>(row) * a.num_heads + kv_head * group;

  if (key_begin >= num_keys) {  // an empty split of a short row: contributes nothing
    for (int i = static_cast<int>(threadIdx.x); i < group * head_dim; i += attention_threads) {
      const std::int64_t part = (head0 + i / head_dim) * a.num_splits + split;
      a.part_acc[part * head_dim + i % head_dim] = 0.0F;
      if (i % head_dim == 0) {
        a.part_max[part] = -INFINITY;
        a.part_sum[part] = 0.0F;
      }
    }
    return;
  }

  DYNAMIC_SHARED(float, shared);
  float* q_sh = shared;                                                      // [group][D]
  float* p_sh = q_sh + group * head_dim;                                     // [group][keys]
  float* red_sh = p_sh + group * chunk_keys;                                 // [lanes][group][D]
  float* stats = red_sh + value_layout<head_dim>::lanes * group * head_dim;  // [3][group]
  for (int i = static_cast<int>(threadIdx.x); i < group * head_dim; i += attention_threads) {
    q_sh[i] = to_float(a.query[head0 * head_dim + i]);
  }
  if (static_cast<int>(threadIdx.x) < group) {
    stats[threadIdx.x] = -INFINITY;
    stats[group + threadIdx.x] = 0.0F;
  }
  __syncthreads();

  const std::int32_t* table = a.table(seq);
  float acc[max_group][2] = {};
  for (int chunk = key_begin; chunk < key_end; chunk += chunk_keys) {
    const int chunk_end = min(key_end, chunk + chunk_keys);
    score_keys<T, head_dim>(a, table, kv_head, chunk, chunk_end, group, q_sh, p_sh);
    __syncthreads();
    softmax_chunk(chunk_end - chunk, group, p_sh, stats);
    __syncthreads();
    accumulate_values<T, head_dim>(a, table, kv_head, chunk, chunk_end, group, p_sh, stats, acc);
    __syncthreads();  // p_sh and the factors are rewritten by the next chunk
  }
  store_partial_sums<head_dim>(group, acc, red_sh);
  __syncthreads();

  for (int i = static_cast<int>(threadIdx.x); i < group * head_dim; i += attention_threads) {
    float total = 0.0F;
    for (int lane = 0; lane < value_layout<head_dim>::lanes; ++lane) {
      total += red_sh[lane * group * head_dim + i];
    }
    const int g = i / head_dim;
    if (a.num_splits == 1) {
      a.out[head0 * head_dim + i] = from_float<T>(total / stats[group + g]);
    } else {
      const std::int64_t part = (head0 + g) * a.num_splits + split;
      a.part_acc[part * head_dim + i % head_dim] = total;
      if (i % head_dim == 0) {
        a.part_max[part] = stats[g];
        a.part_sum[part] = stats[group + g];
      }
    }
  }
}

// One block of head_dim threads per (row, head): merges the splits' partial softmaxes.
template <class T, int head_dim>
__global__ void combine_splits_kernel(const attention_args<T> a) {
  if (a.skip_prefill_rows) {
    const int seq = sequence_of(a.query_start, a.num_seqs, static_cast<int>(blockIdx.x));
    if (a.query_start[seq + 1] - a.query_start[seq] > 1) return;
  }
  const std::int64_t head = static_cast<std::int64_t>(blockIdx.x) * a.num_heads + blockIdx.y;
  const std::int64_t first = head * a.num_splits;
  const int d = static_cast<int>(threadIdx.x);
  float global_max = -INFINITY;
  for (int s = 0; s < a.num_splits; ++s) global_max = fmaxf(global_max, a.part_max[first + s]);
  float numerator = 0.0F;
  float denominator = 0.0F;
  for (int s = 0; s < a.num_splits; ++s) {
    const float sum = a.part_sum[first + s];
    if (sum == 0.0F) continue;  // an empty split
    const float w = expf(a.part_max[first + s] - global_max);
    denominator += w * sum;
    numerator += w * a.part_acc[(first + s) * head_dim + d];
  }
  a.out[head * head_dim + d] = from_float<T>(numerator / denominator);
}

struct split_plan {
  int num_splits = 1;
  int keys_per_split = chunk_keys;
};

// As many splits as bring the grid to about target_ctas CTAs, at most one per chunk of the
// longest context; each split a whole number of chunks.
split_plan plan_splits(const paged_attention_params& p) {
  const std::int64_t max_context = std::max<std::int64_t>(p.max_context_len, 1);
  const std::int64_t max_splits = (max_context + chunk_keys - 1) / chunk_keys;
  const std::int64_t ctas_per_split =
      std::max<std::int64_t>(p.query.dim(0) * p.key_cache.dim(2), 1);
  const std::int64_t wanted = (target_ctas + ctas_per_split - 1) / ctas_per_split;
  const std::int64_t splits = std::clamp<std::int64_t>(wanted, 1, max_splits);
  const std::int64_t chunks_per_split = (max_splits + splits - 1) / splits;
  split_plan plan;
  plan.keys_per_split = static_cast<int>(chunks_per_split * chunk_keys);
  plan.num_splits = static_cast<int>((max_context + plan.keys_per_split - 1) / plan.keys_per_split);
  return plan;
}

template <class T, int head_dim>
void launch(const paged_attention_params& p, float* workspace, bool skip_prefill_rows,
            cudaStream_t stream) {
  const int num_rows = static_cast<int>(p.query.dim(0));
  const int num_kv_heads = static_cast<int>(p.key_cache.dim(2));
  attention_args<T> a{};
  static_cast<paged_batch<T>&>(a) = paged_batch<T>::from(p);
  const split_plan plan = plan_splits(p);
  a.num_splits = plan.num_splits;
  a.keys_per_split = plan.keys_per_split;
  a.scale = p.scale;
  a.skip_prefill_rows = skip_prefill_rows;
  if (a.num_splits > 1) {
    const std::int64_t num_parts = std::int64_t{num_rows} * a.num_heads * a.num_splits;
    a.part_max = workspace;
    a.part_sum = workspace + num_parts;
    a.part_acc = workspace + 2 * num_parts;
  }
  const int group = a.num_heads / num_kv_heads;
  const auto shared_bytes = static_cast<int>(sizeof(float)) * shared_floats<head_dim>(group);
  // Once per kernel, for the largest group: never a runtime call inside a graph capture.
  static const bool opted_in = [] {
    const auto most = static_cast<int>(sizeof(float)) * shared_floats<head_dim>(max_group);
    if (most > default_shared_bytes) {
      allow_dynamic_shared(paged_attention_kernel<T, head_dim>, static_cast<std::size_t>(most));
    }
    return true;
  }();
  (void)opted_in;
  const dim3 grid(static_cast<unsigned int>(num_rows), static_cast<unsigned int>(num_kv_heads),
                  static_cast<unsigned int>(a.num_splits));
  launch_kernel(paged_attention_kernel<T, head_dim>, grid, dim3(attention_threads),
                static_cast<std::size_t>(shared_bytes), stream, a);
  if (a.num_splits > 1) {
    const dim3 combine_grid(static_cast<unsigned int>(num_rows),
                            static_cast<unsigned int>(a.num_heads));
    launch_kernel(combine_splits_kernel<T, head_dim>, combine_grid, dim3(head_dim), 0, stream, a);
  }
}

bool head_dim_supported(std::int64_t head_dim) {
  return head_dim == 16 || head_dim == 32 || head_dim == 64 || head_dim == 128 || head_dim == 256;
}

template <class T>
void launch_for_head_dim(const paged_attention_params& p, float* workspace, bool skip_prefill_rows,
                         cudaStream_t stream) {
  switch (p.query.dim(2)) {
    case 16:
      launch<T, 16>(p, workspace, skip_prefill_rows, stream);
      break;
    case 32:
      launch<T, 32>(p, workspace, skip_prefill_rows, stream);
      break;
    case 64:
      launch<T, 64>(p, workspace, skip_prefill_rows, stream);
      break;
    case 128:
      launch<T, 128>(p, workspace, skip_prefill_rows, stream);
      break;
    default:
      launch<T, 256>(p, workspace, skip_prefill_rows, stream);
      break;
  }
}

void check_params(const paged_attention_params& p) {
  const dtype type = p.query.type;
  KERNEL_CHECK("paged_attention", p.query.rank == 3 && p.out.type == type);
  KERNEL_CHECK("paged_attention", p.out.shape == p.query.shape);
  KERNEL_CHECK("paged_attention", p.key_cache.rank == 4 && p.key_cache.type == type);
  KERNEL_CHECK("paged_attention",
               p.value_cache.type == type && p.value_cache.shape == p.key_cache.shape);
  KERNEL_CHECK("paged_attention", p.query.dim(2) == p.key_cache.dim(3));
  KERNEL_CHECK("paged_attention", head_dim_supported(p.query.dim(2)));
  KERNEL_CHECK("paged_attention", p.query.dim(1) % p.key_cache.dim(2) == 0);
  KERNEL_CHECK("paged_attention", p.query.dim(1) / p.key_cache.dim(2) <= max_group);
  KERNEL_CHECK("paged_attention", p.block_tables.type == dtype::i32 && p.block_tables.rank == 2);
  KERNEL_CHECK("paged_attention", p.query_start.type == dtype::i32);
  KERNEL_CHECK("paged_attention", p.max_query_len >= 0 && p.max_query_len <= p.query.dim(0));
  KERNEL_CHECK("paged_attention", p.context_lens.type == dtype::i32);
  const std::int64_t num_seqs = p.context_lens.numel();
  KERNEL_CHECK("paged_attention", num_seqs >= 1 && p.query_start.numel() == num_seqs + 1);
  KERNEL_CHECK("paged_attention", p.block_tables.dim(0) == num_seqs);
  KERNEL_CHECK("paged_attention", p.query.dim(0) < (std::int64_t{1} << 31));
  KERNEL_CHECK("paged_attention",
               p.key_cache.dim(0) * p.key_cache.dim(1) < (std::int64_t{1} << 31));
  // 16-byte vector loads of key rows.
  KERNEL_CHECK("paged_attention", reinterpret_cast<std::uintptr_t>(p.key_cache.data) % 16 == 0);
  KERNEL_CHECK("paged_attention", reinterpret_cast<std::uintptr_t>(p.value_cache.data) % 16 == 0);
}

}  // namespace

std::size_t paged_attention_workspace_floats(const paged_attention_params& p) {
  const int num_splits = plan_splits(p).num_splits;
  if (num_splits == 1) return 0;
  const std::int64_t num_parts = p.query.dim(0) * p.query.dim(1) * num_splits;
  return static_cast<std::size_t>(num_parts * (2 + p.query.dim(2)));
}

std::size_t paged_attention_workspace_bound(const paged_attention_params& p) {
  // A launch splits only while rows x kv_heads < target_ctas, into at most
  // ceil(target_ctas / (rows x kv_heads)) splits: rows x kv_heads x splits < 2 target_ctas.
  const std::int64_t group = p.query.dim(1) / p.key_cache.dim(2);
  return static_cast<std::size_t>(2 * target_ctas * group * (2 + p.query.dim(2)));
}

void paged_attention(const paged_attention_params& p, float* workspace, cudaStream_t stream) {
  check_params(p);
  if (p.query.dim(0) == 0) return;
  KERNEL_CHECK("paged_attention", paged_attention_workspace_floats(p) == 0 || workspace != nullptr);
  const bool tensor_core_prefill = prefill_attention_supported(p);
  dispatch_float_type("paged_attention", p.query.type, [&](auto tag) {
    launch_for_head_dim<typename decltype(tag)::type>(p, workspace, tensor_core_prefill, stream);
  });
  if (tensor_core_prefill) prefill_attention(p, stream);
}

}  // namespace pagedserve::kernels::cuda
