#pragma once
// ast: the parsed template. Expressions and statements are plain tagged nodes; the parser
// builds them once at compile time and the interpreter only reads them.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runtime/chat/jinja/value.h"

namespace pagedserve::jinja {

struct expr;
using expr_ptr = std::unique_ptr<expr>;

enum class expr_kind {
  literal,    // literal
  name,       // name
  list,       // args: items
  tuple,      // args: items
  dict,       // kwargs: key expressions live in args, values in args too: k0, v0, k1, v1 ...
  attribute,  // args[0].name
  subscript,  // args[0][args[1]]
  slice,      // args[0][args[1]:args[2]:args[3]] (null where omitted)
  call,       // args[0](args[1..], kwargs)
  filter,     // args[0] | name(args[1..], kwargs)
  test,       // args[0] is [not] name(args[1..], kwargs)
  unary,      // name in {"not", "-", "+"} applied to args[0]
  binary,     // args[0] name args[1]; name is an arithmetic op, "~", "and" or "or"
  compare,    // args[0] ops[0] args[1] ops[1] args[2] ... (Python chaining)
  condition,  // args[1] if args[0] else args[2] (args[2] null: undefined)
};

struct expr {
  expr_kind kind = expr_kind::literal;
  value literal;
  std::string name;
  std::vector<expr_ptr> args;
  std::vector<std::pair<std::string, expr_ptr>> kwargs;
  std::vector<std::string>
      ops;               // compare operators: "==", "!=", "<", "<=", ">", ">=", "in", "notin"
  bool negated = false;  // test: `is not`
  int line = 0;
};

struct stmt;
using stmt_ptr = std::unique_ptr<stmt>;
using body = std::vector<stmt_ptr>;

enum class stmt_kind {
  text,        // text
  output,      // {{ expr }}
  if_chain,    // branches: (condition, body) ...; else_body
  for_loop,    // targets in iter [if condition]: body; else_body
  set,         // targets = expr, or (targets[0]).attribute = expr
  set_block,   // {% set targets[0] %}body{% endset %}, optionally filtered by expr
  macro,       // {% macro name(params) %}body{% endmacro %}
  loop_break,  // {% break %}
  loop_continue,
  filter_block,  // {% filter f %}body{% endfilter %}: expr is the filter chain over null
  scope,         // body rendered in place ({% generation %}, {% with %} without assignments)
};

struct macro_param {
  std::string name;
  expr_ptr default_value;  // null: required
};

struct stmt {
  stmt_kind kind = stmt_kind::text;
  std::string text;
  expr_ptr expression;  // output value, loop iterable, set value, loop filter condition below
  expr_ptr condition;   // for-loop `if` filter
  std::vector<std::string> targets;
  std::string attribute;  // set: `set ns.attribute = ...`
  std::vector<std::pair<expr_ptr, body>> branches;
  body children;
  body else_body;
  std::vector<macro_param> params;
  int line = 0;
};

}  // namespace pagedserve::jinja
