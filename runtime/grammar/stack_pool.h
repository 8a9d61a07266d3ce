#pragma once
// stack_pool: the stacks of a matcher as a persistent tree (as xgrammar's persistent stack
// tree, llama.cpp's stacks without the copies). A node is a grammar position on top of a
// parent node; a stack is its top node. Nodes are interned, so two stacks are equal exactly
// when their ids are: deduplicating a state is sorting its ids.
//
// Node 0 is the empty stack: the root rule is complete. Node 1 stands for an unknown context:
// the frames below those a token_classes computation looks at (token_classes.h). A stack
// that pops down to it is reported as itself; it takes no byte.

#include <cstdint>
#include <vector>

namespace pagedserve::grammar {

struct stack_node {
  std::uint32_t pos = 0;     // element position (compiled_grammar_impl.h)
  std::uint32_t parent = 0;  // node below; 0 for the bottom frame
  std::uint32_t depth = 0;   // frames in the stack, this one included
};

class stack_pool {
 public:
  static constexpr std::uint32_t empty_stack = 0;
  static constexpr std::uint32_t context_stack = 1;
  // Ids at or below this are the two markers above, with no frame to match.
  static constexpr std::uint32_t last_marker = context_stack;

  stack_pool() { clear(); }

  // The node for `pos` on top of `parent`, the same id every time it is asked for.
  [[nodiscard]] std::uint32_t intern(std::uint32_t pos, std::uint32_t parent);
  [[nodiscard]] const stack_node& operator[](std::uint32_t id) const { return nodes_[id]; }
  [[nodiscard]] std::size_t size() const { return nodes_.size(); }
  void clear();

 private:
  void grow();

  std::vector<stack_node> nodes_;
  // Open addressing on (pos, parent); a slot holds a node id + 1, 0 when free.
  std::vector<std::uint32_t> slots_;
};

}  // namespace pagedserve::grammar
