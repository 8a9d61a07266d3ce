#pragma once
// token_mask_walk: which tokens' bytes a state can take, found by walking the vocabulary
// trie (vocabulary_trie.h) depth first. Tokens sharing a prefix share its advance: the walk
// keeps the state after every byte of the current path. When a byte fails (most are not
// even tried: the state's next bytes rule them out), the whole subtree below it is skipped
// in one step, so a walk costs the prefixes the state takes, not the vocabulary's size.

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "runtime/grammar/byte_set.h"
#include "runtime/grammar/grammar_stacks.h"
#include "runtime/grammar/token_classes.h"
#include "runtime/grammar/token_vocabulary.h"
#include "runtime/grammar/walk_states.h"

namespace pagedserve::grammar {

class token_mask_walk {
 public:
  // max_states: how many states a walk remembers (walk_states.h); bulk_min_subtree: the
  // smallest subtree (in nodes) that classify takes whole where its state loops.
  explicit token_mask_walk(std::size_t max_states = 4096, std::uint32_t bulk_min_subtree = 8)
      : states_(max_states), bulk_min_subtree_(bulk_min_subtree) {}

  // Sets the bit of every token among `ranges` (ascending, disjoint sorted ranges) whose
  // bytes the state can take in full; other bits are left as they are (stop tokens and
  // tokens without bytes are left to the caller). False when the step budget ran out part
  // way (some tokens may lack their bit: do not cache the mask).
  [[nodiscard]] bool add_allowed(grammar_stacks& stacks, std::span<const std::uint32_t> state,
                                 const token_vocabulary& vocabulary,
                                 std::span<const sorted_range> ranges,
                                 std::span<std::uint32_t> mask);

  // The classes of every token for a state of one stack made by grammar_stacks::push_frames
  // (token_classes.h). Null when the step budget ran out.
  [[nodiscard]] std::shared_ptr<const token_classes> classify(grammar_stacks& stacks,
                                                              std::span<const std::uint32_t> state,
                                                              const token_vocabulary& vocabulary);

 private:
  struct level {
    std::uint32_t id = walk_states::none;  // in states_; none: the state is in `own`
    std::vector<std::uint32_t> own;
    byte_set next;        // bytes the state can take: most failing bytes stop here
    bool popped = false;  // this state or one before it on the path reached the context
  };
  // Walks the trie nodes that hold tokens of `ranges`; calls taken(node index, range, its
  // level) for each node whose prefix the state takes (true: its whole subtree was taken, skip
  // it) and refused(node, parent level) for each whose it does not.
  template <typename Taken, typename Refused>
  bool walk(grammar_stacks& stacks, std::span<const std::uint32_t> state,
            const token_vocabulary& vocabulary, std::span<const sorted_range> ranges, Taken&& taken,
            Refused&& refused);
  // Advances `from` by b into `to` (remembered transitions first); false if b is refused.
  bool step(const level& from, std::uint8_t b, level& to);
  // step's slow path: the grammar_stacks advance, remembered.
  bool advance(const level& from, std::uint8_t b, level& to);
  // Makes `to` the state `id` (or scratch_'s, when id is none).
  void enter(level& to, std::uint32_t id, bool popped_before);
  [[nodiscard]] std::span<const std::uint32_t> stacks_of(const level& l) const;
  // The bytes that lead state id back to itself (every transition of it taken once).
  const byte_set& loop_bytes(std::uint32_t id);

  grammar_stacks* stacks_ = nullptr;  // during a walk
  walk_states states_;
  std::uint32_t bulk_min_subtree_;
  std::vector<std::uint32_t> scratch_;
  std::vector<std::uint32_t> accepted_;  // classify's accepted token ids
  std::vector<level> levels_;  // levels_[d]: the state after the current path's first d bytes
};

// Work allowed to one walk before it gives up on the tokens left (hostile grammars).
inline constexpr std::uint64_t walk_step_budget = 50'000'000;

}  // namespace pagedserve::grammar
