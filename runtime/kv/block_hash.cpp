#include "runtime/kv/block_hash.h"

#include <bit>

namespace pagedserve::kv {
namespace {

constexpr std::uint64_t prime_1 = 0x9E3779B185EBCA87ULL;
constexpr std::uint64_t prime_2 = 0xC2B2AE3D27D4EB4FULL;
constexpr std::uint64_t prime_3 = 0x165667B19E3779F9ULL;
constexpr std::uint64_t no_parent_seed = 0x27D4EB2F165667C5ULL;

// One round: folds a 64-bit lane into the state (as xxhash64's round does).
constexpr std::uint64_t mix_lane(std::uint64_t state, std::uint64_t lane) {
  state += lane * prime_2;
  state = std::rotl(state, 31);
  return state * prime_1;
}

// Final avalanche: every input bit affects every output bit.
constexpr std::uint64_t avalanche(std::uint64_t h) {
  h ^= h >> 33;
  h *= prime_2;
  h ^= h >> 29;
  h *= prime_3;
  h ^= h >> 32;
  return h;
}

constexpr std::uint64_t token_bits(token_id t) {
  return static_cast<std::uint64_t>(static_cast<std::uint32_t>(t));
}

}  // namespace

block_hash hash_block_tokens(std::optional<block_hash> parent, std::span<const token_id> tokens,
                             std::uint64_t salt) {
  std::uint64_t state = parent ? mix_lane(prime_3, parent->value) : no_parent_seed;
  state = mix_lane(state, salt);
  std::size_t i = 0;
  for (; i + 1 < tokens.size(); i += 2) {
    state = mix_lane(state, token_bits(tokens[i]) | (token_bits(tokens[i + 1]) << 32));
  }
  if (i < tokens.size()) state = mix_lane(state, token_bits(tokens[i]) | (1ULL << 63));
  state ^= static_cast<std::uint64_t>(tokens.size()) * prime_1;
  return block_hash{avalanche(state)};
}

}  // namespace pagedserve::kv
