#pragma once
// kv_cache_manager: the bookkeeping half of PagedAttention. Owns the block pool (free-block
// queue, reference counts, prefix-cache hash map) and one append-only block table per
// sequence. Pure bookkeeping: no KV memory lives here, so it is testable on any CPU.
//
// Lifecycle of a sequence (vLLM's KVCacheManager verbs):
//   get_computed_blocks(tokens)        at admission: how much of the prompt is cached
//   allocate_slots(seq, n, ...)        every step: room for the tokens scheduled now
//   cache_blocks(seq, tokens, n)       once tokens are known: hash newly filled blocks
//   free(seq)                          finish, cancel or preempt: tail blocks first
//
// A computed_blocks is a snapshot: use it for the same sequence's allocate_slots before any
// other allocate_slots call can evict its blocks (as vLLM's scheduler does: look up, then
// allocate at once). Adopting a match whose blocks were evicted since aborts.
//
// Eviction order, reference counts and the collision-proof hit rule: free_block_queue.h,
// kv_block.h and block_pool.h.

#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

#include "common/ids.h"
#include "common/types.h"
#include "runtime/kv/block_hash.h"
#include "runtime/kv/block_pool.h"

namespace pagedserve::kv {

struct kv_cache_config {
  std::uint32_t num_blocks = 0;
  std::uint32_t block_size = 16;
  bool enable_prefix_caching = true;
  // 0: blocks on demand (PagedAttention). Otherwise a sequence's first allocation reserves
  // blocks for at least this many tokens, as servers without paging reserve max_model_len
  // per sequence: the simulator's static baseline (sim/static_reservation.h). Never set when
  // serving.
  std::uint32_t reserve_tokens_per_sequence = 0;
};

// Result of a prefix-cache lookup: cached full blocks matching the start of a prompt.
struct computed_blocks {
  std::vector<block_id> blocks;
  std::uint32_t num_computed_tokens = 0;      // blocks.size() * block_size
  std::uint64_t num_evictions_at_lookup = 0;  // the pool's eviction count when found
};

struct prefix_cache_stats {
  std::uint64_t queries = 0;    // tokens looked up (as vLLM counts them)
  std::uint64_t hits = 0;       // tokens found cached
  std::uint64_t evictions = 0;  // cached blocks whose hash was dropped for reuse
};

class kv_cache_manager {
 public:
  explicit kv_cache_manager(kv_cache_config config);
  // Test hook: a custom block hash (e.g. one that collides on purpose).
  kv_cache_manager(kv_cache_config config, block_hash_fn hash_fn);

  // Longest run of cached full blocks that prefixes `prompt`, leaving at least the last
  // token to be computed (so there is a logit). Takes no references; counts a query
  // (prompt tokens into stats().queries, matched tokens into hits). With prefix caching
  // disabled it returns an empty match and counts nothing.
  [[nodiscard]] computed_blocks get_computed_blocks(std::span<const token_id> prompt,
                                                    std::uint64_t salt = 0);

  // Blocks the free queue must supply for `allocate_slots` with the same arguments: new
  // blocks, plus unreferenced cached blocks of `new_computed_blocks` (counted as free now,
  // they leave the free queue when adopted).
  [[nodiscard]] std::uint32_t get_num_blocks_to_allocate(
      seq_id seq, std::uint32_t num_tokens_after_step,
      const computed_blocks* new_computed_blocks = nullptr) const;

  // Whether `allocate_slots` would succeed for the same arguments.
  [[nodiscard]] bool can_allocate(seq_id seq, std::uint32_t num_tokens_after_step,
                                  const computed_blocks* new_computed_blocks = nullptr) const;

  // Grows `seq`'s block table so it covers `num_tokens_after_step` tokens. On the first call
  // `new_computed_blocks` (if any) is adopted first: its blocks get a reference and leave the free
  // queue. Returns false, changing nothing, when the pool cannot supply the blocks. "First"
  // means while `seq` has no blocks (also after free: a preempted sequence starts over);
  // later calls may pass the adopted prefix again or nothing, any other prefix aborts.
  // Never shrinks a table: fewer tokens than it covers is a no-op returning true.
  [[nodiscard]] bool allocate_slots(seq_id seq, std::uint32_t num_tokens_after_step,
                                    const computed_blocks* new_computed_blocks = nullptr);

  // Gives back the table's tail blocks that `num_tokens` do not reach (speculative decoding:
  // lookahead slots of proposed tokens that were rejected), tail first. Never below the
  // blocks registered in the prefix cache; more tokens than the table covers is a no-op.
  void trim_slots(seq_id seq, std::uint32_t num_tokens);

  // Registers in the prefix cache every block of `seq` that is full within the first
  // `num_computed_tokens` of `tokens` and not yet hashed. Hash chains parent + tokens.
  void cache_blocks(seq_id seq, std::span<const token_id> tokens, std::uint32_t num_computed_tokens,
                    std::uint64_t salt = 0);

  // Releases every block of `seq`, tail first (so chain tails are evicted first), and forgets
  // the sequence. A sequence that holds nothing (never allocated, already freed) is ignored.
  void free(seq_id seq);

  [[nodiscard]] std::span<const block_id> block_table(seq_id seq) const;
  [[nodiscard]] std::uint32_t num_free_blocks() const;  // free or cached and unreferenced
  // Blocks some sequence references: all of them are back once every sequence is freed.
  [[nodiscard]] std::uint32_t num_blocks_held() const;
  // Most tokens one sequence could ever hold with the whole pool to itself (0 when the
  // reservation alone exceeds the pool).
  [[nodiscard]] std::uint64_t max_tokens_per_sequence() const;
  [[nodiscard]] std::uint32_t num_blocks() const;
  [[nodiscard]] std::uint32_t block_size() const;
  [[nodiscard]] double usage() const;  // fraction of blocks referenced by some sequence
  [[nodiscard]] const prefix_cache_stats& stats() const;

  // Read-only view for tests and metrics: block records, free-queue order, invariants.
  [[nodiscard]] const block_pool& pool() const { return pool_; }
  // Aborts with context if the pool or any block table breaks an invariant, or if a cached
  // block's stored tokens do not hash to the hash it is registered under.
  void check_invariants() const;

 private:
  struct seq_state {
    std::vector<block_id> blocks;  // block table: grows, or loses tail blocks (trim_slots)
    // Leading blocks already registered in (or matched against) the prefix cache, and the
    // registration representing the last of them: the parent of the next block to cache.
    std::uint32_t num_cached_blocks = 0;
    std::optional<chain_parent> chain_tail;
  };

  // Blocks covering `num_tokens`, or the reservation if that is more.
  [[nodiscard]] std::uint32_t blocks_for(std::uint32_t num_tokens) const;
  void check_prefix_fresh(const computed_blocks& prefix) const;
  void adopt_prefix(seq_state& state, const computed_blocks& prefix);

  kv_cache_config config_;
  block_hash_fn hash_fn_;
  block_pool pool_;
  std::unordered_map<seq_id, seq_state> seqs_;
  prefix_cache_stats stats_;
};

}  // namespace pagedserve::kv
