#pragma once
// expression_parser: Jinja expressions, by precedence from lowest to highest:
//   a if c else b | or | and | not | comparisons, in, not in | + - | ~ | * / // % | ** |
//   unary - + | primary with .attr [index] [a:b:c] (call) | filters and `is` tests

#include "runtime/chat/jinja/token_stream.h"

namespace pagedserve::jinja {

class expression_parser : public token_stream {
 public:
  using token_stream::token_stream;

 protected:
  expr_ptr parse_tuple_or_expression();
  expr_ptr parse_expression();
  // No conditional expression: a for loop's iterable, where `if` starts the loop filter.
  expr_ptr parse_or();
  // `| name(args)` and `is [not] name args` after a value (subject null in filter blocks).
  expr_ptr parse_filters(expr_ptr subject);
  void parse_call_args(expr& e);

 private:
  expr_ptr binary(std::string op, expr_ptr lhs, expr_ptr rhs, int line);
  expr_ptr parse_and();
  expr_ptr parse_not();
  expr_ptr parse_compare();
  expr_ptr parse_math1();
  expr_ptr parse_concat();
  expr_ptr parse_math2();
  expr_ptr parse_pow();
  expr_ptr parse_unary(bool with_filter = true);
  expr_ptr parse_primary();
  expr_ptr parse_postfix(expr_ptr e);
  expr_ptr parse_subscript(expr_ptr target, int line);
  expr_ptr parse_test(expr_ptr subject);
};

}  // namespace pagedserve::jinja
