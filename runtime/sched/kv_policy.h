#pragma once
// kv_policy: how the scheduler gets KV memory for its sequences. The scheduling logic is the
// same for every policy; only the allocation differs:
//   paged_kv_policy   blocks on demand from kv::kv_cache_manager, with the prefix cache
//   static_kv_policy  (sim/static_kv_policy.h) one contiguous max_model_len region reserved
//                     at admission: the simulator's baseline, what servers without paging do
// Predicate/action pairs: can_admit/admit at admission, grow every step, release at the end.

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "common/ids.h"
#include "common/types.h"
#include "runtime/kv/kv_cache_manager.h"
#include "runtime/sched/scheduler_config.h"

namespace pagedserve::sched {

// What a prefix-cache lookup found at admission; handed back to can_admit/admit.
struct admission_lookup {
  std::uint32_t num_cached_tokens = 0;
  kv::prefix_match prefix;
};

class kv_policy {
 public:
  virtual ~kv_policy() = default;

  [[nodiscard]] virtual std::string_view name() const = 0;
  // Tokens per block: commit() can only register something when a block boundary is crossed.
  [[nodiscard]] virtual std::uint32_t block_size() const = 0;
  // Most tokens one sequence could ever hold with the whole memory to itself; requests that
  // need more are rejected at add_request.
  [[nodiscard]] virtual std::uint64_t max_tokens_per_sequence() const = 0;

  // At admission: how many leading tokens are already in the cache (counts a query).
  [[nodiscard]] virtual admission_lookup lookup_prefix(std::span<const token_id> tokens) = 0;
  // Whether `seq` can be admitted covering `num_tokens_after_step` tokens while keeping
  // `watermark` (a fraction of the memory) free.
  [[nodiscard]] virtual bool can_admit(seq_id seq, std::uint32_t num_tokens_after_step,
                                       const admission_lookup& lookup, double watermark) const = 0;
  // Admits `seq`; false (changing nothing) when memory is short.
  [[nodiscard]] virtual bool admit(seq_id seq, std::uint32_t num_tokens_after_step,
                                   const admission_lookup& lookup) = 0;
  // Grows an admitted sequence to cover `num_tokens_after_step`; false (changing nothing)
  // when memory is short and the scheduler must preempt. Only called when the sequence's
  // num_slots_allocated falls short.
  [[nodiscard]] virtual bool grow(seq_id seq, std::uint32_t num_tokens_after_step) = 0;
  // The first `num_computed_tokens` of `tokens` now have KV: offer full blocks to the cache.
  virtual void commit(seq_id seq, std::span<const token_id> tokens,
                      std::uint32_t num_computed_tokens) = 0;
  // Finish, cancel or preempt: give back everything `seq` holds.
  virtual void release(seq_id seq) = 0;

  [[nodiscard]] virtual std::span<const block_id> block_table(seq_id seq) const = 0;
  [[nodiscard]] virtual std::uint64_t num_slots_allocated(seq_id seq) const = 0;
  [[nodiscard]] virtual double usage() const = 0;  // fraction of memory held by sequences
  [[nodiscard]] virtual kv::prefix_cache_stats prefix_stats() const = 0;
  // Memory (in blocks) not free although no sequence should hold any: a leak when idle.
  [[nodiscard]] virtual std::uint64_t num_blocks_held() const = 0;
};

// Paged blocks of config.block_size, config.num_blocks of them, prefix caching as configured.
[[nodiscard]] std::unique_ptr<kv_policy> make_paged_kv_policy(const scheduler_config& config);

}  // namespace pagedserve::sched
