#pragma once
// block_pool: every KV block's bookkeeping record, the free-block queue (LRU eviction order,
// see free_block_queue.h) and the prefix cache (hash -> registered blocks, plus each
// registered block's tokens so that a hit is confirmed, never assumed from the hash).
//
// A registered block is identified by (hash, tokens, salt, parent registration key). Lookup
// walks a prompt block by block; block i matches a registration only if its tokens and salt
// are equal and its parent key is the key of the registration matched at i - 1 (none for
// i == 0). By induction a matched block's whole prefix equals the prompt's, whatever the hash
// function does; hash collisions can only turn hits into misses.

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "common/ids.h"
#include "common/types.h"
#include "runtime/kv/block_hash.h"
#include "runtime/kv/cached_block_map.h"
#include "runtime/kv/free_block_queue.h"
#include "runtime/kv/kv_block.h"

namespace pagedserve::kv {

class block_pool {
 public:
  block_pool(std::uint32_t num_blocks, std::uint32_t block_size, bool enable_caching);

  // The registered block holding exactly `tokens` after `parent` under `salt`, if any.
  [[nodiscard]] std::optional<block_id> find_cached_block(block_hash hash,
                                                          std::optional<chain_parent> parent,
                                                          std::span<const token_id> tokens,
                                                          std::uint64_t salt) const;

  // Pops `n` blocks from the front of the free queue (evicting their hashes) with ref_cnt 1
  // and appends them to `out` (a block table grows in place, no temporary vector).
  // Aborts if fewer than `n` are free: callers check num_free_blocks() first.
  void get_new_blocks(std::uint32_t n, std::vector<block_id>& out);

  // A prefix hit: each block gains a reference, leaving the free queue if it was unreferenced.
  void touch(std::span<const block_id> ids);

  // Drops one reference per block, in the given order; blocks reaching zero are appended to
  // the back of the free queue in that order, keeping their hash.
  void free_blocks(std::span<const block_id> ordered_ids);

  // Registers full block `id` (referenced, not yet cached) with its tokens. Returns the
  // registration that now represents this content: `id`'s own, or an equal block registered
  // earlier (then `id` stays unregistered: the first registration is kept).
  chain_parent cache_full_block(block_id id, block_hash hash, std::optional<chain_parent> parent,
                                std::span<const token_id> tokens, std::uint64_t salt);

  [[nodiscard]] const kv_block& block(block_id id) const;
  [[nodiscard]] std::span<const token_id> cached_tokens(block_id id) const;
  [[nodiscard]] std::uint32_t num_blocks() const;
  [[nodiscard]] std::uint32_t block_size() const { return block_size_; }
  [[nodiscard]] std::uint32_t num_free_blocks() const { return free_queue_.size(); }
  [[nodiscard]] bool caching_enabled() const { return enable_caching_; }
  [[nodiscard]] std::size_t num_cached_blocks() const { return cached_.num_blocks(); }
  [[nodiscard]] std::uint64_t num_evictions() const { return num_evictions_; }
  [[nodiscard]] std::vector<block_id> free_queue_order() const;

  // Aborts with context if any structural invariant (kv_block.h, free_block_queue.h) fails.
  void check_invariants() const;

 private:
  kv_block& mutable_block(block_id id);
  void evict(kv_block& block);
  [[nodiscard]] bool same_content(const kv_block& block, std::optional<chain_parent> parent,
                                  std::span<const token_id> tokens, std::uint64_t salt) const;

  std::vector<kv_block> blocks_;
  free_block_queue free_queue_;
  cached_block_map cached_;
  std::vector<token_id> tokens_;  // block_size_ tokens per block, meaningful while cached
  std::uint32_t block_size_ = 0;
  bool enable_caching_ = true;
  std::uint64_t next_key_ = 1;
  std::uint64_t num_evictions_ = 0;
};

}  // namespace pagedserve::kv
