#pragma once
// kv_block: the bookkeeping record of one physical KV block. The block pool owns an array of
// them indexed by block id; the free-block queue threads its list through `prev_free` and
// `next_free` (an intrusive list: no allocation, O(1) removal from the middle).
//
// Invariants (checked by block_pool::check_invariants, the first by
// kv_cache_manager::check_invariants, which knows the block tables):
//   ref_cnt == number of block tables holding the block;
//   ref_cnt == 0  <=>  the block is in the free-block queue;
//   `cached` is set  <=>  the block is registered in the prefix-cache map. A free block may
//   stay cached (it can still be hit) until it is popped for reuse, which evicts it.

#include <cstdint>
#include <optional>

#include "common/ids.h"
#include "runtime/kv/block_hash.h"

namespace pagedserve::kv {

// What a child block records about its parent's registration. `key` is unique for the pool's
// lifetime (a block evicted and registered again gets a new key), so it names exactly the
// parent content the child was computed after, even if the parent's block id is later reused.
struct chain_parent {
  block_hash hash;
  std::uint64_t key = 0;
  friend bool operator==(const chain_parent&, const chain_parent&) = default;
};

// One prefix-cache registration.
struct cached_block_info {
  block_hash hash;
  std::uint64_t key = 0;
  std::optional<chain_parent> parent;  // nullopt: first block of its sequence
  std::uint64_t salt = 0;
};

struct kv_block {
  block_id id;
  std::uint32_t ref_cnt = 0;
  std::optional<cached_block_info> cached;
  // Free-queue links; both nullopt when the block is alone in the queue or not queued.
  std::optional<block_id> prev_free;
  std::optional<block_id> next_free;
  // Next block in the same prefix-cache bucket chain (cached_block_map); set only while cached.
  std::optional<block_id> next_cached;
  // Value of the pool's eviction counter right after this block was last evicted (0: never).
  // A computed_blocks found when the counter was lower is stale for this block.
  std::uint64_t evicted_at = 0;

  [[nodiscard]] std::optional<block_hash> hash() const {
    return cached ? std::optional<block_hash>(cached->hash) : std::nullopt;
  }
};

}  // namespace pagedserve::kv
