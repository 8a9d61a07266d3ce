#include "net/openai/reasoning_parser.h"

#include <algorithm>

namespace pagedserve::net {
namespace {

constexpr std::string_view k_start = "<think>";
constexpr std::string_view k_end = "</think>";

// Length of the longest suffix of `text` that is a proper prefix of `tag`.
std::size_t partial_tag_suffix(std::string_view text, std::string_view tag) {
  for (std::size_t n = std::min(text.size(), tag.size() - 1); n > 0; --n) {
    if (tag.starts_with(text.substr(text.size() - n))) return n;
  }
  return 0;
}

}  // namespace

std::optional<reasoning_parser_kind> parse_reasoning_parser(std::string_view name) {
  if (name.empty()) return reasoning_parser_kind::none;
  if (name == "qwen3") return reasoning_parser_kind::qwen3;
  if (name == "deepseek_r1") return reasoning_parser_kind::deepseek_r1;
  return std::nullopt;
}

reasoning_splitter::reasoning_splitter(reasoning_parser_kind kind)
    : state_(kind == reasoning_parser_kind::deepseek_r1 ? state::leading_start_tag
                                                        : state::before_reasoning) {}

split_text reasoning_splitter::push(std::string_view text) {
  held_ += text;
  split_text out;
  advance(out, false);
  return out;
}

split_text reasoning_splitter::flush() {
  split_text out;
  advance(out, true);
  return out;
}

// Moves decided text out of held_, changing state at each tag, until what is left could
// still begin the awaited tag (or, at the end, until nothing is left).
void reasoning_splitter::advance(split_text& out, bool at_end) {
  while (!held_.empty()) {
    if (state_ == state::answer) {
      out.content += held_;
      held_.clear();
      return;
    }
    if (state_ == state::leading_start_tag) {  // deepseek_r1: an optional "<think>" first
      if (held_.starts_with(k_start)) {
        held_.erase(0, k_start.size());
        state_ = state::reasoning;
        continue;
      }
      if (!at_end && k_start.starts_with(held_)) return;  // may still become "<think>"
      state_ = state::reasoning;
      continue;
    }
    const std::string_view tag = state_ == state::before_reasoning ? k_start : k_end;
    std::string& side = state_ == state::before_reasoning ? out.content : out.reasoning;
    const std::size_t at = held_.find(tag);
    if (at != std::string::npos) {
      side += held_.substr(0, at);
      held_.erase(0, at + tag.size());
      state_ = state_ == state::before_reasoning ? state::reasoning : state::answer;
      continue;
    }
    const std::size_t keep = at_end ? 0 : partial_tag_suffix(held_, tag);
    side += held_.substr(0, held_.size() - keep);
    held_.erase(0, held_.size() - keep);
    return;
  }
}

}  // namespace pagedserve::net
