#include "runtime/grammar/token_mask_walk.h"

namespace pagedserve::grammar {
namespace {

bool is_subset(const byte_set& a, const byte_set& b) {
  for (std::size_t w = 0; w < a.words.size(); ++w) {
    if ((a.words[w] & ~b.words[w]) != 0) return false;
  }
  return true;
}

void set_bit(std::span<std::uint32_t> mask, token_id id) {
  const auto i = static_cast<std::uint32_t>(id);
  mask[i / 32] |= std::uint32_t{1} << (i % 32);
}

}  // namespace

std::span<const std::uint32_t> token_mask_walk::stacks_of(const level& l) const {
  if (l.id == walk_states::none) return l.own;
  return states_.stacks(l.id);
}

void token_mask_walk::enter(level& to, std::uint32_t id, bool popped_before) {
  to.id = id;
  if (id == walk_states::none) {  // the table is full: the level keeps its own copy
    to.own = scratch_;
    to.next = stacks_->next_bytes(to.own);
    to.popped = popped_before || walk_states::has_context_stack(to.own);
    return;
  }
  to.next = states_.next(id);
  to.popped = popped_before || states_.reaches_context(id);
}

// The transition is remembered most of the time: that path stays inline.
inline bool token_mask_walk::step(const level& from, std::uint8_t b, level& to) {
  if (!from.next.test(b)) return false;
  if (from.id != walk_states::none) {
    const std::uint32_t known = states_.transition(from.id, b);
    if (known < walk_states::unknown) {
      enter(to, known, from.popped);
      return true;
    }
    if (known == walk_states::failed) return false;
  }
  return advance(from, b, to);
}

bool token_mask_walk::advance(const level& from, std::uint8_t b, level& to) {
  const bool ok = stacks_->advance(stacks_of(from), b, scratch_);
  const std::uint32_t id = ok ? states_.intern(*stacks_, scratch_) : walk_states::failed;
  if (from.id != walk_states::none) states_.transition(from.id, b) = id;
  if (ok) enter(to, id, from.popped);
  return ok;
}

const byte_set& token_mask_walk::loop_bytes(std::uint32_t id) {
  if (const byte_set* known = states_.loops(id)) return *known;
  const byte_set next = states_.next(id);  // a copy: stepping may grow the table
  level from;
  from.id = id;
  from.next = next;
  level to;
  byte_set loops;
  for (unsigned b = 0; b < 256; ++b) {
    const auto byte = static_cast<std::uint8_t>(b);
    if (next.test(byte) && step(from, byte, to) && to.id == id) loops.set(byte);
  }
  states_.set_loops(id, loops);
  return *states_.loops(id);
}

template <typename Taken, typename Refused>
bool token_mask_walk::walk(grammar_stacks& stacks, std::span<const std::uint32_t> state,
                           const token_vocabulary& vocabulary, std::span<const sorted_range> ranges,
                           Taken&& taken, Refused&& refused) {
  stacks_ = &stacks;
  states_.reset();
  if (levels_.size() <= vocabulary.max_token_bytes())
    levels_.resize(vocabulary.max_token_bytes() + 1);
  scratch_.assign(state.begin(), state.end());
  enter(levels_[0], states_.intern(stacks, scratch_), false);
  stacks.set_budget(walk_step_budget);
  const std::vector<trie_node>& trie = vocabulary.trie();
  // Only the subtrees of first bytes the state takes, unless it already reached the context
  // (then a refused first byte counts too: classify records it).
  const bool every_first_byte = levels_[0].popped;
  const byte_set first = levels_[0].next;
  std::size_t range = 0;
  bool ranges_left = true;
  for (unsigned b = 0; b < 256 && ranges_left; ++b) {
    const std::uint32_t child = vocabulary.root_child(static_cast<std::uint8_t>(b));
    if (child == 0 || (!every_first_byte && !first.test(static_cast<std::uint8_t>(b)))) continue;
    // Pre-order: a node's parent was taken (else its subtree was skipped), so the level of
    // its depth - 1 holds the state after its prefix's first depth - 1 bytes.
    const std::size_t end = child + trie[child].subtree_size;
    for (std::size_t i = child; i < end;) {
      const trie_node& node = trie[i];
      while (range < ranges.size() && ranges[range].end <= node.sorted_begin) ++range;
      if (range == ranges.size()) {
        ranges_left = false;
        break;
      }
      if (ranges[range].begin >= node.sorted_end) {  // none of its tokens is asked for
        i += node.subtree_size;
        continue;
      }
      const std::size_t depth = node.depth;
      if (!step(levels_[depth - 1], node.byte, levels_[depth])) {
        refused(node, levels_[depth - 1]);
        i += node.subtree_size;
        continue;
      }
      i += taken(i, range, levels_[depth]) ? node.subtree_size : 1;
    }
  }
  const bool complete = !stacks.budget_spent();
  stacks.set_budget(~std::uint64_t{0});
  stacks_ = nullptr;
  return complete;
}

bool token_mask_walk::add_allowed(grammar_stacks& stacks, std::span<const std::uint32_t> state,
                                  const token_vocabulary& vocabulary,
                                  std::span<const sorted_range> ranges,
                                  std::span<std::uint32_t> mask) {
  const auto& sorted = vocabulary.sorted_ids();
  const auto& trie = vocabulary.trie();
  const auto taken = [&](std::size_t i, std::size_t range, const level&) {
    const trie_node& node = trie[i];
    for (std::uint32_t k = node.sorted_begin; k < node.sorted_begin + node.ends; ++k) {
      // Tokens with equal bytes may straddle a range's end.
      while (range < ranges.size() && ranges[range].end <= k) ++range;
      if (range < ranges.size() && ranges[range].begin <= k) set_bit(mask, sorted[k]);
    }
    return false;
  };
  return walk(stacks, state, vocabulary, ranges, taken, [](const trie_node&, const level&) {});
}

std::shared_ptr<const token_classes> token_mask_walk::classify(grammar_stacks& stacks,
                                                               std::span<const std::uint32_t> state,
                                                               const token_vocabulary& vocabulary) {
  const auto& sorted = vocabulary.sorted_ids();
  accepted_.clear();
  std::vector<sorted_range> uncertain;
  const auto& trie = vocabulary.trie();
  // A state that loops on every byte below the node takes all of its tokens (each byte
  // leads back to it): they are accepted without walking the subtree. Only states reached
  // by a loop (the node's own byte led back to its parent's state) are tried, so states
  // that move on with every byte (a bounded repetition's levels) never pay for loop_bytes.
  const auto taken = [&](std::size_t i, std::size_t, const level& at) {
    const trie_node& node = trie[i];
    const bool whole = node.subtree_size >= bulk_min_subtree_ && at.id != walk_states::none &&
                       at.id == levels_[node.depth - 1].id &&
                       is_subset(vocabulary.trie_bytes()[i], loop_bytes(at.id));
    const std::uint32_t end = whole ? node.sorted_end : node.sorted_begin + node.ends;
    for (std::uint32_t k = node.sorted_begin; k < end; ++k) {
      accepted_.push_back(static_cast<std::uint32_t>(sorted[k]));
    }
    return whole;
  };
  // A refused prefix refuses its tokens for good, unless the known frames had popped on the
  // way: the context below them might have taken the byte.
  const auto refused = [&](const trie_node& node, const level& from) {
    if (!from.popped) return;
    if (!uncertain.empty() && uncertain.back().end == node.sorted_begin) {
      uncertain.back().end = node.sorted_end;
    } else {
      uncertain.push_back({node.sorted_begin, node.sorted_end});
    }
  };
  const sorted_range all{0, static_cast<std::uint32_t>(sorted.size())};
  if (!walk(stacks, state, vocabulary, std::span(&all, 1), taken, refused)) return nullptr;
  return std::make_shared<const token_classes>(accepted_, std::move(uncertain), vocabulary.size());
}

}  // namespace pagedserve::grammar
