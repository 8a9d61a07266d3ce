#pragma once
// How a pattern's matches turn into pieces (HF SplitDelimiterBehavior).

#include <cstddef>
#include <string_view>
#include <vector>

#include "runtime/tokenizer/pre_tokenizer.h"

namespace pagedserve {

enum class split_behavior { removed, isolated, merged_with_previous, merged_with_next, contiguous };

// A stretch of a piece: either a match of the pattern or the text between two matches.
struct split_span {
  std::size_t begin = 0;
  std::size_t end = 0;
  bool is_match = false;
};

// Appends to out the pieces of `piece` that `spans` (covering it in order) yield under
// behavior. Empty pieces are dropped.
void emit_splits(const pre_token& piece, const std::vector<split_span>& spans,
                 split_behavior behavior, std::vector<pre_token>& out);

}  // namespace pagedserve
