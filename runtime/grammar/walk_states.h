#pragma once
// walk_states: the states one token-mask walk meets, interned, with the transitions between
// them remembered. A walk advances the same few states by the same bytes over and over (in a
// JSON string, every character leads back to the same state), so after the first time an
// advance is a table lookup. Valid for one walk (the stack ids are its grammar_stacks' at
// the time): reset() before each.

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "runtime/grammar/byte_set.h"
#include "runtime/grammar/grammar_stacks.h"

namespace pagedserve::grammar {

class walk_states {
 public:
  static constexpr std::uint32_t none = ~std::uint32_t{0};  // a state not interned (full)
  static constexpr std::uint32_t failed = none - 1;         // a transition to no state
  static constexpr std::uint32_t unknown = none - 2;        // a transition not taken yet

  // 1 KiB of transitions per state: 4 MiB at most by default, kept by the thread's walks
  // (state_token_mask) from one walk to the next.
  explicit walk_states(std::size_t max_states = 4096) : max_states_(max_states) {}

  void reset();

  // Whether a (sorted) state holds stack_pool::context_stack.
  [[nodiscard]] static bool has_context_stack(std::span<const std::uint32_t> stacks);

  // The id of `stacks` (a state of `from`'s grammar_stacks), interning it; none when the
  // table holds max_states already.
  [[nodiscard]] std::uint32_t intern(const grammar_stacks& from,
                                     std::span<const std::uint32_t> stacks);

  [[nodiscard]] const std::vector<std::uint32_t>& stacks(std::uint32_t id) const {
    return states_[id].stacks;
  }
  [[nodiscard]] const byte_set& next(std::uint32_t id) const { return states_[id].next; }
  [[nodiscard]] bool reaches_context(std::uint32_t id) const { return states_[id].context; }
  // The bytes that lead from state id back to itself, once set_loops has been called.
  [[nodiscard]] const byte_set* loops(std::uint32_t id) const {
    return states_[id].loops_known ? &states_[id].loops : nullptr;
  }
  void set_loops(std::uint32_t id, const byte_set& loops) {
    states_[id].loops = loops;
    states_[id].loops_known = true;
  }
  // Where byte b leads from state id: another id, failed, none (not interned) or unknown.
  [[nodiscard]] std::uint32_t& transition(std::uint32_t id, std::uint8_t b) {
    return transitions_[std::size_t{id} * 256 + b];
  }

 private:
  struct state {
    std::vector<std::uint32_t> stacks;
    byte_set next;
    bool context = false;
    bool loops_known = false;
    byte_set loops;
  };
  struct stacks_hash {
    std::size_t operator()(const std::vector<std::uint32_t>& v) const;
  };
  std::size_t max_states_;
  std::vector<state> states_;
  std::vector<std::uint32_t> transitions_;
  std::unordered_map<std::vector<std::uint32_t>, std::uint32_t, stacks_hash> ids_;
};

}  // namespace pagedserve::grammar
