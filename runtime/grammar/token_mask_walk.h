#pragma once
// token_mask_walk: which tokens' bytes a state can take, found by walking the vocabulary
// as a trie (token_vocabulary::sorted_ids and shared_prefix). Tokens sharing a prefix share
// its advance: the walk keeps the state after every byte of the current token, and the
// next token starts from the depth it shares with it. When a byte fails, every following
// token that shares the failing byte is skipped without being looked at.

#include <cstdint>
#include <span>
#include <vector>

#include "runtime/grammar/byte_set.h"
#include "runtime/grammar/grammar_stacks.h"
#include "runtime/grammar/token_vocabulary.h"

namespace pagedserve::grammar {

class token_mask_walk {
 public:
  // Sets the bit of every token with bytes that the state can take in full (stop tokens
  // and tokens without bytes are left to the caller). mask is zeroed first. False when the
  // step budget ran out part way (the mask then lacks some tokens: do not cache it).
  [[nodiscard]] bool fill(grammar_stacks& stacks, std::span<const std::uint32_t> state,
                          const token_vocabulary& vocabulary, std::span<std::uint32_t> mask);

 private:
  struct level {
    std::vector<std::uint32_t> state;
    byte_set next;  // bytes the state can take: most failing bytes stop here
  };
  std::vector<level> levels_;  // levels_[d]: the state after the current token's first d bytes
};

// Work allowed to one mask walk before it gives up on the tokens left (hostile grammars).
inline constexpr std::uint64_t walk_step_budget = 50'000'000;

}  // namespace pagedserve::grammar
