#pragma once
// static_reservation: the pre-paging baseline, what servers without PagedAttention do. Every
// sequence reserves max_model_len slots at admission whatever its real length, so growing
// never needs memory afterwards, nothing is ever preempted and no prefix is shared.
//
// It is a policy of the same block pool (kv_cache_config::reserve_tokens_per_sequence), so
// the real scheduler runs it unchanged. Equal reservations never fragment a contiguous arena
// either: the pool holds floor(num_blocks / ceil(max_model_len / block_size)) sequences, as a
// first-fit arena of num_blocks * block_size slots does when max_model_len is a multiple of
// the block size (static_kv_allocator.h models the arena itself, for unequal regions).

#include "api/scheduler_config.h"
#include "runtime/kv/kv_cache_manager.h"

namespace pagedserve::sim {

// What to construct the scheduler with: scheduler(baseline.sched, baseline.kv).
struct static_baseline {
  sched::scheduler_config sched;
  kv::kv_cache_config kv;
};

// `config` with reservations, no prefix caching, and no watermark: a reservation already
// covers each sequence's whole future, so there is nothing for the watermark to guard.
[[nodiscard]] inline static_baseline static_reservation(sched::scheduler_config config) {
  config.enable_prefix_caching = false;
  config.watermark = 0.0;
  kv::kv_cache_config kv;
  kv.num_blocks = config.num_blocks;
  kv.block_size = config.block_size;
  kv.enable_prefix_caching = false;
  kv.reserve_tokens_per_sequence = config.max_model_len;
  return static_baseline{config, kv};
}

}  // namespace pagedserve::sim
