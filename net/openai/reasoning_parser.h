#pragma once
// reasoning_parser: splits a chat completion's text into reasoning and answer at the
// <think> tags, as vLLM's --reasoning-parser does, the same way streamed or not:
//
//   qwen3        content until "<think>", reasoning until "</think>", content after it.
//                Without the tags (enable_thinking false puts an empty pair in the prompt)
//                everything is content.
//   deepseek_r1  the template opens "<think>" in the prompt: reasoning until "</think>",
//                content after it; a "<think>" the model writes itself at the very start is
//                dropped. Without "</think>" (cut by max_tokens) everything is reasoning.
//
// Tags are matched in the text, so a tag split across two pushes is still found: the part
// of the text that could be the start of the awaited tag is held back until it is decided.
// The tags themselves never reach either side. No whitespace is trimmed.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pagedserve::net {

enum class reasoning_parser_kind : std::uint8_t { none, qwen3, deepseek_r1 };

// "" (none), "qwen3", "deepseek_r1"; nullopt for another name.
[[nodiscard]] std::optional<reasoning_parser_kind> parse_reasoning_parser(std::string_view name);

struct split_text {
  std::string reasoning;
  std::string content;
};

class reasoning_splitter {
 public:
  explicit reasoning_splitter(reasoning_parser_kind kind);

  // The text that is decided once `text` is appended.
  [[nodiscard]] split_text push(std::string_view text);
  // At the end: whatever was held back goes to the side it was on.
  [[nodiscard]] split_text flush();

 private:
  enum class state : std::uint8_t { leading_start_tag, before_reasoning, reasoning, answer };
  void advance(split_text& out, bool at_end);

  state state_;
  std::string held_;  // undecided text: could begin the tag awaited in state_
};

}  // namespace pagedserve::net
