#pragma once
// gbnf_scanner: the lexical half of the GBNF parser (gbnf_parser.h): whitespace, comments
// and line continuation, names, literals, classes and repetition bounds. Errors are recorded
// once with the line they occur on; every scan_ function returns false after one.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "runtime/grammar/utf8_sequences.h"

namespace pagedserve::grammar {

class gbnf_scanner {
 public:
  explicit gbnf_scanner(std::string_view text) : text_(text) {}

  [[nodiscard]] bool at_end() const { return pos_ >= text_.size(); }
  [[nodiscard]] char peek(std::size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }
  void advance(std::size_t n = 1) { pos_ += n; }
  [[nodiscard]] bool consume(std::string_view s);

  // Skips blanks and comments. A newline is skipped when newline_ok, or when the rule goes
  // on: the next non-blank line neither starts a new `name ::=` nor is the end of input.
  void skip_space(bool newline_ok);

  [[nodiscard]] std::string_view scan_name();  // [a-zA-Z0-9_-]+, empty when none
  // At the opening quote: the literal's bytes (escapes as UTF-8).
  [[nodiscard]] bool scan_literal(std::vector<std::uint8_t>& out);
  // At '[': the code points listed, and whether the class is negated.
  [[nodiscard]] bool scan_class(std::vector<code_point_range>& out, bool& negated);
  // At '{': m and n of {m}, {m,} (no n) or {m,n}.
  [[nodiscard]] bool scan_repetition(std::size_t& min, std::optional<std::size_t>& max);

  [[nodiscard]] std::size_t line() const { return line_at(pos_); }
  [[nodiscard]] std::size_t line_at(std::size_t pos) const;
  // Records "line N: message" (the first error wins) and returns false.
  bool fail(const std::string& message);
  [[nodiscard]] const std::optional<error>& failure() const { return error_; }

 private:
  [[nodiscard]] bool starts_rule_or_end(std::size_t pos) const;
  [[nodiscard]] bool scan_escape(char32_t& cp);
  [[nodiscard]] bool scan_class_char(char32_t& cp);
  [[nodiscard]] bool scan_number(std::size_t& value);

  std::string_view text_;
  std::size_t pos_ = 0;
  std::optional<error> error_;
  mutable std::size_t counted_pos_ = 0;  // line_at's memo: the line of this position
  mutable std::size_t counted_line_ = 1;
};

}  // namespace pagedserve::grammar
