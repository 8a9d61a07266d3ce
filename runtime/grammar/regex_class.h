#pragma once
// Escapes and [classes] of the regex subset (regex_grammar.cpp). Internal to runtime/grammar.

#include <string_view>

#include "common/result.h"
#include "runtime/grammar/gbnf_text.h"

namespace pagedserve::grammar {

enum class escape_context { outside_class, inside_class };

// An escape stands for one code point (\n, \x41, \.) or a set (\d, \s, \W).
struct regex_escape {
  bool is_set = false;
  code_point_set set;
  char32_t cp = 0;
};

// Parses the escape at pattern[pos] == '\\' and advances pos past it. Errors: unsupported
// for backreferences, \b outside a class, \p; invalid_argument for a truncated escape.
[[nodiscard]] result<regex_escape> parse_escape(std::string_view pattern, std::size_t& pos,
                                                escape_context context);
// Parses the class at pattern[pos] == '[' and advances pos past its ']'.
[[nodiscard]] result<code_point_set> parse_class(std::string_view pattern, std::size_t& pos);

}  // namespace pagedserve::grammar
