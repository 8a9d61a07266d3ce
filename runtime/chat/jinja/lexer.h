#pragma once
// lexer: template source -> tokens, applying Jinja's whitespace rules as transformers
// configures them (trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=False):
//   {%- / {{- / {#-   strip all whitespace before the tag
//   -%} / -}} / -#}   strip all whitespace after the tag
//   trim_blocks       drop the first newline right after a %} or #}   (disabled by +%})
//   lstrip_blocks     drop spaces/tabs between a line start and {% or {#  (disabled by {%+)

#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace pagedserve::jinja {

enum class token_kind {
  text,         // literal template data
  var_begin,    // {{
  var_end,      // }}
  block_begin,  // {%
  block_end,    // %}
  name,
  string,  // text holds the decoded literal
  integer,
  floating,
  op,  // operators and punctuation, e.g. "+", "//", "(", "|"
  eof,
};

struct token {
  token_kind kind = token_kind::eof;
  std::string text;
  int line = 1;
};

[[nodiscard]] result<std::vector<token>> lex(std::string_view source);

}  // namespace pagedserve::jinja
