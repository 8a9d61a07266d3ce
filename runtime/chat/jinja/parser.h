#pragma once
// parser: tokens -> statement tree (statements in parser.cpp, expressions with Jinja's
// precedence in expression_parser.cpp).
// Nesting is bounded (max_nesting) so hostile templates cannot overflow the stack.

#include <vector>

#include "common/result.h"
#include "runtime/chat/jinja/ast.h"
#include "runtime/chat/jinja/lexer.h"

namespace pagedserve::jinja {

inline constexpr int max_nesting = 128;

[[nodiscard]] result<body> parse(std::vector<token> tokens);

}  // namespace pagedserve::jinja
