#include "runtime/chat/jinja/value.h"

#include <algorithm>

namespace pagedserve::jinja {
namespace {

int nested_in(int item_nesting) {
  if (item_nesting >= max_value_nesting) {
    throw template_error("value nested deeper than " + std::to_string(max_value_nesting) +
                         " levels");
  }
  return item_nesting + 1;
}

}  // namespace

int nesting_of(const value& v) {
  if (v.is_list()) return v.as_list()->nesting;
  if (v.is_dict()) return v.as_dict()->nesting;
  return 0;
}

const value* dict_object::find(std::string_view key) const {
  for (const auto& [k, v] : entries) {
    if (k == key) return &v;
  }
  return nullptr;
}

void dict_object::set(std::string key, value v) {
  nesting = std::max(nesting, nested_in(nesting_of(v)));
  for (auto& [k, old] : entries) {
    if (k == key) {
      old = std::move(v);
      return;
    }
  }
  entries.emplace_back(std::move(key), std::move(v));
}

value value::list(std::vector<value> items, bool is_tuple) {
  auto l = std::make_shared<list_object>();
  for (const value& item : items) l->nesting = std::max(l->nesting, nested_in(nesting_of(item)));
  l->items = std::move(items);
  l->is_tuple = is_tuple;
  return value(std::move(l));
}

value value::dict() { return value(std::make_shared<dict_object>()); }

value value::function(std::string name, std::function<value(call_args&)> fn) {
  auto f = std::make_shared<function_object>();
  f->name = std::move(name);
  f->fn = std::move(fn);
  return value(std::move(f));
}

double value::to_float() const {
  if (is_float()) return as_float();
  return static_cast<double>(to_int());
}

bool value::truthy() const {
  switch (type()) {
    case kind::undefined:
    case kind::none:
      return false;
    case kind::boolean:
      return as_bool();
    case kind::integer:
      return as_int() != 0;
    case kind::floating:
      return as_float() != 0.0;
    case kind::string:
      return !as_string().empty();
    case kind::list:
      return !as_list()->items.empty();
    case kind::dict:
      return !as_dict()->entries.empty();
    case kind::function:
      return true;
  }
  return false;
}

const value& value::require_defined() const {
  if (is_undefined()) throw template_error(undefined_hint());
  return *this;
}

bool equals(const value& a, const value& b) {
  if (a.is_number() && b.is_number()) {
    if (a.is_float() || b.is_float()) return a.to_float() == b.to_float();
    return a.to_int() == b.to_int();
  }
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case value::kind::undefined:
    case value::kind::none:
      return true;
    case value::kind::string:
      return a.as_string() == b.as_string();
    case value::kind::list: {
      const auto& x = a.as_list()->items;
      const auto& y = b.as_list()->items;
      if (a.as_list()->is_tuple != b.as_list()->is_tuple || x.size() != y.size()) return false;
      for (std::size_t i = 0; i < x.size(); ++i) {
        if (!equals(x[i], y[i])) return false;
      }
      return true;
    }
    case value::kind::dict: {
      const auto& x = *a.as_dict();
      const auto& y = *b.as_dict();
      if (x.is_namespace || y.is_namespace) return &x == &y;
      if (x.entries.size() != y.entries.size()) return false;
      for (const auto& [k, v] : x.entries) {
        const value* other = y.find(k);
        if (other == nullptr || !equals(v, *other)) return false;
      }
      return true;
    }
    case value::kind::function:
      return a.as_function() == b.as_function();
    default:
      return false;
  }
}

bool less_than(const value& a, const value& b) {
  if (a.is_number() && b.is_number()) {
    if (a.is_float() || b.is_float()) return a.to_float() < b.to_float();
    return a.to_int() < b.to_int();
  }
  if (a.is_string() && b.is_string()) return a.as_string() < b.as_string();  // UTF-8 byte order
  if (a.is_list() && b.is_list()) {                                          // == code point order
    const auto& x = a.as_list()->items;
    const auto& y = b.as_list()->items;
    for (std::size_t i = 0; i < x.size() && i < y.size(); ++i) {
      if (!equals(x[i], y[i])) return less_than(x[i], y[i]);
    }
    return x.size() < y.size();
  }
  a.require_defined();
  b.require_defined();
  throw template_error("'<' not supported between instances of '" + type_name(a) + "' and '" +
                       type_name(b) + "'");
}

std::string type_name(const value& v) {
  switch (v.type()) {
    case value::kind::undefined:
      return "Undefined";
    case value::kind::none:
      return "NoneType";
    case value::kind::boolean:
      return "bool";
    case value::kind::integer:
      return "int";
    case value::kind::floating:
      return "float";
    case value::kind::string:
      return "str";
    case value::kind::list:
      return v.as_list()->is_tuple ? "tuple" : "list";
    case value::kind::dict:
      return v.as_dict()->is_namespace ? "Namespace" : "dict";
    case value::kind::function:
      return "function";
  }
  return "object";
}

}  // namespace pagedserve::jinja
