// Python methods of str, dict and list that templates call (`content.strip()`,
// `message.get('x')`). Mutating list/dict methods are refused as jinja2's
// ImmutableSandboxedEnvironment refuses them.

#include <array>

#include "runtime/chat/jinja/builtins.h"
#include "runtime/chat/jinja/format.h"
#include "runtime/chat/jinja/string_ops.h"
#include "runtime/chat/jinja/utf8.h"

namespace pagedserve::jinja {
namespace {

using method_fn = value (*)(const value& self, call_args& args);

std::string str_arg(const call_args& args, std::size_t i, std::string_view name) {
  const value& v = arg(args, i, name);
  if (!v.is_string()) throw template_error(std::string(name) + " must be str, not " + type_name(v));
  return v.as_string();
}

std::optional<std::string> chars_arg(const call_args& args) {
  const value v = arg_or(args, 0, "chars", value(none_value{}));
  if (v.is_none()) return std::nullopt;
  if (!v.is_string()) throw template_error("strip arg must be None or str");
  return v.as_string();
}

std::int64_t maxsplit_arg(const call_args& args) {
  const value v = arg_or(args, 1, "maxsplit", value(-1));
  if (!v.is_int()) throw template_error("maxsplit must be an integer");
  return v.as_int();
}

std::optional<std::string> sep_arg(const call_args& args) {
  const value v = arg_or(args, 0, "sep", value(none_value{}));
  if (v.is_none()) return std::nullopt;
  if (!v.is_string()) throw template_error("must be str or None, not " + type_name(v));
  if (v.as_string().empty()) throw template_error("empty separator");
  return v.as_string();
}

value strings_to_list(std::vector<std::string> parts) {
  std::vector<value> items;
  items.reserve(parts.size());
  for (auto& p : parts) items.emplace_back(std::move(p));
  return value::list(std::move(items));
}

// startswith/endswith accept a str or a tuple of str.
bool affix_match(const value& self, const value& affix, bool prefix) {
  const std::string& s = self.as_string();
  auto one = [&](const value& a) {
    if (!a.is_string()) throw template_error("startswith/endswith arg must be str or tuple");
    return prefix ? s.starts_with(a.as_string()) : s.ends_with(a.as_string());
  };
  if (affix.is_list()) {
    for (const value& a : affix.as_list()->items) {
      if (one(a)) return true;
    }
    return false;
  }
  return one(affix);
}

const std::array<std::pair<std::string_view, method_fn>, 26> string_methods = {{
    {"strip",
     [](const value& s, call_args& a) {
       return value(py_strip(s.as_string(), chars_arg(a), true, true));
     }},
    {"lstrip",
     [](const value& s, call_args& a) {
       return value(py_strip(s.as_string(), chars_arg(a), true, false));
     }},
    {"rstrip",
     [](const value& s, call_args& a) {
       return value(py_strip(s.as_string(), chars_arg(a), false, true));
     }},
    {"startswith",
     [](const value& s, call_args& a) { return value(affix_match(s, arg(a, 0, "prefix"), true)); }},
    {"endswith", [](const value& s,
                    call_args& a) { return value(affix_match(s, arg(a, 0, "suffix"), false)); }},
    {"split",
     [](const value& s, call_args& a) {
       return strings_to_list(py_split(s.as_string(), sep_arg(a), maxsplit_arg(a)));
     }},
    {"rsplit",
     [](const value& s, call_args& a) {
       return strings_to_list(py_rsplit(s.as_string(), sep_arg(a), maxsplit_arg(a)));
     }},
    {"splitlines",
     [](const value& s, call_args&) { return strings_to_list(py_splitlines(s.as_string())); }},
    {"replace",
     [](const value& s, call_args& a) {
       const value count = arg_or(a, 2, "count", value(-1));
       return value(
           py_replace(s.as_string(), str_arg(a, 0, "old"), str_arg(a, 1, "new"), count.to_int()));
     }},
    {"upper", [](const value& s, call_args&) { return value(utf8::upper(s.as_string())); }},
    {"lower", [](const value& s, call_args&) { return value(utf8::lower(s.as_string())); }},
    {"title", [](const value& s, call_args&) { return value(py_title(s.as_string())); }},
    {"capitalize", [](const value& s, call_args&) { return value(py_capitalize(s.as_string())); }},
    {"find",
     [](const value& s, call_args& a) {
       return value(py_find(s.as_string(), str_arg(a, 0, "sub"), false));
     }},
    {"rfind",
     [](const value& s, call_args& a) {
       return value(py_find(s.as_string(), str_arg(a, 0, "sub"), true));
     }},
    {"count", [](const value& s,
                 call_args& a) { return value(py_count(s.as_string(), str_arg(a, 0, "sub"))); }},
    {"join",
     [](const value& s, call_args& a) {
       std::string out;
       bool first = true;
       for (const value& v : iterate(arg(a, 0, "iterable"))) {
         if (!v.is_string())
           throw template_error("sequence item: expected str instance, " + type_name(v) + " found");
         if (!first) out += s.as_string();
         out += v.as_string();
         first = false;
       }
       return value(std::move(out));
     }},
    {"format", [](const value& s, call_args& a) { return value(py_format(s.as_string(), a)); }},
    {"isdigit",
     [](const value& s, call_args&) { return value(py_all_chars(s.as_string(), utf8::is_digit)); }},
    {"isnumeric",
     [](const value& s, call_args&) { return value(py_all_chars(s.as_string(), utf8::is_digit)); }},
    {"isalpha",
     [](const value& s, call_args&) { return value(py_all_chars(s.as_string(), utf8::is_alpha)); }},
    {"isspace",
     [](const value& s, call_args&) { return value(py_all_chars(s.as_string(), utf8::is_space)); }},
    {"isupper", [](const value& s, call_args&) { return value(py_is_cased(s.as_string(), true)); }},
    {"islower",
     [](const value& s, call_args&) { return value(py_is_cased(s.as_string(), false)); }},
    {"removeprefix",
     [](const value& s, call_args& a) {
       const std::string p = str_arg(a, 0, "prefix");
       return value(s.as_string().starts_with(p) ? s.as_string().substr(p.size()) : s.as_string());
     }},
    {"removesuffix",
     [](const value& s, call_args& a) {
       const std::string p = str_arg(a, 0, "suffix");
       return value(s.as_string().ends_with(p)
                        ? s.as_string().substr(0, s.as_string().size() - p.size())
                        : s.as_string());
     }},
}};

value dict_items(const value& d) {
  std::vector<value> items;
  for (const auto& [k, v] : d.as_dict()->entries) items.push_back(value::list({value(k), v}, true));
  return value::list(std::move(items));
}

const std::array<std::pair<std::string_view, method_fn>, 4> dict_methods = {{
    {"get",
     [](const value& d, call_args& a) {
       const value& key = arg(a, 0, "key");
       if (key.is_string()) {
         if (const value* v = d.as_dict()->find(key.as_string())) return *v;
       }
       return arg_or(a, 1, "default", value(none_value{}));
     }},
    {"items", [](const value& d, call_args&) { return dict_items(d); }},
    {"keys", [](const value& d, call_args&) { return value::list(iterate(d)); }},
    {"values",
     [](const value& d, call_args&) {
       std::vector<value> items;
       for (const auto& [k, v] : d.as_dict()->entries) items.push_back(v);
       return value::list(std::move(items));
     }},
}};

const std::array<std::pair<std::string_view, method_fn>, 2> list_methods = {{
    {"index",
     [](const value& l, call_args& a) {
       const value& x = arg(a, 0, "value");
       const auto& items = l.as_list()->items;
       for (std::size_t i = 0; i < items.size(); ++i) {
         if (equals(items[i], x)) return value(static_cast<std::int64_t>(i));
       }
       throw template_error(python_repr(x) + " is not in list");
     }},
    {"count",
     [](const value& l, call_args& a) {
       std::int64_t n = 0;
       for (const value& v : l.as_list()->items) n += equals(v, arg(a, 0, "value")) ? 1 : 0;
       return value(n);
     }},
}};

constexpr std::array<std::string_view, 8> mutating_list = {"append", "clear", "pop",    "reverse",
                                                           "insert", "sort",  "extend", "remove"};
constexpr std::array<std::string_view, 5> mutating_dict = {"clear", "pop", "popitem", "setdefault",
                                                           "update"};

template <std::size_t N>
value bind(const value& self, const std::string& name,
           const std::array<std::pair<std::string_view, method_fn>, N>& table) {
  for (const auto& [method_name, fn] : table) {
    if (method_name == name) {
      method_fn f = fn;
      return value::function(name, [self, f](call_args& a) { return f(self, a); });
    }
  }
  return value();
}

template <std::size_t N>
bool contains(const std::array<std::string_view, N>& names, const std::string& name) {
  for (auto n : names) {
    if (n == name) return true;
  }
  return false;
}

value unsafe(const value& self, const std::string& name) {
  return value::undefined("access to attribute '" + name + "' of '" + type_name(self) +
                          "' object is unsafe.");
}

}  // namespace

value get_method(const value& receiver, const std::string& name) {
  if (receiver.is_string()) return bind(receiver, name, string_methods);
  if (receiver.is_dict() && !receiver.as_dict()->is_namespace) {
    if (contains(mutating_dict, name)) return unsafe(receiver, name);
    return bind(receiver, name, dict_methods);
  }
  if (receiver.is_list()) {
    if (!receiver.as_list()->is_tuple && contains(mutating_list, name))
      return unsafe(receiver, name);
    return bind(receiver, name, list_methods);
  }
  return value();
}

}  // namespace pagedserve::jinja
