#pragma once
// state_token_mask: a matcher state's token mask from its stacks' token classes
// (token_classes.h): the union of their accepted tokens, plus those of their uncertain tokens
// that a walk from the whole state allows. Classes not computed yet are computed here and
// kept in the grammar's token_class_cache for every later state and matcher.

#include <cstdint>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "runtime/grammar/grammar_stacks.h"
#include "runtime/grammar/token_mask_walk.h"

namespace pagedserve::grammar {

class compiled_grammar;

class state_token_mask {
 public:
  // Writes the mask of `state` (stop tokens left clear). False when a walk ran out of budget
  // (the mask may then lack tokens: do not cache it).
  [[nodiscard]] bool fill(const compiled_grammar& grammar, grammar_stacks& stacks,
                          std::span<const std::uint32_t> state, std::span<std::uint32_t> mask);

 private:
  // The classes of key_ (made of frames and rooted); null if the walk ran out of budget.
  [[nodiscard]] std::shared_ptr<const token_classes> classes_of(
      const compiled_grammar& grammar, std::span<const std::uint32_t> frames, bool rooted);

  std::vector<std::uint32_t> frames_;
  std::string key_;
  std::unordered_set<std::string> seen_;  // keys of this state's classes
  std::vector<sorted_range> uncertain_;
};

}  // namespace pagedserve::grammar
