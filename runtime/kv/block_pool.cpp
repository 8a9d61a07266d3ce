#include "runtime/kv/block_pool.h"

#include <algorithm>
#include <string>

#include "runtime/kv/kv_invariant.h"

namespace pagedserve::kv {

block_pool::block_pool(std::uint32_t num_blocks, std::uint32_t block_size, bool enable_caching)
    : tokens_(enable_caching ? std::size_t{num_blocks} * block_size : 0),
      block_size_(block_size),
      enable_caching_(enable_caching) {
  if (enable_caching) cached_ = cached_block_map(num_blocks);
  kv_check(block_size > 0, "block_size must be positive");
  blocks_.resize(num_blocks);
  for (std::uint32_t i = 0; i < num_blocks; ++i) blocks_[i].id = block_id{i};
  free_queue_ = free_block_queue(blocks_);
}

std::optional<block_id> block_pool::find_cached_block(block_hash hash,
                                                      std::optional<chain_parent> parent,
                                                      std::span<const token_id> tokens,
                                                      std::uint64_t salt) const {
  return cached_.find_if(blocks_, hash, [&](const kv_block& block) {
    return same_content(block, parent, tokens, salt);
  });
}

void block_pool::get_new_blocks(std::uint32_t n, std::vector<block_id>& out) {
  kv_check(n <= free_queue_.size(), "get_new_blocks: not enough free blocks");
  for (std::uint32_t i = 0; i < n; ++i) {
    kv_block& block = mutable_block(free_queue_.popleft(blocks_));
    kv_check(block.ref_cnt == 0, "a queued block had references");
    if (block.cached) evict(block);
    block.ref_cnt = 1;
    out.push_back(block.id);
  }
}

void block_pool::touch(std::span<const block_id> ids) {
  for (block_id id : ids) {
    kv_block& block = mutable_block(id);
    if (block.ref_cnt == 0) free_queue_.remove(blocks_, id);
    ++block.ref_cnt;
  }
}

void block_pool::free_blocks(std::span<const block_id> ordered_ids) {
  for (block_id id : ordered_ids) {
    kv_block& block = mutable_block(id);
    kv_check(block.ref_cnt > 0, "freeing a block that has no references");
    if (--block.ref_cnt == 0) free_queue_.append(blocks_, id);
  }
}

chain_parent block_pool::cache_full_block(block_id id, block_hash hash,
                                          std::optional<chain_parent> parent,
                                          std::span<const token_id> tokens, std::uint64_t salt) {
  kv_check(enable_caching_, "cache_full_block with prefix caching disabled");
  kv_check(tokens.size() == block_size_, "only full blocks are cached");
  kv_block& block = mutable_block(id);
  kv_check(block.ref_cnt > 0 && !block.cached, "cache_full_block: block not fresh and held");
  if (std::optional<block_id> existing = find_cached_block(hash, parent, tokens, salt)) {
    return chain_parent{hash, blocks_[existing->value()].cached->key};
  }
  block.cached = cached_block_info{hash, next_key_++, parent, salt};
  std::copy(tokens.begin(), tokens.end(),
            tokens_.begin() + std::ptrdiff_t{id.value()} * block_size_);
  cached_.insert(blocks_, id);
  return chain_parent{hash, block.cached->key};
}

const kv_block& block_pool::block(block_id id) const {
  kv_check(id.value() < blocks_.size(), "block id out of range");
  return blocks_[id.value()];
}

std::span<const token_id> block_pool::cached_tokens(block_id id) const {
  if (!block(id).cached) return {};
  return std::span(tokens_).subspan(std::size_t{id.value()} * block_size_, block_size_);
}

std::uint32_t block_pool::num_blocks() const { return static_cast<std::uint32_t>(blocks_.size()); }

std::vector<block_id> block_pool::free_queue_order() const {
  return free_queue_.to_vector(blocks_);
}

kv_block& block_pool::mutable_block(block_id id) {
  kv_check(id.value() < blocks_.size(), "block id out of range");
  return blocks_[id.value()];
}

void block_pool::evict(kv_block& block) {
  cached_.erase(blocks_, block.id);
  block.cached.reset();
  block.evicted_at = ++num_evictions_;
}

bool block_pool::same_content(const kv_block& block, std::optional<chain_parent> parent,
                              std::span<const token_id> tokens, std::uint64_t salt) const {
  const cached_block_info& info = *block.cached;
  if (info.parent != parent || info.salt != salt) return false;
  return std::ranges::equal(cached_tokens(block.id), tokens);
}

void block_pool::check_invariants() const {
  const std::vector<block_id> order = free_queue_.to_vector(blocks_);
  std::size_t num_cached = 0;
  for (const kv_block& block : blocks_) {
    const auto fail = [&](const char* what) {
      kv_fail("block " + std::to_string(block.id.value()) + ": " + what);
    };
    if (free_queue_.contains(blocks_, block.id) != (block.ref_cnt == 0)) {
      fail("must be in the free queue exactly when unreferenced");
    }
    if (!block.cached) continue;
    ++num_cached;
    if (!enable_caching_) fail("hashed with prefix caching disabled");
    const auto self = [&](const kv_block& b) { return b.id == block.id; };
    if (cached_.find_if(blocks_, block.cached->hash, self) != block.id) {
      fail("not findable under its hash");
    }
  }
  kv_check(num_cached == cached_.num_blocks(), "prefix-cache map holds unhashed blocks");
  if (enable_caching_) cached_.check_invariants(blocks_);
  kv_check(order.size() == free_queue_.size(), "free-queue size mismatch");
}

}  // namespace pagedserve::kv
