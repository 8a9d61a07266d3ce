// process_logits, count_tokens, count_sampled: the host's logits processing
// (runtime/sampling/logits_processing.h) before sample_op.cu's pipeline, and the packed token
// counts (runtime/sampling/token_counts.h) its penalties read, kept on the device: built
// when a sequence is (re)loaded, then counted by each step that samples it, so a step in
// flight never waits for the host to learn the previous step's token.
//
// Every operation is one fp32 operation rounded to nearest (__fadd_rn and friends: nvcc
// would otherwise fuse the multiply and the subtraction), in the host's order, so the
// results are the host's to the bit.

#include <climits>
#include <cstdint>

#include "kernels/check.h"
#include "kernels/cuda/cuda_ops.cuh"
#include "kernels/cuda/device_check.cuh"
#include "kernels/cuda/launch.cuh"

namespace pagedserve::kernels::cuda {
namespace {

constexpr int process_threads = 256;
constexpr int count_threads = 256;

// runtime/sampling/logits_processing.h penalized_logit, operation for operation.
__device__ __forceinline__ float penalized_logit(float logit, unsigned int packed,
                                                 const sampling_row& row) {
  if (row.repetition_penalty != 1.0F) {
    logit = logit > 0.0F ? __fdiv_rn(logit, row.repetition_penalty)
                         : __fmul_rn(logit, row.repetition_penalty);
  }
  const unsigned int count = packed >> 1;
  if (count == 0U) return logit;
  const float by_frequency = __fmul_rn(row.frequency_penalty, static_cast<float>(count));
  logit = __fsub_rn(logit, by_frequency);
  return __fsub_rn(logit, row.presence_penalty);
}

// Whether `token` is among the row's allowed ids: `allowed` is `count` (token, unused)
// pairs, ascending.
__device__ __forceinline__ bool is_allowed(const std::int32_t* allowed, std::int32_t count,
                                           std::int64_t token) {
  std::int32_t lo = 0;
  std::int32_t hi = count;
  while (lo < hi) {
    const std::int32_t mid = lo + (hi - lo) / 2;
    if (allowed[2 * std::int64_t{mid}] < token) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo < count && allowed[2 * std::int64_t{lo}] == token;
}

// One block per row: its grammar bitmask, its allowed-token mask, its edits (each token once, so no
// two threads write one logit), then its penalties over the vocabulary.
__global__ void __launch_bounds__(process_threads)
    process_logits_kernel(float* logits, const sampling_row* rows, const std::int32_t* edits,
                          std::int64_t num_edits, const std::int32_t* counts,
                          std::int64_t num_slots, std::int64_t vocab) {
  const sampling_row row = rows[blockIdx.x];
  float* l = logits + static_cast<std::int64_t>(blockIdx.x) * vocab;
  DEVICE_CHECK("process_logits", row.edit_begin >= 0 && row.edit_count >= 0 &&
                                     row.edit_begin + std::int64_t{row.edit_count} <= num_edits);
  if (row.mask_words > 0) {  // uniform over the block: every thread reaches the barrier
    DEVICE_CHECK("process_logits",
                 row.mask_begin >= 0 && row.mask_words >= (vocab + 31) / 32 &&
                     2 * std::int64_t{row.mask_begin} + row.mask_words <= 2 * num_edits);
    const auto* mask =
        reinterpret_cast<const std::uint32_t*>(edits + 2 * std::int64_t{row.mask_begin});
    for (std::int64_t i = threadIdx.x; i < vocab; i += process_threads) {
      if (((mask[i >> 5] >> (i & 31)) & 1U) == 0U) l[i] = -INFINITY;
    }
    __syncthreads();  // the grammar's mask comes first
  }
  if (row.allow_count > 0) {  // uniform over the block: every thread reaches the barrier
    DEVICE_CHECK(
        "process_logits",
        row.allow_begin >= 0 && row.allow_begin + std::int64_t{row.allow_count} <= num_edits);
    const std::int32_t* allowed = edits + 2 * std::int64_t{row.allow_begin};
    for (std::int64_t i = threadIdx.x; i < vocab; i += process_threads) {
      if (!is_allowed(allowed, row.allow_count, i)) l[i] = -INFINITY;
    }
    __syncthreads();  // the mask comes first
  }
  for (int e = row.edit_begin + static_cast<int>(threadIdx.x); e < row.edit_begin + row.edit_count;
       e += process_threads) {
    const std::int32_t token = edits[2 * std::int64_t{e}];
    const float bias = __int_as_float(edits[2 * std::int64_t{e} + 1]);
    DEVICE_CHECK("process_logits", token >= 0 && token < vocab);
    l[token] = bias == -INFINITY ? -INFINITY : __fadd_rn(l[token], bias);
  }
  if (row.penalty_slot < 0) return;  // the whole block returns: no barrier is left waiting
  DEVICE_CHECK("process_logits", row.penalty_slot < num_slots);
  __syncthreads();  // the edits come first
  const std::int32_t* c = counts + static_cast<std::int64_t>(row.penalty_slot) * vocab;
  for (std::int64_t i = threadIdx.x; i < vocab; i += process_threads) {
    const auto packed = static_cast<unsigned int>(c[i]);
    if (packed != 0U) l[i] = penalized_logit(l[i], packed, row);
  }
}

__global__ void count_tokens_kernel(std::int32_t* counts, const std::int32_t* entries,
                                    std::int64_t num_entries, std::int64_t num_slots,
                                    std::int64_t vocab) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= num_entries) return;
  const std::int32_t slot = entries[3 * i];
  const std::int32_t token = entries[3 * i + 1];
  DEVICE_CHECK("count_tokens", slot >= 0 && slot < num_slots && token >= 0 && token < vocab);
  std::int32_t* c = counts + static_cast<std::int64_t>(slot) * vocab + token;
  if (entries[3 * i + 2] == 0) {
    atomicOr(c, 1);
  } else {
    atomicAdd(c, 2);
  }
}

__global__ void count_sampled_kernel(std::int32_t* counts, const std::int32_t* token_ids,
                                     const sampling_row* rows, std::int64_t num_rows,
                                     std::int64_t num_slots, std::int64_t vocab) {
  const std::int64_t r = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= num_rows) return;
  const std::int32_t slot = rows[r].penalty_slot;
  if (slot < 0) return;
  const std::int32_t token = token_ids[r];
  DEVICE_CHECK("count_sampled", slot < num_slots && token >= 0 && token < vocab);
  atomicAdd(counts + static_cast<std::int64_t>(slot) * vocab + token, 2);
}

