#include "runtime/grammar/walk_states.h"

namespace pagedserve::grammar {
bool walk_states::has_context_stack(std::span<const std::uint32_t> stacks) {
  // States are sorted: the markers (empty 0, context 1) come first.
  for (const std::uint32_t id : stacks) {
    if (id == stack_pool::context_stack) return true;
    if (id > stack_pool::last_marker) return false;
  }
  return false;
}

std::size_t walk_states::stacks_hash::operator()(const std::vector<std::uint32_t>& v) const {
  std::uint64_t h = 0x9e3779b97f4a7c15ULL ^ v.size();
  for (const std::uint32_t x : v) {
    h ^= x;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 32;
  }
  return static_cast<std::size_t>(h);
}

void walk_states::reset() {
  states_.clear();
  // clear() costs the bucket count, which a large walk leaves high: most walks are small.
  if (ids_.bucket_count() > 256) {
    ids_ = {};
  } else {
    ids_.clear();
  }
  transitions_.clear();  // keeps its memory: walks on this thread reuse it
}

std::uint32_t walk_states::intern(const grammar_stacks& from,
                                  std::span<const std::uint32_t> stacks) {
  std::vector<std::uint32_t> key(stacks.begin(), stacks.end());
  if (const auto it = ids_.find(key); it != ids_.end()) return it->second;
  if (states_.size() >= max_states_) return none;
  const auto id = static_cast<std::uint32_t>(states_.size());
  states_.push_back({key, from.next_bytes(stacks), has_context_stack(stacks), false, {}});
  ids_.emplace(std::move(key), id);
  transitions_.resize(transitions_.size() + 256, unknown);
  return id;
}

}  // namespace pagedserve::grammar
