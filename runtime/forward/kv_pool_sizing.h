#pragma once
// kv_pool_sizing: how many KV blocks fit on a device, the way vLLM sizes its cache. Reserve
// the forward's workspace for the largest step, run one such step (a profiling forward) on
// a throwaway cache so every scratch buffer reaches its peak, then give the KV cache what is
// left of gpu_memory_utilization x total once that throwaway cache is gone:
//
//   num_blocks = floor((total x utilization - in use after profiling - rounding)
//                      / bytes per block) - 1
//
// (the one is the cache's padding block; the rounding is a 2 MiB driver page for each of
// the cache's allocations). Weights, workspace, scratch and whatever else
// the process already holds on the device are "in use". Graph capture afterwards takes a
// little more (recorded launches), which the remaining (1 - utilization) share absorbs.

#include <cstdint>

#include "common/result.h"
#include "runtime/forward/model_forward.h"

namespace pagedserve::forward {

struct kv_pool_request {
  double gpu_memory_utilization = 0.9;
  std::int64_t block_size = 16;
  std::int64_t max_num_batched_tokens = 2048;  // the profiling step's tokens
  std::int64_t max_num_seqs = 256;             // ... spread over this many sequences
  std::int64_t max_model_len = 4096;           // at least one sequence this long must fit
  kv_cache_dtype cache_dtype = kv_cache_dtype::auto_;
};

struct kv_pool_plan {
  std::int64_t num_blocks = 0;
  std::int64_t bytes_per_block = 0;
  std::int64_t total_bytes = 0;   // device memory
  std::int64_t budget_bytes = 0;  // total x utilization
  std::int64_t in_use_bytes = 0;  // after profiling, before the KV cache
  std::int64_t kv_bytes = 0;      // the cache the plan gives, padding block included
  // Sequences of max_model_len the pool holds at once.
  [[nodiscard]] double max_concurrency(std::int64_t block_size, std::int64_t max_model_len) const {
    return static_cast<double>(num_blocks * block_size) / static_cast<double>(max_model_len);
  }
};

// Errors: invalid_argument (utilization outside (0, 1], sizes below 1), unsupported (the
// backend has no device memory figures: size the pool from the configuration instead),
// capacity_exceeded (not one sequence of max_model_len fits; the message has the figures).
[[nodiscard]] result<kv_pool_plan> plan_kv_pool(model_forward& forward,
                                                const kv_pool_request& request);

// The profiling step: max_num_batched_tokens new tokens over min(max_num_seqs, tokens)
// sequences of (nearly) equal length, each prefilling from position 0, on blocks 0, 1, ...
struct profile_step {
  std::vector<std::vector<token_id>> tokens;
  std::vector<std::vector<block_id>> tables;
  std::int64_t num_blocks = 0;
  [[nodiscard]] forward_batch batch() const;
};
[[nodiscard]] profile_step make_profile_step(const kv_pool_request& request);

}  // namespace pagedserve::forward