unsigned int blocks_for(std::int64_t n, int threads) {
  return static_cast<unsigned int>((n + threads - 1) / threads);
}

}  // namespace

void process_logits(const process_logits_params& p, cudaStream_t stream) {
  KERNEL_CHECK("process_logits", p.logits.type == dtype::f32 && p.logits.rank == 2);
  KERNEL_CHECK("process_logits", p.rows.type == dtype::i32 && p.rows.rank == 2);
  KERNEL_CHECK("process_logits", p.rows.dim(1) == sampling_row_words);
  const std::int64_t num_rows = p.logits.dim(0);
  const std::int64_t vocab = p.logits.dim(1);
  KERNEL_CHECK("process_logits", p.rows.dim(0) == num_rows && vocab > 0 && vocab < INT_MAX);
  KERNEL_CHECK("process_logits", reinterpret_cast<std::uintptr_t>(p.rows.data) % 8 == 0);
  const std::int64_t num_edits = p.edits.data == nullptr ? 0 : p.edits.dim(0);
  KERNEL_CHECK("process_logits",
               num_edits == 0 || (p.edits.type == dtype::i32 && p.edits.dim(1) == 2));
  const std::int64_t num_slots = p.counts.data == nullptr ? 0 : p.counts.dim(0);
  KERNEL_CHECK("process_logits",
               num_slots == 0 ||
                   (p.counts.type == dtype::i32 && p.counts.rank == 2 && p.counts.dim(1) == vocab));
  if (num_rows == 0) return;
  launch_kernel(process_logits_kernel, dim3(static_cast<unsigned int>(num_rows)),
                dim3(process_threads), 0, stream, p.logits.as<float>(),
                static_cast<const sampling_row*>(p.rows.data),
                num_edits == 0 ? nullptr : p.edits.as<const std::int32_t>(), num_edits,
                num_slots == 0 ? nullptr : p.counts.as<const std::int32_t>(), num_slots, vocab);
}

void count_tokens(const count_tokens_params& p, cudaStream_t stream) {
  KERNEL_CHECK("count_tokens", p.counts.type == dtype::i32 && p.counts.rank == 2);
  const std::int64_t num_entries = p.entries.data == nullptr ? 0 : p.entries.dim(0);
  if (num_entries == 0) return;
  KERNEL_CHECK("count_tokens", p.entries.type == dtype::i32 && p.entries.dim(1) == 3);
  launch_kernel(count_tokens_kernel, dim3(blocks_for(num_entries, count_threads)),
                dim3(count_threads), 0, stream, p.counts.as<std::int32_t>(),
                p.entries.as<const std::int32_t>(), num_entries, p.counts.dim(0), p.counts.dim(1));
}

void count_sampled(const count_sampled_params& p, cudaStream_t stream) {
  KERNEL_CHECK("count_sampled", p.counts.type == dtype::i32 && p.counts.rank == 2);
  KERNEL_CHECK("count_sampled", p.token_ids.type == dtype::i32);
  KERNEL_CHECK("count_sampled", p.rows.type == dtype::i32 && p.rows.rank == 2);
  const std::int64_t num_rows = p.token_ids.numel();
  KERNEL_CHECK("count_sampled", p.rows.dim(0) == num_rows && p.rows.dim(1) == sampling_row_words);
  if (num_rows == 0) return;
  launch_kernel(count_sampled_kernel, dim3(blocks_for(num_rows, count_threads)),
                dim3(count_threads), 0, stream, p.counts.as<std::int32_t>(),
                p.token_ids.as<const std::int32_t>(), static_cast<const sampling_row*>(p.rows.data),
                num_rows, p.counts.dim(0), p.counts.dim(1));
}

}  // namespace pagedserve::kernels::cuda
