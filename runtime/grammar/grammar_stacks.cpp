#include "runtime/grammar/grammar_stacks.h"

#include <algorithm>

#include "runtime/grammar/compiled_grammar_impl.h"

namespace pagedserve::grammar {

bool grammar_stacks::initial(std::vector<std::uint32_t>& out) {
  out.clear();
  for (const std::uint32_t start : grammar_.alternatives(grammar_.root())) {
    if (!expand(start, stack_pool::empty_stack, out)) return false;
  }
  return finish(out);
}

bool grammar_stacks::advance(std::span<const std::uint32_t> state, std::uint8_t b,
                             std::vector<std::uint32_t>& out) {
  out.clear();
  for (const std::uint32_t id : state) {
    if (id <= stack_pool::last_marker) continue;
    const stack_node node = pool_[id];
    if (grammar_.bytes_at(node.pos).test(b) && !expand(node.pos + 1, node.parent, out)) {
      return false;
    }
  }
  return finish(out) && !out.empty();
}

bool grammar_stacks::finish(std::vector<std::uint32_t>& out) const {
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out.size() <= bounds_.max_stacks;
}

// Expands the stack "pos on top of parent" into stacks topped by bytes elements, appended
// to out. Iterative: a chain of thousands of rules must not recurse thousands deep.
bool grammar_stacks::expand(std::uint32_t pos, std::uint32_t parent,
                            std::vector<std::uint32_t>& out) {
  work_.clear();
  work_.push_back({pos, parent});
  std::uint64_t steps = 0;
  while (!work_.empty()) {
    if (++steps > bounds_.max_steps_per_advance || budget_ == 0) return false;
    --budget_;
    const item it = work_.back();
    work_.pop_back();
    const grammar_element& e = grammar_.element(it.pos);
    switch (e.kind) {
      case element_kind::bytes:
        if (pool_[it.parent].depth >= bounds_.max_stack_depth) return false;
        out.push_back(pool_.intern(it.pos, it.parent));
        if (out.size() > 4 * bounds_.max_stacks) return false;
        break;
      case element_kind::end:
        if (it.parent <= stack_pool::last_marker) {
          out.push_back(it.parent);  // the root rule is complete, or the known frames popped
        } else {
          const stack_node frame = pool_[it.parent];
          work_.push_back({frame.pos, frame.parent});
        }
        break;
      case element_kind::rule: {
        std::uint32_t frame = it.parent;
        if (grammar_.element(it.pos + 1).kind != element_kind::end) {
          if (pool_[it.parent].depth >= bounds_.max_stack_depth) return false;
          frame = pool_.intern(it.pos + 1, it.parent);
        }
        for (const std::uint32_t start : grammar_.alternatives(e.value)) {
          work_.push_back({start, frame});
        }
        break;
      }
    }
  }
  return true;
}

byte_set grammar_stacks::next_bytes(std::span<const std::uint32_t> state) const {
  byte_set out;
  for (const std::uint32_t id : state) {
    if (id > stack_pool::last_marker) out |= grammar_.bytes_at(pool_[id].pos);
  }
  return out;
}

void grammar_stacks::state_key(std::span<const std::uint32_t> state, std::string& key) {
  key_positions_.clear();
  key_ranges_.clear();
  for (const std::uint32_t top : state) {
    const auto begin = static_cast<std::uint32_t>(key_positions_.size());
    for (std::uint32_t id = top; id != stack_pool::empty_stack; id = pool_[id].parent) {
      key_positions_.push_back(pool_[id].pos);
    }
    key_ranges_.emplace_back(begin, static_cast<std::uint32_t>(key_positions_.size()));
  }
  const auto& positions = key_positions_;
  std::sort(key_ranges_.begin(), key_ranges_.end(), [&](const auto& a, const auto& b) {
    return std::lexicographical_compare(positions.begin() + a.first, positions.begin() + a.second,
                                        positions.begin() + b.first, positions.begin() + b.second);
  });
  key.clear();
  const auto append = [&](std::uint32_t v) { key.append(reinterpret_cast<const char*>(&v), 4); };
  for (const auto& [begin, end] : key_ranges_) {
    for (std::uint32_t i = begin; i < end; ++i) append(positions[i]);
    append(~std::uint32_t{0});  // no position is this large: stacks stay apart
  }
}

void grammar_stacks::top_frames(std::uint32_t top, std::size_t max_frames,
                                std::vector<std::uint32_t>& positions, bool& rooted) const {
  positions.clear();
  std::uint32_t id = top;
  for (; id > stack_pool::last_marker && positions.size() < max_frames; id = pool_[id].parent) {
    positions.push_back(pool_[id].pos);
  }
  rooted = id == stack_pool::empty_stack;
}

std::uint32_t grammar_stacks::push_frames(std::span<const std::uint32_t> top_first, bool rooted) {
  std::uint32_t id = rooted ? stack_pool::empty_stack : stack_pool::context_stack;
  for (auto it = top_first.rbegin(); it != top_first.rend(); ++it) id = pool_.intern(*it, id);
  return id;
}

void grammar_stacks::compact(std::vector<std::uint32_t>& state, std::size_t max_nodes) {
  if (pool_.size() <= max_nodes) return;
  std::vector<std::vector<std::uint32_t>> stacks;
  for (const std::uint32_t top : state) {
    std::vector<std::uint32_t> positions;
    for (std::uint32_t id = top; id != stack_pool::empty_stack; id = pool_[id].parent) {
      positions.push_back(pool_[id].pos);
    }
    stacks.push_back(std::move(positions));
  }
  pool_.clear();
  state.clear();
  for (const auto& positions : stacks) {
    std::uint32_t id = stack_pool::empty_stack;
    for (auto it = positions.rbegin(); it != positions.rend(); ++it) id = pool_.intern(*it, id);
    state.push_back(id);
  }
  std::sort(state.begin(), state.end());
}

}  // namespace pagedserve::grammar
