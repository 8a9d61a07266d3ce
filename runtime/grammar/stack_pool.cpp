#include "runtime/grammar/stack_pool.h"

namespace pagedserve::grammar {
namespace {

std::size_t hash_of(std::uint32_t pos, std::uint32_t parent) {
  std::uint64_t h = (std::uint64_t{pos} << 32) | parent;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  return static_cast<std::size_t>(h);
}

}  // namespace

void stack_pool::clear() {
  nodes_.assign(1, stack_node{});
  nodes_.push_back({~std::uint32_t{0}, empty_stack, 0});  // context_stack: never interned
  slots_.assign(1024, 0);
}

std::uint32_t stack_pool::intern(std::uint32_t pos, std::uint32_t parent) {
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = hash_of(pos, parent) & mask;; i = (i + 1) & mask) {
    const std::uint32_t slot = slots_[i];
    if (slot == 0) {
      const auto id = static_cast<std::uint32_t>(nodes_.size());
      nodes_.push_back({pos, parent, nodes_[parent].depth + 1});
      slots_[i] = id + 1;
      if (nodes_.size() * 2 > slots_.size()) grow();
      return id;
    }
    const stack_node& node = nodes_[slot - 1];
    if (node.pos == pos && node.parent == parent) return slot - 1;
  }
}

void stack_pool::grow() {
  slots_.assign(slots_.size() * 2, 0);
  const std::size_t mask = slots_.size() - 1;
  for (std::uint32_t id = last_marker + 1; id < nodes_.size(); ++id) {
    std::size_t i = hash_of(nodes_[id].pos, nodes_[id].parent) & mask;
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = id + 1;
  }
}

}  // namespace pagedserve::grammar
