#include "runtime/chat/jinja/expression_parser.h"

namespace pagedserve::jinja {

// `a, b` without parentheses is a tuple in {{ }} and on the right of `set`.
expr_ptr expression_parser::parse_tuple_or_expression() {
  const int line = peek().line;
  expr_ptr first = parse_expression();
  if (!at_op(",")) return first;
  auto t = make(expr_kind::tuple, line);
  t->args.push_back(std::move(first));
  while (accept_op(",")) {
    if (peek().kind == token_kind::var_end || peek().kind == token_kind::block_end) break;
    t->args.push_back(parse_expression());
  }
  return t;
}

expr_ptr expression_parser::parse_expression() {
  depth_guard guard(*this);
  const int line = peek().line;
  expr_ptr e = parse_or();
  while (accept_name("if")) {
    auto c = make(expr_kind::condition, line);
    c->args.push_back(parse_or());
    c->args.push_back(std::move(e));
    c->args.push_back(accept_name("else") ? parse_expression() : nullptr);
    e = std::move(c);
  }
  return e;
}

expr_ptr expression_parser::binary(std::string op, expr_ptr lhs, expr_ptr rhs, int line) {
  auto b = make(expr_kind::binary, line);
  b->name = std::move(op);
  b->args.push_back(std::move(lhs));
  b->args.push_back(std::move(rhs));
  return b;
}

expr_ptr expression_parser::parse_or() {
  const int line = peek().line;
  expr_ptr e = parse_and();
  while (accept_name("or")) e = binary("or", std::move(e), parse_and(), line);
  return e;
}

expr_ptr expression_parser::parse_and() {
  const int line = peek().line;
  expr_ptr e = parse_not();
  while (accept_name("and")) e = binary("and", std::move(e), parse_not(), line);
  return e;
}

expr_ptr expression_parser::parse_not() {
  const int line = peek().line;
  if (accept_name("not")) {
    depth_guard guard(*this);
    auto u = make(expr_kind::unary, line);
    u->name = "not";
    u->args.push_back(parse_not());
    return u;
  }
  return parse_compare();
}

expr_ptr expression_parser::parse_compare() {
  const int line = peek().line;
  expr_ptr first = parse_math1();
  expr_ptr cmp;
  for (;;) {
    std::string op;
    const token& t = peek();
    if (t.kind == token_kind::op && (t.text == "==" || t.text == "!=" || t.text == "<" ||
                                     t.text == "<=" || t.text == ">" || t.text == ">=")) {
      op = next().text;
    } else if (accept_name("in")) {
      op = "in";
    } else if (at_name("not") && at_name("in", 1)) {
      next();
      next();
      op = "notin";
    } else {
      break;
    }
    if (!cmp) {
      cmp = make(expr_kind::compare, line);
      cmp->args.push_back(std::move(first));
    }
    cmp->ops.push_back(op);
    cmp->args.push_back(parse_math1());
  }
  return cmp ? std::move(cmp) : std::move(first);
}

expr_ptr expression_parser::parse_math1() {
  const int line = peek().line;
  expr_ptr e = parse_concat();
  while (at_op("+") || at_op("-")) {
    std::string op = next().text;
    e = binary(op, std::move(e), parse_concat(), line);
  }
  return e;
}

expr_ptr expression_parser::parse_concat() {
  const int line = peek().line;
  expr_ptr e = parse_math2();
  while (accept_op("~")) e = binary("~", std::move(e), parse_math2(), line);
  return e;
}

expr_ptr expression_parser::parse_math2() {
  const int line = peek().line;
  expr_ptr e = parse_pow();
  while (at_op("*") || at_op("/") || at_op("//") || at_op("%")) {
    std::string op = next().text;
    e = binary(op, std::move(e), parse_pow(), line);
  }
  return e;
}

expr_ptr expression_parser::parse_pow() {
  const int line = peek().line;
  expr_ptr e = parse_unary();
  while (accept_op("**")) e = binary("**", std::move(e), parse_unary(), line);
  return e;
}

// As Jinja: `-x|abs` is `(-x)|abs`; filters bind after the unary operator.
expr_ptr expression_parser::parse_unary(bool with_filter) {
  const int line = peek().line;
  expr_ptr e;
  if (at_op("-") || at_op("+")) {
    depth_guard guard(*this);
    e = make(expr_kind::unary, line);
    e->name = next().text;
    e->args.push_back(parse_unary(false));
  } else {
    e = parse_primary();
  }
  e = parse_postfix(std::move(e));
  return with_filter ? parse_filters(std::move(e)) : std::move(e);
}

expr_ptr parse_primary();
expr_ptr expression_parser::parse_primary() {
  const token t = next();
  auto e = make(expr_kind::literal, t.line);
  switch (t.kind) {
    case token_kind::string: {
      std::string s = t.text;
      while (peek().kind == token_kind::string) s += next().text;  // "a" "b" == "ab"
      e->literal = value(std::move(s));
      return e;
    }
    case token_kind::integer:
      try {
        e->literal = value(static_cast<std::int64_t>(std::stoll(t.text)));
      } catch (const std::out_of_range&) {
        fail("integer literal out of range");
      }
      return e;
    case token_kind::floating:
      e->literal = value(std::stod(t.text));
      return e;
    case token_kind::name:
      if (t.text == "true" || t.text == "True") {
        e->literal = value(true);
      } else if (t.text == "false" || t.text == "False") {
        e->literal = value(false);
      } else if (t.text == "none" || t.text == "None") {
        e->literal = value(none_value{});
      } else {
        e->kind = expr_kind::name;
        e->name = t.text;
      }
      return e;
    case token_kind::op:
      break;
    default:
      fail("unexpected token in expression");
  }
  if (t.text == "(") {
    if (accept_op(")")) {
      e->kind = expr_kind::tuple;
      return e;
    }
    expr_ptr inner = parse_expression();
    if (!at_op(",")) {
      expect_op(")");
      return inner;
    }
    e->kind = expr_kind::tuple;
    e->args.push_back(std::move(inner));
    while (accept_op(",")) {
      if (at_op(")")) break;
      e->args.push_back(parse_expression());
    }
    expect_op(")");
    return e;
  }
  if (t.text == "[") {
    e->kind = expr_kind::list;
    while (!accept_op("]")) {
      if (!e->args.empty()) expect_op(",");
      if (accept_op("]")) break;
      e->args.push_back(parse_expression());
    }
    return e;
  }
  if (t.text == "{") {
    e->kind = expr_kind::dict;
    while (!accept_op("}")) {
      if (!e->args.empty()) expect_op(",");
      if (accept_op("}")) break;
      e->args.push_back(parse_expression());
      expect_op(":");
      e->args.push_back(parse_expression());
    }
    return e;
  }
  fail("unexpected '" + t.text + "'");
}

expr_ptr expression_parser::parse_postfix(expr_ptr e) {
  for (;;) {
    const int line = peek().line;
    if (accept_op(".")) {
      if (peek().kind == token_kind::integer) {  // x.0 is x[0]
        auto idx = make(expr_kind::literal, line);
        idx->literal = value(static_cast<std::int64_t>(std::stoll(next().text)));
        auto s = make(expr_kind::subscript, line);
        s->args.push_back(std::move(e));
        s->args.push_back(std::move(idx));
        e = std::move(s);
        continue;
      }
      auto a = make(expr_kind::attribute, line);
      a->name = expect_name();
      a->args.push_back(std::move(e));
      e = std::move(a);
    } else if (accept_op("[")) {
      e = parse_subscript(std::move(e), line);
    } else if (accept_op("(")) {
      auto c = make(expr_kind::call, line);
      c->args.push_back(std::move(e));
      parse_call_args(*c);
      e = std::move(c);
    } else {
      return e;
    }
  }
}

expr_ptr expression_parser::parse_subscript(expr_ptr target, int line) {
  expr_ptr parts[3];
  int part = 0;
  bool is_slice = false;
  for (;;) {
    if (at_op("]")) break;
    if (accept_op(":")) {
      is_slice = true;
      if (++part > 2) fail("too many ':' in slice");
      continue;
    }
    if (parts[part]) fail("expected ':' or ']'");
    parts[part] = parse_expression();
  }
  expect_op("]");
  auto s = make(is_slice ? expr_kind::slice : expr_kind::subscript, line);
  s->args.push_back(std::move(target));
  if (!is_slice) {
    if (!parts[0]) fail("empty subscript");
    s->args.push_back(std::move(parts[0]));
    return s;
  }
  for (auto& p : parts) s->args.push_back(std::move(p));
  return s;
}

// After '(': positional and keyword arguments up to ')'.
void expression_parser::parse_call_args(expr& e) {
  bool first = true;
  while (!accept_op(")")) {
    if (!first) expect_op(",");
    first = false;
    if (accept_op(")")) break;
    if (peek().kind == token_kind::name && at_op("=", 1)) {
      std::string key = next().text;
      next();
      e.kwargs.emplace_back(std::move(key), parse_expression());
    } else {
      if (!e.kwargs.empty()) fail("positional argument follows keyword argument");
      e.args.push_back(parse_expression());
    }
  }
}

// `| name(args)` and `is [not] name args` after a value (subject null in filter blocks).
expr_ptr expression_parser::parse_filters(expr_ptr subject) {
  for (;;) {
    const int line = peek().line;
    if (accept_op("|")) {
      auto f = make(expr_kind::filter, line);
      f->name = expect_name();
      f->args.push_back(std::move(subject));
      if (accept_op("(")) parse_call_args(*f);
      subject = std::move(f);
    } else if (subject && accept_name("is")) {
      subject = parse_test(std::move(subject));
    } else {
      return subject;
    }
  }
}

expr_ptr expression_parser::parse_test(expr_ptr subject) {
  auto t = make(expr_kind::test, peek().line);
  t->negated = accept_name("not");
  t->name = expect_name();
  t->args.push_back(std::move(subject));
  if (accept_op("(")) {
    parse_call_args(*t);
    return t;
  }
  const token& n = peek();
  const bool starts_arg = n.kind == token_kind::name || n.kind == token_kind::string ||
                          n.kind == token_kind::integer || n.kind == token_kind::floating ||
                          (n.kind == token_kind::op && (n.text == "[" || n.text == "{"));
  if (starts_arg && !at_name("else") && !at_name("or") && !at_name("and") && !at_name("if") &&
      !at_name("in") && !at_name("not") && !at_name("is")) {
    t->args.push_back(parse_postfix(parse_primary()));
  }
  return t;
}
}  // namespace pagedserve::jinja
