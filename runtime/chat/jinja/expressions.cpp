// Expression evaluation with Python operator semantics.

#include <cmath>
#include <limits>

#include "runtime/chat/jinja/format.h"
#include "runtime/chat/jinja/interpreter.h"

namespace pagedserve::jinja {
namespace {

[[noreturn]] void unsupported(const std::string& op, const value& a, const value& b) {
  a.require_defined();
  b.require_defined();
  throw template_error("unsupported operand type(s) for " + op + ": '" + type_name(a) + "' and '" +
                       type_name(b) + "'");
}

// Applies one of the __builtin_*_overflow functions, failing on overflow.
template <class Op>
std::int64_t checked(Op op, std::int64_t x, std::int64_t y) {
  std::int64_t r = 0;
  if (op(x, y, &r)) throw template_error("integer overflow");
  return r;
}

bool add(std::int64_t x, std::int64_t y, std::int64_t* r) {
  return __builtin_add_overflow(x, y, r);
}
bool sub(std::int64_t x, std::int64_t y, std::int64_t* r) {
  return __builtin_sub_overflow(x, y, r);
}
bool mul(std::int64_t x, std::int64_t y, std::int64_t* r) {
  return __builtin_mul_overflow(x, y, r);
}

value repeat(const value& seq, std::int64_t times, std::size_t limit) {
  times = std::max<std::int64_t>(times, 0);
  if (static_cast<std::uint64_t>(times) > limit)
    throw template_error("sequence exceeds the size limit");
  if (seq.is_string()) {
    if (seq.as_string().size() * static_cast<std::size_t>(times) > limit)
      throw template_error("string exceeds the size limit");
    std::string out;
    for (std::int64_t i = 0; i < times; ++i) out += seq.as_string();
    return value(std::move(out));
  }
  const auto& items = seq.as_list()->items;
  if (items.size() * static_cast<std::size_t>(times) > limit)
    throw template_error("list exceeds the size limit");
  std::vector<value> out;
  for (std::int64_t i = 0; i < times; ++i) out.insert(out.end(), items.begin(), items.end());
  return value::list(std::move(out), seq.as_list()->is_tuple);
}

double float_div(double a, double b) {
  if (b == 0) throw template_error("division by zero");
  return a / b;
}

value arithmetic(const std::string& op, const value& a, const value& b,
                 const render_limits& limits) {
  if (a.is_number() && b.is_number()) {
    const bool floats = a.is_float() || b.is_float();
    if (op == "/") return value(float_div(a.to_float(), b.to_float()));
    if (floats) {
      const double x = a.to_float();
      const double y = b.to_float();
      if (op == "+") return value(x + y);
      if (op == "-") return value(x - y);
      if (op == "*") return value(x * y);
      if (op == "**") return value(std::pow(x, y));
      const double q = std::floor(float_div(x, y));
      if (op == "//") return value(q);
      return value(x - q * y);  // Python %: result takes the divisor's sign
    }
    const std::int64_t x = a.to_int();
    const std::int64_t y = b.to_int();
    if (op == "+") return value(checked(add, x, y));
    if (op == "-") return value(checked(sub, x, y));
    if (op == "*") return value(checked(mul, x, y));
    if (op == "**") {
      if (y < 0) return value(std::pow(static_cast<double>(x), static_cast<double>(y)));
      if (x == 0 || x == 1) return value(y == 0 ? std::int64_t{1} : x);
      if (x == -1) return value(y % 2 == 0 ? std::int64_t{1} : std::int64_t{-1});
      std::int64_t acc = 1;  // |x| >= 2: overflows within 63 steps
      for (std::int64_t i = 0; i < y; ++i) acc = checked(mul, acc, x);
      return value(acc);
    }
    if (y == 0) throw template_error("integer division or modulo by zero");
    if (x == std::numeric_limits<std::int64_t>::min() && y == -1)
      throw template_error("integer overflow");
    std::int64_t q = x / y;
    std::int64_t m = x % y;
    if (m != 0 && ((m < 0) != (y < 0))) {
      q -= 1;
      m += y;
    }
    return value(op == "//" ? q : m);
  }
  if (op == "+" && a.is_string() && b.is_string()) {
    if (a.as_string().size() + b.as_string().size() > limits.max_output_bytes)
      throw template_error("string exceeds the size limit");
    return value(a.as_string() + b.as_string());
  }
  if (op == "+" && a.is_list() && b.is_list() && a.as_list()->is_tuple == b.as_list()->is_tuple) {
    if (a.as_list()->items.size() + b.as_list()->items.size() > limits.max_items)
      throw template_error("list exceeds the size limit");
    std::vector<value> items = a.as_list()->items;
    items.insert(items.end(), b.as_list()->items.begin(), b.as_list()->items.end());
    return value::list(std::move(items), a.as_list()->is_tuple);
  }
  if (op == "*" && (a.is_string() || a.is_list()) && (b.is_int() || b.is_bool())) {
    return repeat(a, b.to_int(), a.is_string() ? limits.max_output_bytes : limits.max_items);
  }
  if (op == "*" && (b.is_string() || b.is_list()) && (a.is_int() || a.is_bool())) {
    return repeat(b, a.to_int(), b.is_string() ? limits.max_output_bytes : limits.max_items);
  }
  if (op == "+" && a.is_string() && !b.is_undefined() && !b.is_string()) {
    throw template_error("can only concatenate str (not \"" + type_name(b) + "\") to str");
  }
  unsupported(op, a, b);
}

}  // namespace

value interpreter::eval(const expr& e) {
  switch (e.kind) {
    case expr_kind::literal:
      return e.literal;
    case expr_kind::name:
      return lookup(e.name);
    case expr_kind::list:
    case expr_kind::tuple:
    case expr_kind::dict:
      return eval_collection(e);
    case expr_kind::attribute:
      return get_attribute(eval(*e.args[0]), e.name);
    case expr_kind::subscript:
      return get_item(eval(*e.args[0]), eval(*e.args[1]));
    case expr_kind::slice: {
      auto part = [&](std::size_t i) { return e.args[i] ? eval(*e.args[i]) : value(); };
      return get_slice(eval(*e.args[0]), part(1), part(2), part(3));
    }
    case expr_kind::call:
      return eval_call(e);
    case expr_kind::filter:
      return eval_filter(e);
    case expr_kind::test:
      return eval_test(e);
    case expr_kind::unary: {
      const value v = eval(*e.args[0]);
      if (e.name == "not") return value(!v.truthy());
      if (!v.is_number()) {
        v.require_defined();
        throw template_error("bad operand type for unary " + e.name + ": '" + type_name(v) + "'");
      }
      if (e.name == "+") return v.is_bool() ? value(v.to_int()) : v;
      if (v.is_float()) return value(-v.as_float());
      if (v.to_int() == std::numeric_limits<std::int64_t>::min())
        throw template_error("integer overflow");
      return value(-v.to_int());
    }
    case expr_kind::binary:
      return eval_binary(e);
    case expr_kind::compare:
      return eval_compare(e);
    case expr_kind::condition:
      if (eval(*e.args[0]).truthy()) return eval(*e.args[1]);
      if (e.args[2]) return eval(*e.args[2]);
      return value::undefined(
          "the inline if-expression evaluated to false and no else section was defined.");
  }
  return value();
}

value interpreter::eval_collection(const expr& e) {
  if (e.kind == expr_kind::dict) {
    auto d = std::make_shared<dict_object>();
    for (std::size_t i = 0; i + 1 < e.args.size(); i += 2) {
      const value key = eval(*e.args[i]);
      if (!key.is_string()) throw template_error("dict keys must be strings");
      d->set(key.as_string(), eval(*e.args[i + 1]));
    }
    return value(std::move(d));
  }
  std::vector<value> items;
  items.reserve(e.args.size());
  for (const expr_ptr& item : e.args) items.push_back(eval(*item));
  return value::list(std::move(items), e.kind == expr_kind::tuple);
}

value interpreter::eval_binary(const expr& e) {
  const value a = eval(*e.args[0]);
  if (e.name == "and") return a.truthy() ? eval(*e.args[1]) : a;
  if (e.name == "or") return a.truthy() ? a : eval(*e.args[1]);
  const value b = eval(*e.args[1]);
  if (e.name == "~") {
    std::string s = python_str(a) + python_str(b);
    check_string(s);
    return value(std::move(s));
  }
  return arithmetic(e.name, a, b, limits_);
}

value interpreter::eval_compare(const expr& e) {
  value left = eval(*e.args[0]);
  for (std::size_t i = 0; i < e.ops.size(); ++i) {
    value right = eval(*e.args[i + 1]);
    const std::string& op = e.ops[i];
    bool ok = false;
    if (op == "==")
      ok = equals(left, right);
    else if (op == "!=")
      ok = !equals(left, right);
    else if (op == "<")
      ok = less_than(left, right);
    else if (op == ">")
      ok = less_than(right, left);
    else if (op == "<=")
      ok = less_than(left, right) || equals(left, right);
    else if (op == ">=")
      ok = less_than(right, left) || equals(left, right);
    else if (op == "in")
      ok = contains(right, left);
    else
      ok = !contains(right, left);  // "notin"
    if (!ok) return value(false);
    left = std::move(right);
  }
  return value(true);
}

call_args interpreter::eval_args(const expr& e, std::size_t first_positional) {
  call_args args;
  for (std::size_t i = first_positional; i < e.args.size(); ++i)
    args.positional.push_back(eval(*e.args[i]));
  for (const auto& [k, v] : e.kwargs) args.keyword.emplace_back(k, eval(*v));
  return args;
}

value interpreter::eval_call(const expr& e) {
  const value callee = eval(*e.args[0]);
  call_args args = eval_args(e, 1);
  if (!callee.is_function()) {
    callee.require_defined();
    throw template_error("'" + type_name(callee) + "' object is not callable");
  }
  step();
  return callee.as_function()->fn(args);
}

value interpreter::eval_filter(const expr& e) {
  const value subject = e.args[0] ? eval(*e.args[0]) : *block_subject_;
  call_args args = eval_args(e, 1);
  value v = call_filter(e.name, subject, args, limits_);
  if (v.is_string()) check_string(v.as_string());
  if (v.is_list() && v.as_list()->items.size() > limits_.max_items)
    throw template_error("list exceeds the size limit");
  return v;
}

value interpreter::eval_test(const expr& e) {
  const value subject = eval(*e.args[0]);
  call_args args = eval_args(e, 1);
  const bool ok = call_test(e.name, subject, args);
  return value(ok != e.negated);
}

}  // namespace pagedserve::jinja
