// Jinja `is` tests (`x is defined`, `n is divisibleby 3`, ...).

#include <array>
#include <cmath>

#include "runtime/chat/jinja/builtins.h"
#include "runtime/chat/jinja/string_ops.h"

namespace pagedserve::jinja {
namespace {

using test_fn = bool (*)(const value& v, call_args& args);

bool is_integer(const value& v) { return v.is_int(); }  // Jinja excludes True/False

bool in(const value& needle, const value& haystack);

const std::array<std::pair<std::string_view, test_fn>, 34> tests = {{
    {"defined", [](const value& v, call_args&) { return !v.is_undefined(); }},
    {"undefined", [](const value& v, call_args&) { return v.is_undefined(); }},
    {"none", [](const value& v, call_args&) { return v.is_none(); }},
    {"boolean", [](const value& v, call_args&) { return v.is_bool(); }},
    {"true", [](const value& v, call_args&) { return v.is_bool() && v.as_bool(); }},
    {"false", [](const value& v, call_args&) { return v.is_bool() && !v.as_bool(); }},
    {"integer", [](const value& v, call_args&) { return is_integer(v); }},
    {"float", [](const value& v, call_args&) { return v.is_float(); }},
    {"number", [](const value& v, call_args&) { return v.is_number(); }},
    {"string", [](const value& v, call_args&) { return v.is_string(); }},
    {"mapping",
     [](const value& v, call_args&) { return v.is_dict() && !v.as_dict()->is_namespace; }},
    {"iterable",
     [](const value& v, call_args&) {
       return v.is_undefined() || v.is_string() || v.is_list() ||
              (v.is_dict() && !v.as_dict()->is_namespace);
     }},
    {"sequence",
     [](const value& v, call_args&) {
       return v.is_undefined() || v.is_string() || v.is_list() ||
              (v.is_dict() && !v.as_dict()->is_namespace);
     }},
    {"callable", [](const value& v, call_args&) { return v.is_function(); }},
    {"escaped", [](const value&, call_args&) { return false; }},
    {"lower",
     [](const value& v, call_args&) { return v.is_string() && py_is_cased(v.as_string(), false); }},
    {"upper",
     [](const value& v, call_args&) { return v.is_string() && py_is_cased(v.as_string(), true); }},
    {"odd",
     [](const value& v, call_args&) {
       if (!v.is_int() && !v.is_bool()) throw template_error("odd test needs an integer");
       return v.to_int() % 2 != 0;
     }},
    {"even",
     [](const value& v, call_args&) {
       if (!v.is_int() && !v.is_bool()) throw template_error("even test needs an integer");
       return v.to_int() % 2 == 0;
     }},
    {"divisibleby",
     [](const value& v, call_args& a) {
       const value& n = arg(a, 0, "num");
       if (!v.is_number() || !n.is_number()) throw template_error("divisibleby needs numbers");
       if (n.to_float() == 0) throw template_error("integer division or modulo by zero");
       if (v.is_float() || n.is_float()) return std::fmod(v.to_float(), n.to_float()) == 0;
       return v.to_int() % n.to_int() == 0;
     }},
    {"sameas",
     [](const value& v, call_args& a) {
       const value& o = arg(a, 0, "other");
       if (v.type() != o.type()) return false;
       if (v.is_none() || v.is_bool()) return equals(v, o);
       if (v.is_list()) return v.as_list() == o.as_list();
       if (v.is_dict()) return v.as_dict() == o.as_dict();
       return equals(v, o);
     }},
    {"eq", [](const value& v, call_args& a) { return equals(v, arg(a, 0, "other")); }},
    {"equalto", [](const value& v, call_args& a) { return equals(v, arg(a, 0, "other")); }},
    {"==", [](const value& v, call_args& a) { return equals(v, arg(a, 0, "other")); }},
    {"ne", [](const value& v, call_args& a) { return !equals(v, arg(a, 0, "other")); }},
    {"!=", [](const value& v, call_args& a) { return !equals(v, arg(a, 0, "other")); }},
    {"lt", [](const value& v, call_args& a) { return less_than(v, arg(a, 0, "other")); }},
    {"lessthan", [](const value& v, call_args& a) { return less_than(v, arg(a, 0, "other")); }},
    {"le", [](const value& v, call_args& a) { return !less_than(arg(a, 0, "other"), v); }},
    {"gt", [](const value& v, call_args& a) { return less_than(arg(a, 0, "other"), v); }},
    {"greaterthan", [](const value& v, call_args& a) { return less_than(arg(a, 0, "other"), v); }},
    {"ge", [](const value& v, call_args& a) { return !less_than(v, arg(a, 0, "other")); }},
    {"in", [](const value& v, call_args& a) { return in(v, arg(a, 0, "seq")); }},
    {"filter",
     [](const value& v, call_args&) { return v.is_string() && has_filter(v.as_string()); }},
}};

bool in(const value& needle, const value& haystack) {
  if (haystack.is_string()) {
    if (!needle.is_string()) throw template_error("'in <string>' requires string as left operand");
    return haystack.as_string().find(needle.as_string()) != std::string::npos;
  }
  if (haystack.is_dict() && !haystack.as_dict()->is_namespace) {
    return needle.is_string() && haystack.as_dict()->find(needle.as_string()) != nullptr;
  }
  for (const value& item : iterate(haystack)) {
    if (equals(item, needle)) return true;
  }
  return false;
}

}  // namespace

bool has_test(std::string_view name) {
  for (const auto& [n, _] : tests) {
    if (n == name) return true;
  }
  return name == "<" || name == "<=" || name == ">" || name == ">=";
}

bool call_test(const std::string& name, const value& subject, call_args& args) {
  const std::string alias = name == "<"    ? "lt"
                            : name == "<=" ? "le"
                            : name == ">"  ? "gt"
                            : name == ">=" ? "ge"
                                           : name;
  for (const auto& [n, fn] : tests) {
    if (n == alias) return fn(subject, args);
  }
  throw template_error("No test named '" + name + "'");
}

bool contains(const value& haystack, const value& needle) { return in(needle, haystack); }

}  // namespace pagedserve::jinja
