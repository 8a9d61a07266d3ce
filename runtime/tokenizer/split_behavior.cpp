#include "runtime/tokenizer/split_behavior.h"

#include <algorithm>

namespace pagedserve {

namespace {

struct kept_span {
  std::size_t begin;
  std::size_t end;
  bool remove;
};

// Mirrors NormalizedString::split: folds the spans according to behavior; `remove` marks the
// spans that Removed drops.
std::vector<kept_span> fold(const std::vector<split_span>& spans, split_behavior behavior) {
  std::vector<kept_span> out;
  out.reserve(spans.size());
  bool previous_match = false;
  switch (behavior) {
    case split_behavior::removed:
      for (const auto& s : spans) out.push_back({s.begin, s.end, s.is_match});
      break;
    case split_behavior::isolated:
      for (const auto& s : spans) out.push_back({s.begin, s.end, false});
      break;
    case split_behavior::contiguous:
      for (const auto& s : spans) {
        if (s.is_match == previous_match && !out.empty()) {
          out.back().end = s.end;
        } else {
          out.push_back({s.begin, s.end, false});
        }
        previous_match = s.is_match;
      }
      break;
    case split_behavior::merged_with_previous:
      for (const auto& s : spans) {
        if (s.is_match && !previous_match && !out.empty()) {
          out.back().end = s.end;
        } else {
          out.push_back({s.begin, s.end, false});
        }
        previous_match = s.is_match;
      }
      break;
    case split_behavior::merged_with_next:
      for (auto it = spans.rbegin(); it != spans.rend(); ++it) {
        if (it->is_match && !previous_match && !out.empty()) {
          out.back().begin = it->begin;
        } else {
          out.push_back({it->begin, it->end, false});
        }
        previous_match = it->is_match;
      }
      std::reverse(out.begin(), out.end());
      break;
  }
  return out;
}

}  // namespace

void emit_splits(const pre_token& piece, const std::vector<split_span>& spans,
                 split_behavior behavior, std::vector<pre_token>& out) {
  for (const kept_span& s : fold(spans, behavior)) {
    if (s.remove || s.end <= s.begin) continue;
    out.push_back({piece.text.substr(s.begin, s.end - s.begin), piece.at_origin && s.begin == 0});
  }
}

}  // namespace pagedserve
