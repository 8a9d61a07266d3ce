#include "runtime/kv/kv_cache_manager.h"

#include <algorithm>
#include <string>
#include <utility>

#include "common/num_blocks.h"
#include "runtime/kv/kv_invariant.h"

namespace pagedserve::kv {

kv_cache_manager::kv_cache_manager(kv_cache_config config)
    : kv_cache_manager(config, hash_block_tokens) {}

kv_cache_manager::kv_cache_manager(kv_cache_config config, block_hash_fn hash_fn)
    : config_(config),
      hash_fn_(std::move(hash_fn)),
      pool_(config.num_blocks, config.block_size, config.enable_prefix_caching) {
  kv_check(static_cast<bool>(hash_fn_), "kv_cache_manager needs a hash function");
}

computed_blocks kv_cache_manager::get_computed_blocks(std::span<const token_id> prompt,
                                                      std::uint64_t salt) {
  computed_blocks match;
  match.num_evictions_at_lookup = pool_.num_evictions();
  if (!config_.enable_prefix_caching || prompt.empty()) return match;
  // Cap at (size - 1) tokens so the last prompt token is always computed (it gives the
  // logits); a block-aligned, fully cached prompt thus recomputes its whole last block.
  const std::size_t max_blocks = (prompt.size() - 1) / config_.block_size;
  std::optional<chain_parent> parent;
  for (std::size_t i = 0; i < max_blocks; ++i) {
    const auto tokens = prompt.subspan(i * config_.block_size, config_.block_size);
    const block_hash hash =
        hash_fn_(parent ? std::optional(parent->hash) : std::nullopt, tokens, salt);
    const std::optional<block_id> hit = pool_.find_cached_block(hash, parent, tokens, salt);
    if (!hit) break;
    match.blocks.push_back(*hit);
    parent = chain_parent{hash, pool_.block(*hit).cached->key};
  }
  match.num_computed_tokens = static_cast<std::uint32_t>(match.blocks.size()) * config_.block_size;
  stats_.queries += prompt.size();
  stats_.hits += match.num_computed_tokens;
  return match;
}

bool kv_cache_manager::can_allocate(seq_id seq, std::uint32_t num_tokens_after_step,
                                    const computed_blocks* new_computed_blocks) const {
  return get_num_blocks_to_allocate(seq, num_tokens_after_step, new_computed_blocks) <=
         pool_.num_free_blocks();
}

bool kv_cache_manager::allocate_slots(seq_id seq, std::uint32_t num_tokens_after_step,
                                      const computed_blocks* new_computed_blocks) {
  if (!can_allocate(seq, num_tokens_after_step, new_computed_blocks)) return false;
  seq_state& state = seqs_[seq];
  if (state.blocks.empty() && new_computed_blocks != nullptr)
    adopt_prefix(state, *new_computed_blocks);
  const std::uint32_t needed = blocks_for(num_tokens_after_step);
  const auto have = static_cast<std::uint32_t>(state.blocks.size());
  if (needed > have) {
    pool_.get_new_blocks(needed - have, state.blocks);
    stats_.evictions = pool_.num_evictions();
  }
  return true;
}

void kv_cache_manager::cache_blocks(seq_id seq, std::span<const token_id> tokens,
                                    std::uint32_t num_computed_tokens, std::uint64_t salt) {
  if (!config_.enable_prefix_caching) return;
  auto it = seqs_.find(seq);
  kv_check(it != seqs_.end(), "cache_blocks for a sequence without a block table");
  kv_check(num_computed_tokens <= tokens.size(), "more computed tokens than tokens given");
  seq_state& state = it->second;
  const std::uint32_t num_full = num_computed_tokens / config_.block_size;
  kv_check(num_full <= state.blocks.size(), "computed tokens beyond the block table");
  for (std::uint32_t i = state.num_cached_blocks; i < num_full; ++i) {
    const auto block_tokens =
        tokens.subspan(std::size_t{i} * config_.block_size, config_.block_size);
    const std::optional<block_hash> parent_hash =
        state.chain_tail ? std::optional(state.chain_tail->hash) : std::nullopt;
    const block_hash hash = hash_fn_(parent_hash, block_tokens, salt);
    state.chain_tail =
        pool_.cache_full_block(state.blocks[i], hash, state.chain_tail, block_tokens, salt);
  }
  state.num_cached_blocks = std::max(state.num_cached_blocks, num_full);
}

void kv_cache_manager::free(seq_id seq) {
  auto it = seqs_.find(seq);
  if (it == seqs_.end()) return;  // never allocated (e.g. cancelled while waiting)
  // The table dies here, so it is reversed in place rather than copied.
  std::vector<block_id>& tail_first = it->second.blocks;
  std::reverse(tail_first.begin(), tail_first.end());
  pool_.free_blocks(tail_first);
  seqs_.erase(it);
}

void kv_cache_manager::trim_slots(seq_id seq, std::uint32_t num_tokens) {
  const auto it = seqs_.find(seq);
  if (it == seqs_.end()) return;
  seq_state& state = it->second;
  const std::uint32_t kept = std::max(blocks_for(num_tokens), state.num_cached_blocks);
  if (kept >= state.blocks.size()) return;
  std::vector<block_id> tail_first(state.blocks.rbegin(),
                                   state.blocks.rend() - static_cast<std::ptrdiff_t>(kept));
  pool_.free_blocks(tail_first);
  state.blocks.resize(kept);
}

std::span<const block_id> kv_cache_manager::block_table(seq_id seq) const {
  auto it = seqs_.find(seq);
  if (it == seqs_.end()) return {};
  return it->second.blocks;
}

std::uint32_t kv_cache_manager::num_free_blocks() const { return pool_.num_free_blocks(); }
std::uint32_t kv_cache_manager::num_blocks() const { return pool_.num_blocks(); }
std::uint32_t kv_cache_manager::block_size() const { return config_.block_size; }
const prefix_cache_stats& kv_cache_manager::stats() const { return stats_; }

double kv_cache_manager::usage() const {
  if (num_blocks() == 0) return 0.0;
  return static_cast<double>(num_blocks() - num_free_blocks()) / num_blocks();
}

std::uint32_t kv_cache_manager::blocks_for(std::uint32_t num_tokens) const {
  const std::uint32_t covered = std::max(num_tokens, config_.reserve_tokens_per_sequence);
  return static_cast<std::uint32_t>(num_blocks_for(covered, config_.block_size));
}

std::uint32_t kv_cache_manager::num_blocks_held() const { return num_blocks() - num_free_blocks(); }

std::uint64_t kv_cache_manager::max_tokens_per_sequence() const {
  const std::uint64_t capacity = std::uint64_t{num_blocks()} * config_.block_size;
  return config_.reserve_tokens_per_sequence > capacity ? 0 : capacity;
}

std::uint32_t kv_cache_manager::get_num_blocks_to_allocate(
    seq_id seq, std::uint32_t num_tokens_after_step,
    const computed_blocks* new_computed_blocks) const {
  auto it = seqs_.find(seq);
  std::uint32_t have = 0;
  std::uint32_t num_evictable_prefix = 0;
  if (it != seqs_.end() && !it->second.blocks.empty()) {
    have = static_cast<std::uint32_t>(it->second.blocks.size());
    if (new_computed_blocks != nullptr && !new_computed_blocks->blocks.empty()) {
      const auto& table = it->second.blocks;
      kv_check(new_computed_blocks->blocks.size() <= table.size() &&
                   std::equal(new_computed_blocks->blocks.begin(),
                              new_computed_blocks->blocks.end(), table.begin()),
               "a computed_blocks can only be adopted by a sequence without blocks");
    }
  } else if (new_computed_blocks != nullptr) {
    check_prefix_fresh(*new_computed_blocks);
    have = static_cast<std::uint32_t>(new_computed_blocks->blocks.size());
    num_evictable_prefix = static_cast<std::uint32_t>(std::ranges::count_if(
        new_computed_blocks->blocks, [&](block_id id) { return pool_.block(id).ref_cnt == 0; }));
  }
  const std::uint32_t needed = blocks_for(num_tokens_after_step);
  return (needed > have ? needed - have : 0) + num_evictable_prefix;
}

void kv_cache_manager::check_prefix_fresh(const computed_blocks& prefix) const {
  kv_check(prefix.num_computed_tokens == prefix.blocks.size() * config_.block_size,
           "computed_blocks token count disagrees with its blocks");
  for (block_id id : prefix.blocks) {
    const kv_block& block = pool_.block(id);
    if (!block.cached || block.evicted_at > prefix.num_evictions_at_lookup) {
      kv_fail("stale computed_blocks: block " + std::to_string(id.value()) +
              " was evicted after the lookup; look the prefix up again");
    }
  }
}

void kv_cache_manager::adopt_prefix(seq_state& state, const computed_blocks& prefix) {
  if (prefix.blocks.empty()) return;
  pool_.touch(prefix.blocks);
  state.blocks = prefix.blocks;
  state.num_cached_blocks = static_cast<std::uint32_t>(prefix.blocks.size());
  const cached_block_info& last = *pool_.block(prefix.blocks.back()).cached;
  state.chain_tail = chain_parent{last.hash, last.key};
}

void kv_cache_manager::check_invariants() const {
  pool_.check_invariants();
  std::vector<std::uint32_t> num_holders(pool_.num_blocks(), 0);
  for (const auto& [seq, state] : seqs_) {
    for (block_id id : state.blocks) {
      kv_check(id.value() < num_holders.size(), "block table holds an out-of-range id");
      ++num_holders[id.value()];
    }
    kv_check(state.num_cached_blocks <= state.blocks.size(), "more cached blocks than blocks");
  }
  for (std::uint32_t i = 0; i < pool_.num_blocks(); ++i) {
    const kv_block& block = pool_.block(block_id{i});
    if (block.ref_cnt != num_holders[i]) {
      kv_fail("block " + std::to_string(i) + ": ref_cnt differs from the block tables holding it");
    }
    if (!block.cached) continue;
    const cached_block_info& info = *block.cached;
    const auto parent_hash = info.parent ? std::optional(info.parent->hash) : std::nullopt;
    if (hash_fn_(parent_hash, pool_.cached_tokens(block.id), info.salt) != info.hash) {
      kv_fail("block " + std::to_string(i) + ": stored tokens do not match its hash");
    }
  }
}

}  // namespace pagedserve::kv
