// paged_attention: causal attention of every query row over the paged KV cache, decode and
// prefill rows alike, with flash-decoding split-K. The kernel is paged_attention_kernel.cuh;
// this file plans the splits, merges them and launches.
//
// The split count is chosen for parallelism (about target_ctas CTAs in the grid; never more
// splits than `split_keys` runs of the longest context), so long contexts over few rows split
// and big batches do not; the scratch for partials is then bounded for a model
// (paged_attention_workspace_bound) and never grows under a captured graph. One split: the
// kernel writes out directly. Several: each CTA writes (m, l, acc) of its split and
// combine_splits_kernel merges them: out = sum_s e^(m_s - M) acc_s / sum_s e^(m_s - M) l_s
// with M = max_s m_s. Split 0 always holds key 0, so M is finite and the sum positive.
//
// Prefill rows can use the same kernel (a row's keys end at its own position, which is the
// causal mask): f32 does, to match the fp32 reference. In 16-bit types the rows of sequences
// with several new tokens go to prefill_attention_op.cu's tensor-core kernel instead, which
// reuses each K/V tile across 64 rows; this kernel then skips them.

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "kernels/check.h"
#include "kernels/cuda/cuda_ops.cuh"
#include "kernels/cuda/device_check.cuh"
#include "kernels/cuda/element.cuh"
#include "kernels/cuda/launch.cuh"
#include "kernels/cuda/paged_attention_kernel.cuh"
#include "kernels/cuda/paged_batch.cuh"

