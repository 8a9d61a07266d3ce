#pragma once
// cached_block_map: the prefix cache's index, block_hash -> registered blocks. A fixed array of
// buckets (a power of two, at least twice the number of blocks, so the load factor stays
// below 1/2 and it never rehashes); each bucket heads a singly linked chain threaded through
// kv_block::next_cached. No allocation after construction, and a lookup touches one bucket
// plus the blocks it then has to confirm anyway.
//
// A chain may hold blocks of several hashes (bucket sharing) and several blocks of one hash
// (hash collisions); the block pool decides which of them, if any, holds a given prefix by
// comparing tokens and parent chain (block_pool.h).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "common/ids.h"
#include "runtime/kv/block_hash.h"
#include "runtime/kv/kv_block.h"

namespace pagedserve::kv {

class cached_block_map {
 public:
  cached_block_map() = default;
  explicit cached_block_map(std::uint32_t num_blocks);

  // Links block `id` (its `cached` set) under its hash; aborts if it is already linked.
  void insert(std::span<kv_block> blocks, block_id id);
  // Unlinks block `id` (its `cached` still set); aborts if it is not linked.
  void erase(std::span<kv_block> blocks, block_id id);

  // First block registered under `hash` for which `pred(block)` holds, newest first.
  template <class Pred>
  [[nodiscard]] std::optional<block_id> find_if(std::span<const kv_block> blocks, block_hash hash,
                                                Pred pred) const {
    if (buckets_.empty()) return std::nullopt;  // prefix caching disabled
    for (std::optional<block_id> id = buckets_[bucket(hash)]; id;
         id = blocks[id->value()].next_cached) {
      const kv_block& b = blocks[id->value()];
      if (b.cached->hash == hash && pred(b)) return id;
    }
    return std::nullopt;
  }

  [[nodiscard]] std::size_t num_blocks() const { return num_blocks_; }

  // Aborts unless every chain holds only cached blocks in their own bucket, and the chains
  // together hold exactly num_blocks() blocks.
  void check_invariants(std::span<const kv_block> blocks) const;

 private:
  [[nodiscard]] std::size_t bucket(block_hash hash) const;

  std::vector<std::optional<block_id>> buckets_;
  int shift_ = 64;
  std::size_t num_blocks_ = 0;
};

}  // namespace pagedserve::kv
