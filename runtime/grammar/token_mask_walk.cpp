#include "runtime/grammar/token_mask_walk.h"

#include <algorithm>

namespace pagedserve::grammar {

bool token_mask_walk::fill(grammar_stacks& stacks, std::span<const std::uint32_t> state,
                           const token_vocabulary& vocabulary, std::span<std::uint32_t> mask) {
  std::fill(mask.begin(), mask.end(), 0);
  if (levels_.empty()) levels_.resize(1);
  levels_[0].state.assign(state.begin(), state.end());
  levels_[0].next = stacks.next_bytes(state);
  stacks.set_budget(walk_step_budget);
  const auto& sorted = vocabulary.sorted_ids();
  const auto& shared = vocabulary.shared_prefix();
  // Invariant: levels_[0..valid] hold the states after the previous token's first bytes; the
  // byte after them (if the previous token had one) failed.
  std::size_t valid = 0;
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    if (shared[i] > valid) continue;  // shares the byte that failed
    const std::string& bytes = vocabulary.bytes(sorted[i]);
    std::size_t depth = shared[i];
    for (; depth < bytes.size(); ++depth) {
      const auto b = static_cast<std::uint8_t>(bytes[depth]);
      if (!levels_[depth].next.test(b)) break;
      if (levels_.size() <= depth + 1) levels_.resize(depth + 2);
      level& next = levels_[depth + 1];
      if (!stacks.advance(levels_[depth].state, b, next.state)) break;
      next.next = stacks.next_bytes(next.state);
    }
    valid = depth;
    if (depth == bytes.size()) {
      const auto id = static_cast<std::uint32_t>(sorted[i]);
      mask[id / 32] |= std::uint32_t{1} << (id % 32);
    }
  }
  const bool complete = !stacks.budget_spent();
  stacks.set_budget(~std::uint64_t{0});
  return complete;
}

}  // namespace pagedserve::grammar
