#include "runtime/kv/cached_block_map.h"

#include <bit>

#include "runtime/kv/kv_invariant.h"

namespace pagedserve::kv {

cached_block_map::cached_block_map(std::uint32_t num_blocks) {
  const std::uint64_t num_buckets =
      std::bit_ceil(std::max<std::uint64_t>(2 * std::uint64_t{num_blocks}, 2));
  buckets_.resize(num_buckets);
  shift_ = 64 - std::countr_zero(num_buckets);
}

// Fibonacci hashing: the top bits of hash * 2^64/phi. Spreads any hash function's values,
// including a test hook's, without trusting its low bits.
std::size_t cached_block_map::bucket(block_hash hash) const {
  return static_cast<std::size_t>((hash.value * 0x9E3779B97F4A7C15ULL) >> shift_);
}

void cached_block_map::insert(std::span<kv_block> blocks, block_id id) {
  kv_block& block = blocks[id.value()];
  kv_check(block.cached.has_value(), "inserting an unhashed block into the prefix cache");
  std::optional<block_id>& head = buckets_[bucket(block.cached->hash)];
  kv_check(!block.next_cached && head != id, "block registered twice");
  block.next_cached = head;
  head = id;
  ++num_blocks_;
}

void cached_block_map::erase(std::span<kv_block> blocks, block_id id) {
  kv_block& block = blocks[id.value()];
  kv_check(block.cached.has_value(), "erasing an unhashed block from the prefix cache");
  std::optional<block_id>* link = &buckets_[bucket(block.cached->hash)];
  while (*link && **link != id) link = &blocks[(*link)->value()].next_cached;
  kv_check(link->has_value(), "erasing a block that is not registered under its hash");
  *link = block.next_cached;
  block.next_cached.reset();
  --num_blocks_;
}

void cached_block_map::check_invariants(std::span<const kv_block> blocks) const {
  std::size_t num_linked = 0;
  for (std::size_t b = 0; b < buckets_.size(); ++b) {
    for (std::optional<block_id> id = buckets_[b]; id; id = blocks[id->value()].next_cached) {
      kv_check(id->value() < blocks.size(), "prefix-cache chain link out of range");
      const kv_block& block = blocks[id->value()];
      kv_check(block.cached.has_value(), "prefix-cache chain holds an unhashed block");
      kv_check(bucket(block.cached->hash) == b, "prefix-cache block in the wrong bucket");
      kv_check(++num_linked <= num_blocks_, "prefix-cache chains longer than their count");
    }
  }
  kv_check(num_linked == num_blocks_, "prefix-cache chains shorter than their count");
}

}  // namespace pagedserve::kv
