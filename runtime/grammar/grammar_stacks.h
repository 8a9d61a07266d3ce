#pragma once
// grammar_stacks: the pushdown automaton that matches bytes. A state is a sorted set of
// stacks (stack_pool ids) whose top frames are all at bytes elements, or the empty stack (or,
// when token classes are computed, the context stack); advancing by a byte keeps the stacks
// whose top set holds it, moves past that element and expands rule references and
// alternative ends until every stack again tops on bytes.
//
// Frames are pushed only for what is left after a reference; a reference that ends its
// alternative pushes nothing (a tail call), so right recursion (x*, and the nested
// optionals of x{m,n}) matches in constant depth and the state repeats.
//
// Runtime bounds, so that no grammar can hang a step: a state has at most max_stacks
// stacks, a stack at most max_stack_depth frames, and expansion is charged against a step
// budget. Passing any bound makes the advance fail: the byte (and so the token) is not
// allowed.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "runtime/grammar/byte_set.h"
#include "runtime/grammar/stack_pool.h"

namespace pagedserve::grammar {

class compiled_grammar;

struct stack_bounds {
  std::size_t max_stacks = 10'000;
  std::uint32_t max_stack_depth = 4'096;
  std::uint64_t max_steps_per_advance = 200'000;
};

class grammar_stacks {
 public:
  explicit grammar_stacks(const compiled_grammar& grammar, stack_bounds bounds = {})
      : grammar_(grammar), bounds_(bounds) {}

  // The state before any byte; false if a bound is hit (nothing is ever allowed then).
  [[nodiscard]] bool initial(std::vector<std::uint32_t>& out);
  // The state after byte b; false, out unspecified, if no stack takes b or a bound is hit.
  [[nodiscard]] bool advance(std::span<const std::uint32_t> state, std::uint8_t b,
                             std::vector<std::uint32_t>& out);

  // The bytes some stack of the state can take next.
  [[nodiscard]] byte_set next_bytes(std::span<const std::uint32_t> state) const;
  [[nodiscard]] static bool is_accepting(std::span<const std::uint32_t> state) {
    return !state.empty() && state.front() == stack_pool::empty_stack;
  }
  // The state's stacks as positions, sorted, independent of node ids: the same for every
  // matcher in the same state (the mask cache key).
  void state_key(std::span<const std::uint32_t> state, std::string& key);

  // The positions of the top max_frames frames of stack `top`, top first; rooted when they
  // are all of its frames (nothing below them: the stack is known in full).
  void top_frames(std::uint32_t top, std::size_t max_frames, std::vector<std::uint32_t>& positions,
                  bool& rooted) const;
  // The stack of `top_first`'s frames, on the empty stack when rooted, else on
  // stack_pool::context_stack (an unknown context, token_classes.h).
  [[nodiscard]] std::uint32_t push_frames(std::span<const std::uint32_t> top_first, bool rooted);

  // Spending: an overall budget of expansion steps (a mask walk sets one); when spent, every
  // advance fails until it is reset.
  void set_budget(std::uint64_t steps) { budget_ = steps; }
  [[nodiscard]] bool budget_spent() const { return budget_ == 0; }

  // Drops the nodes no stack of `state` uses once the pool is past max_nodes; renumbers
  // `state`. The pool grows with every state seen, and a long generation sees many.
  void compact(std::vector<std::uint32_t>& state, std::size_t max_nodes);

 private:
  bool expand(std::uint32_t pos, std::uint32_t parent, std::vector<std::uint32_t>& out);
  bool finish(std::vector<std::uint32_t>& out) const;

  const compiled_grammar& grammar_;
  stack_bounds bounds_;
  stack_pool pool_;
  std::uint64_t budget_ = ~std::uint64_t{0};
  struct item {
    std::uint32_t pos;
    std::uint32_t parent;
  };
  std::vector<item> work_;
  std::vector<std::uint32_t> key_positions_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> key_ranges_;
};

}  // namespace pagedserve::grammar