namespace pagedserve::kernels::cuda {
namespace {

using paged_attention_detail::attention_args;
using paged_attention_detail::attention_threads;
using paged_attention_detail::merge_floats;
using paged_attention_detail::paged_attention_kernel;
using paged_attention_detail::sequence_of;

// About 8 resident CTAs on each of an H200's 132 SMs: splits beyond that add partials
// without adding parallelism.
constexpr int target_ctas = 1024;
constexpr int max_group = 16;
// A split is a whole number of runs of this many keys (a CTA's step is at most 256 keys).
constexpr int split_keys = 64;

// One block of head_dim threads per (row, head): merges the splits' partial softmaxes.
template <class T, class C, int head_dim>
__global__ void combine_splits_kernel(const attention_args<T, C> a) {
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
  int keys_per_split = split_keys;
};

// Query heads a CTA serves (its template G): the group's size rounded up to a power of two,
// at most 8 (larger groups take several CTAs, each reading the keys and values again).
int head_tile(std::int64_t group) {
  if (group <= 1) return 1;
  if (group <= 2) return 2;
  if (group <= 4) return 4;
  return 8;
}

// CTAs of one split: rows x KV heads x head tiles.
std::int64_t ctas_per_split(const paged_attention_params& p) {
  const std::int64_t group = p.query.dim(1) / p.key_cache.dim(2);
  const std::int64_t tiles = (group + head_tile(group) - 1) / head_tile(group);
  return std::max<std::int64_t>(p.query.dim(0) * p.key_cache.dim(2) * tiles, 1);
}

// As many splits as bring the grid to about target_ctas CTAs, at most one per split_keys
// keys of the longest context; each split a whole number of split_keys runs.
split_plan plan_splits(const paged_attention_params& p) {
  const std::int64_t max_context = std::max<std::int64_t>(p.max_context_len, 1);
  const std::int64_t max_splits = (max_context + split_keys - 1) / split_keys;
  const std::int64_t wanted = (target_ctas + ctas_per_split(p) - 1) / ctas_per_split(p);
  const std::int64_t splits = std::clamp<std::int64_t>(wanted, 1, max_splits);
  const std::int64_t runs_per_split = (max_splits + splits - 1) / splits;
  split_plan plan;
  plan.keys_per_split = static_cast<int>(runs_per_split * split_keys);
  plan.num_splits = static_cast<int>((max_context + plan.keys_per_split - 1) / plan.keys_per_split);
  return plan;
}

template <class T, class C, int head_dim, int G>
void launch_tiled(const attention_args<T, C>& a, int num_rows, int num_kv_heads,
                  cudaStream_t stream) {
  const int group = a.num_heads / num_kv_heads;
  const int tiles = (group + G - 1) / G;
  const dim3 grid(static_cast<unsigned int>(num_rows),
                  static_cast<unsigned int>(num_kv_heads * tiles),
                  static_cast<unsigned int>(a.num_splits));
  constexpr auto shared_bytes = sizeof(float) * merge_floats<G, head_dim>();
  static_assert(shared_bytes <= 48 * 1024, "the warps' merge fits the default shared memory");
  launch_kernel(paged_attention_kernel<T, C, head_dim, G>, grid, dim3(attention_threads),
                shared_bytes, stream, a);
}

template <class T, class C, int head_dim>
void launch(const paged_attention_params& p, float* workspace, bool skip_prefill_rows,
            cudaStream_t stream) {
  const int num_rows = static_cast<int>(p.query.dim(0));
  const int num_kv_heads = static_cast<int>(p.key_cache.dim(2));
  attention_args<T, C> a{};
  static_cast<paged_batch<T, C>&>(a) = paged_batch<T, C>::from(p);
  const split_plan plan = plan_splits(p);
  a.num_splits = plan.num_splits;
  a.keys_per_split = plan.keys_per_split;
  a.scale = p.scale * a.key_scale;
  a.skip_prefill_rows = skip_prefill_rows;
  if (a.num_splits > 1) {
    const std::int64_t num_parts = std::int64_t{num_rows} * a.num_heads * a.num_splits;
    a.part_max = workspace;
    a.part_sum = workspace + num_parts;
    a.part_acc = workspace + 2 * num_parts;
  }
  switch (head_tile(a.num_heads / num_kv_heads)) {
    case 1:
      launch_tiled<T, C, head_dim, 1>(a, num_rows, num_kv_heads, stream);
      break;
    case 2:
      launch_tiled<T, C, head_dim, 2>(a, num_rows, num_kv_heads, stream);
      break;
    case 4:
      launch_tiled<T, C, head_dim, 4>(a, num_rows, num_kv_heads, stream);
      break;
    default:
      launch_tiled<T, C, head_dim, 8>(a, num_rows, num_kv_heads, stream);
      break;
  }
  if (a.num_splits > 1) {
    const dim3 combine_grid(static_cast<unsigned int>(num_rows),
                            static_cast<unsigned int>(a.num_heads));
    launch_kernel(combine_splits_kernel<T, C, head_dim>, combine_grid, dim3(head_dim), 0, stream,
                  a);
  }
}

bool head_dim_supported(std::int64_t head_dim) {
  return head_dim == 16 || head_dim == 32 || head_dim == 64 || head_dim == 128 || head_dim == 256;
}

template <class T, class C>
void launch_for_head_dim(const paged_attention_params& p, float* workspace, bool skip_prefill_rows,
                         cudaStream_t stream) {
  switch (p.query.dim(2)) {
    case 16:
      launch<T, C, 16>(p, workspace, skip_prefill_rows, stream);
      break;
    case 32:
      launch<T, C, 32>(p, workspace, skip_prefill_rows, stream);
      break;
    case 64:
      launch<T, C, 64>(p, workspace, skip_prefill_rows, stream);
      break;
    case 128:
      launch<T, C, 128>(p, workspace, skip_prefill_rows, stream);
      break;
    default:
      launch<T, C, 256>(p, workspace, skip_prefill_rows, stream);
      break;
  }
}

void check_params(const paged_attention_params& p) {
  const dtype type = p.query.type;
  KERNEL_CHECK("paged_attention", p.query.rank == 3 && p.out.type == type);
  KERNEL_CHECK("paged_attention", p.out.shape == p.query.shape);
  // The cache holds the compute type, or fp8 e4m3 codes (u8) with a positive scale each.
  const dtype cache = p.key_cache.type;
  KERNEL_CHECK("paged_attention", p.key_cache.rank == 4 && (cache == type || cache == dtype::u8));
  KERNEL_CHECK("paged_attention",
               p.value_cache.type == cache && p.value_cache.shape == p.key_cache.shape);
  KERNEL_CHECK("paged_attention",
               cache != dtype::u8 || (p.key_scale > 0.0F && p.value_scale > 0.0F));
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
  // 16-byte vector loads of key rows, and of query rows in the tensor-core prefill.
  KERNEL_CHECK("paged_attention", reinterpret_cast<std::uintptr_t>(p.query.data) % 16 == 0);
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
  const bool codes = p.key_cache.type == dtype::u8;
  dispatch_float_type("paged_attention", p.query.type, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (codes) {
      launch_for_head_dim<T, std::uint8_t>(p, workspace, tensor_core_prefill, stream);
    } else {
      launch_for_head_dim<T, T>(p, workspace, tensor_core_prefill, stream);
    }
  });
  if (tensor_core_prefill) prefill_attention(p, stream);
}

}  // namespace pagedserve::kernels::cuda
