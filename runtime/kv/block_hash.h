#pragma once
// block_hash: the prefix-cache key of one full KV block. It chains the parent block's hash
// with this block's token ids and a salt, so equal hashes mean (almost surely) equal whole
// prefixes. "Almost" matters: the block pool never trusts a hash alone. A hit is confirmed by
// comparing the block's stored tokens, salt and parent-chain identity (see block_pool.h), so
// a collision costs a cache miss, never a wrong hit.

#include <compare>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>

#include "common/types.h"

namespace pagedserve::kv {

struct block_hash {
  std::uint64_t value = 0;
  friend constexpr auto operator<=>(block_hash, block_hash) = default;
};

// Hash of a full block: parent (nullopt for the first block of a sequence), tokens, salt.
using block_hash_fn = std::function<block_hash(
    std::optional<block_hash> parent, std::span<const token_id> tokens, std::uint64_t salt)>;

// The default hash: a 64-bit multiply-rotate mix over the tokens (two per 64-bit lane), with a
// final avalanche, seeded by the parent hash and the salt. Not cryptographic; collisions are
// made harmless by the pool's confirmation, not by the hash.
[[nodiscard]] block_hash hash_block_tokens(std::optional<block_hash> parent,
                                           std::span<const token_id> tokens, std::uint64_t salt);

}  // namespace pagedserve::kv

template <>
struct std::hash<pagedserve::kv::block_hash> {
  std::size_t operator()(pagedserve::kv::block_hash h) const noexcept {
    return static_cast<std::size_t>(h.value);
  }
};
