#pragma once
// The ECMAScript regex subset of regex_to_gbnf as one GBNF expression, for the regex
// structured output and for JSON Schema's `pattern`. Internal to runtime/grammar.

#include <string>
#include <string_view>

#include "common/result.h"

namespace pagedserve::grammar {

// How the matched text is written.
enum class regex_text {
  raw,           // the characters themselves
  json_content,  // as the content of a JSON string: " \ and control characters escaped
};

// A GBNF expression (no rules of its own) matching exactly the texts the whole of `pattern`
// matches. Errors: unsupported naming the construct; invalid_argument with the offset.
[[nodiscard]] result<std::string> regex_to_gbnf_expression(std::string_view pattern,
                                                           regex_text text);

}  // namespace pagedserve::grammar
