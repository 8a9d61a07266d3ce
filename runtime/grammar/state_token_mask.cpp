#include "runtime/grammar/state_token_mask.h"

#include <algorithm>

#include "runtime/grammar/compiled_grammar_impl.h"

namespace pagedserve::grammar {
namespace {

// One per thread, not per matcher: its tables (up to 4 MiB) serve one walk at a time, and an
// engine holds a matcher per constrained sequence.
token_mask_walk& thread_walk() {
  thread_local token_mask_walk walk;
  return walk;
}

// Sorts the ranges and joins those that overlap or touch.
void merge(std::vector<sorted_range>& ranges) {
  std::sort(ranges.begin(), ranges.end(),
            [](const sorted_range& a, const sorted_range& b) { return a.begin < b.begin; });
  std::size_t out = 0;
  for (const sorted_range& r : ranges) {
    if (out > 0 && r.begin <= ranges[out - 1].end) {
      ranges[out - 1].end = std::max(ranges[out - 1].end, r.end);
    } else {
      ranges[out++] = r;
    }
  }
  ranges.resize(out);
}

}  // namespace

std::shared_ptr<const token_classes> state_token_mask::classes_of(
    const compiled_grammar& grammar, std::span<const std::uint32_t> frames, bool rooted) {
  token_class_cache& cache = grammar.class_cache();
  if (auto found = cache.find(key_)) return found;
  // A pool of its own: the frames alone, on the empty or the context stack.
  grammar_stacks alone(grammar);
  const std::uint32_t stack = alone.push_frames(frames, rooted);
  auto classes = thread_walk().classify(alone, std::span(&stack, 1), grammar.vocabulary());
  if (classes) cache.insert(key_, classes);
  return classes;
}

bool state_token_mask::fill(const compiled_grammar& grammar, grammar_stacks& stacks,
                            std::span<const std::uint32_t> state, std::span<std::uint32_t> mask) {
  std::fill(mask.begin(), mask.end(), 0);
  seen_.clear();
  uncertain_.clear();
  for (const std::uint32_t top : state) {
    if (top <= stack_pool::last_marker) continue;
    bool rooted = false;
    stacks.top_frames(top, context_frames, frames_, rooted);
    token_classes_key(frames_, rooted, key_);
    if (!seen_.insert(key_).second) continue;  // stacks that differ only deeper down
    const auto classes = classes_of(grammar, frames_, rooted);
    if (!classes) return false;
    classes->add_accepted(mask);
    uncertain_.insert(uncertain_.end(), classes->uncertain().begin(), classes->uncertain().end());
  }
  merge(uncertain_);
  return thread_walk().add_allowed(stacks, state, grammar.vocabulary(), uncertain_, mask);
}

}  // namespace pagedserve::grammar
