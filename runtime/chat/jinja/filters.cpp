// Jinja's builtin filters (as jinja2 3.1 defines them) plus transformers' own `tojson`.

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <limits>
#include <map>

#include "runtime/chat/jinja/builtins.h"
#include "runtime/chat/jinja/format.h"
#include "runtime/chat/jinja/string_ops.h"
#include "runtime/chat/jinja/utf8.h"

namespace pagedserve::jinja {
namespace {

struct filter_context {
  const value& subject;
  call_args& args;
  const render_limits& limits;
};

using filter_fn = value (*)(filter_context& c);

std::string str(const value& v) { return python_str(v); }

// Dotted attribute path as used by map/selectattr/sort ("a.b", "items.0").
value attribute_path(const value& obj, const value& path) {
  if (path.is_int()) return get_item(obj, path);
  value cur = obj;
  for (const auto& part : py_split(str(path), std::string("."), -1)) {
    const bool numeric = !part.empty() && std::all_of(part.begin(), part.end(), ::isdigit);
    cur = numeric ? get_item(cur, value(static_cast<std::int64_t>(std::stoll(part))))
                  : get_item(cur, value(part));
  }
  return cur;
}

value length(filter_context& c) {
  const value& v = c.subject;
  if (v.is_undefined()) return value(0);
  if (v.is_string()) return value(static_cast<std::int64_t>(utf8::length(v.as_string())));
  if (v.is_list()) return value(static_cast<std::int64_t>(v.as_list()->items.size()));
  if (v.is_dict()) return value(static_cast<std::int64_t>(v.as_dict()->entries.size()));
  throw template_error("object of type '" + type_name(v) + "' has no len()");
}

value default_filter(filter_context& c) {
  const bool boolean = arg_or(c.args, 1, "boolean", value(false)).truthy();
  if (c.subject.is_undefined() || (boolean && !c.subject.truthy())) {
    return arg_or(c.args, 0, "default_value", value(""));
  }
  return c.subject;
}

value first(filter_context& c) {
  auto items = iterate(c.subject);
  if (items.empty()) return value::undefined("No first item, sequence was empty.");
  return items.front();
}

value last(filter_context& c) {
  auto items = iterate(c.subject);
  if (items.empty()) return value::undefined("No last item, sequence was empty.");
  return items.back();
}

value join(filter_context& c) {
  const std::string sep = str(arg_or(c.args, 0, "d", value("")));
  const value attribute = arg_or(c.args, 1, "attribute", value(none_value{}));
  std::string out;
  bool first_item = true;
  for (const value& item : iterate(c.subject)) {
    if (!first_item) out += sep;
    out += str(attribute.is_none() ? item : attribute_path(item, attribute));
    first_item = false;
    if (out.size() > c.limits.max_output_bytes) throw template_error("string too long");
  }
  return value(std::move(out));
}

value items(filter_context& c) {
  if (c.subject.is_undefined()) return value::list({});
  if (!c.subject.is_dict()) throw template_error("Can only get item pairs from a mapping.");
  return get_method(c.subject, "items").as_function()->fn(c.args);
}

std::int64_t checked_abs(std::int64_t x) {
  if (x == std::numeric_limits<std::int64_t>::min()) throw template_error("integer overflow");
  return x < 0 ? -x : x;
}

// Python int(d) for a finite double; ours stops at 64 bits.
std::int64_t float_to_int(double d) {
  if (!(std::fabs(d) < 9.2e18)) throw template_error("integer overflow");
  return static_cast<std::int64_t>(d);
}

value to_int(filter_context& c) {
  const value dflt = arg_or(c.args, 0, "default", value(0));
  const value& v = c.subject;
  if (v.is_int() || v.is_bool()) return value(v.to_int());
  if (v.is_float()) return std::isfinite(v.as_float()) ? value(float_to_int(v.as_float())) : dflt;
  if (v.is_string()) {
    const std::string s = py_strip(v.as_string(), std::nullopt, true, true);
    const int base = static_cast<int>(arg_or(c.args, 1, "base", value(10)).to_int());
    try {
      std::size_t used = 0;
      const auto n = std::stoll(s, &used, base);
      if (used == s.size()) return value(static_cast<std::int64_t>(n));
      const double d = std::stod(s, &used);
      if (used == s.size() && std::isfinite(d)) return value(float_to_int(d));
    } catch (const std::exception&) {
    }
  }
  return dflt;
}

value to_float(filter_context& c) {
  const value dflt = arg_or(c.args, 0, "default", value(0.0));
  const value& v = c.subject;
  if (v.is_number()) return value(v.to_float());
  if (v.is_string()) {
    try {
      std::size_t used = 0;
      const std::string s = py_strip(v.as_string(), std::nullopt, true, true);
      const double d = std::stod(s, &used);
      if (used == s.size()) return value(d);
    } catch (const std::exception&) {
    }
  }
  return dflt;
}

value round_filter(filter_context& c) {
  const auto precision = arg_or(c.args, 0, "precision", value(0)).to_int();
  const std::string method = str(arg_or(c.args, 1, "method", value("common")));
  const value& v = c.subject;
  if (!v.is_number()) throw template_error("round needs a number");
  if (method == "common" && !v.is_float()) return value(v.to_int());
  const double scale = std::pow(10.0, static_cast<double>(precision));
  const double x = v.to_float() * scale;
  double r = 0;
  if (method == "common")
    r = std::nearbyint(x);  // half to even, as Python's round()
  else if (method == "ceil")
    r = std::ceil(x);
  else if (method == "floor")
    r = std::floor(x);
  else
    throw template_error("method must be common, ceil or floor");
  return value(r / scale);
}

// n spaces for an indent of width n, refused past the output limit before it is allocated.
std::string spaces(std::int64_t width, const render_limits& limits) {
  const auto n = static_cast<std::uint64_t>(std::max<std::int64_t>(0, width));
  if (n > limits.max_output_bytes) {
    throw template_error("indent of " + std::to_string(width) + " exceeds the size limit");
  }
  return std::string(static_cast<std::size_t>(n), ' ');
}

value tojson(filter_context& c) {
  json_options o;
  o.ensure_ascii = arg_or(c.args, 0, "ensure_ascii", value(false)).truthy();
  const value indent = arg_or(c.args, 1, "indent", value(none_value{}));
  if (indent.is_int())
    o.indent = spaces(indent.as_int(), c.limits);
  else if (indent.is_string())
    o.indent = indent.as_string();
  const value seps = arg_or(c.args, 2, "separators", value(none_value{}));
  if (seps.is_list()) {
    if (seps.as_list()->items.size() != 2) throw template_error("separators must be a pair");
    o.item_separator = str(seps.as_list()->items[0]);
    o.key_separator = str(seps.as_list()->items[1]);
  }
  o.sort_keys = arg_or(c.args, 3, "sort_keys", value(false)).truthy();
  return value(to_json(c.subject, o));
}

value indent(filter_context& c) {
  const value w = arg_or(c.args, 0, "width", value(4));
  const std::string pad = w.is_string() ? w.as_string() : spaces(w.to_int(), c.limits);
  const bool indent_first = arg_or(c.args, 1, "first", value(false)).truthy();
  const bool blank = arg_or(c.args, 2, "blank", value(false)).truthy();
  auto lines = py_splitlines(str(c.subject) + "\n");
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) out += "\n" + ((blank || !lines[i].empty()) ? pad : "");
    out += lines[i];
    if (out.size() > c.limits.max_output_bytes) throw template_error("string too long");
  }
  return value(indent_first ? pad + out : out);
}

value escape(filter_context& c) {
  std::string out;
  for (char ch : str(c.subject)) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&#34;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += ch;
    }
  }
  return value(std::move(out));
}

// Sort key: the value itself or an attribute of it, lowercased unless case_sensitive.
value sort_key(const value& item, const value& attribute, bool case_sensitive) {
  value k = attribute.is_none() ? item : attribute_path(item, attribute);
  if (!case_sensitive && k.is_string()) return value(utf8::lower(k.as_string()));
  return k;
}

value sort(filter_context& c) {
  const bool reverse = arg_or(c.args, 0, "reverse", value(false)).truthy();
  const bool case_sensitive = arg_or(c.args, 1, "case_sensitive", value(false)).truthy();
  const value attribute = arg_or(c.args, 2, "attribute", value(none_value{}));
  auto items = iterate(c.subject);
  std::vector<std::pair<value, value>> keyed;
  for (auto& item : items) keyed.emplace_back(sort_key(item, attribute, case_sensitive), item);
  std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& a, const auto& b) {
    return reverse ? less_than(b.first, a.first) : less_than(a.first, b.first);
  });
  std::vector<value> out;
  for (auto& [k, v] : keyed) out.push_back(std::move(v));
  return value::list(std::move(out));
}

value unique(filter_context& c) {
  const bool case_sensitive = arg_or(c.args, 0, "case_sensitive", value(false)).truthy();
  const value attribute = arg_or(c.args, 1, "attribute", value(none_value{}));
  std::vector<value> out;
  std::vector<value> seen;
  for (const value& item : iterate(c.subject)) {
    value k = sort_key(item, attribute, case_sensitive);
    if (std::any_of(seen.begin(), seen.end(), [&](const value& s) { return equals(s, k); }))
      continue;
    seen.push_back(std::move(k));
    out.push_back(item);
  }
  return value::list(std::move(out));
}

value min_max(filter_context& c, bool want_max) {
  const bool case_sensitive = arg_or(c.args, 0, "case_sensitive", value(false)).truthy();
  const value attribute = arg_or(c.args, 1, "attribute", value(none_value{}));
  auto items = iterate(c.subject);
  if (items.empty()) return value::undefined("No aggregated item, sequence was empty.");
  std::size_t best = 0;
  for (std::size_t i = 1; i < items.size(); ++i) {
    const value a = sort_key(items[i], attribute, case_sensitive);
    const value b = sort_key(items[best], attribute, case_sensitive);
    if (want_max ? less_than(b, a) : less_than(a, b)) best = i;
  }
  return items[best];
}

value sum(filter_context& c) {
  const value attribute = arg_or(c.args, 0, "attribute", value(none_value{}));
  value total = arg_or(c.args, 1, "start", value(0));
  for (const value& item : iterate(c.subject)) {
    const value v = attribute.is_none() ? item : attribute_path(item, attribute);
    if (!v.is_number() || !total.is_number()) throw template_error("sum needs numbers");
    total = (v.is_float() || total.is_float()) ? value(total.to_float() + v.to_float())
                                               : value(total.to_int() + v.to_int());
  }
  return total;
}

// Arguments after the first `skip` positional ones, for map/select passing them on.
call_args rest_args(const call_args& args, std::size_t skip) {
  call_args rest;
  for (std::size_t i = skip; i < args.positional.size(); ++i)
    rest.positional.push_back(args.positional[i]);
  rest.keyword = args.keyword;
  return rest;
}

value map(filter_context& c) {
  std::vector<value> out;
  const value* attribute = nullptr;
  value dflt;
  for (const auto& [k, v] : c.args.keyword) {
    if (k == "attribute") attribute = &v;
    if (k == "default") dflt = v;
  }
  for (const value& item : iterate(c.subject)) {
    if (attribute != nullptr) {
      value v = attribute_path(item, *attribute);
      out.push_back(v.is_undefined() && !dflt.is_undefined() ? dflt : v);
      continue;
    }
    call_args rest = rest_args(c.args, 1);
    out.push_back(call_filter(str(arg(c.args, 0, "filter")), item, rest, c.limits));
  }
  return value::list(std::move(out));
}

value select_reject(filter_context& c, bool select, bool by_attribute) {
  std::vector<value> out;
  const std::size_t skip = by_attribute ? 2 : 1;
  for (const value& item : iterate(c.subject)) {
    const value subject = by_attribute ? attribute_path(item, arg(c.args, 0, "attribute")) : item;
    bool ok = false;
    if (c.args.positional.size() < skip) {
      ok = subject.truthy();
    } else {
      call_args rest = rest_args(c.args, skip);
      ok = call_test(str(c.args.positional[skip - 1]), subject, rest);
    }
    if (ok == select) out.push_back(item);
  }
  return value::list(std::move(out));
}

value reverse(filter_context& c) {
  if (c.subject.is_string()) {
    auto cps = utf8::decode(c.subject.as_string());
    std::reverse(cps.begin(), cps.end());
    return value(utf8::encode(cps));
  }
  auto items = iterate(c.subject);
  std::reverse(items.begin(), items.end());
  return value::list(std::move(items));
}

value wordcount(filter_context& c) {
  return value(static_cast<std::int64_t>(py_split(str(c.subject), std::nullopt, -1).size()));
}

const std::map<std::string_view, filter_fn>& filter_table() {
  static const std::map<std::string_view, filter_fn> table = {
      {"abs",
       [](filter_context& c) {
         if (!c.subject.is_number()) throw template_error("bad operand type for abs()");
         return c.subject.is_float() ? value(std::fabs(c.subject.as_float()))
                                     : value(checked_abs(c.subject.to_int()));
       }},
      {"attr",
       [](filter_context& c) {  // getattr only: no fallback to dict items
         const std::string name = str(arg(c.args, 0, "name"));
         if (c.subject.is_dict() && !c.subject.as_dict()->is_namespace) {
           value m = get_method(c.subject, name);
           return m.is_undefined() && m.undefined_hint().empty()
                      ? value::undefined("'dict object' has no attribute '" + name + "'")
                      : m;
         }
         return get_attribute(c.subject, name);
       }},
      {"capitalize", [](filter_context& c) { return value(py_capitalize(str(c.subject))); }},
      {"count", length},
      {"d", default_filter},
      {"default", default_filter},
      {"e", escape},
      {"escape", escape},
      {"first", first},
      {"float", to_float},
      {"indent", indent},
      {"int", to_int},
      {"items", items},
      {"join", join},
      {"last", last},
      {"length", length},
      {"list", [](filter_context& c) { return value::list(iterate(c.subject)); }},
      {"lower", [](filter_context& c) { return value(utf8::lower(str(c.subject))); }},
      {"map", map},
      {"max", [](filter_context& c) { return min_max(c, true); }},
      {"min", [](filter_context& c) { return min_max(c, false); }},
      {"reject", [](filter_context& c) { return select_reject(c, false, false); }},
      {"rejectattr", [](filter_context& c) { return select_reject(c, false, true); }},
      {"replace",
       [](filter_context& c) {
         const value count = arg_or(c.args, 2, "count", value(none_value{}));
         return value(py_replace(str(c.subject), str(arg(c.args, 0, "old")),
                                 str(arg(c.args, 1, "new")),
                                 count.is_none() ? -1 : count.to_int()));
       }},
      {"reverse", reverse},
      {"round", round_filter},
      {"safe", [](filter_context& c) { return c.subject; }},
      {"select", [](filter_context& c) { return select_reject(c, true, false); }},
      {"selectattr", [](filter_context& c) { return select_reject(c, true, true); }},
      {"sort", sort},
      {"string", [](filter_context& c) { return value(str(c.subject)); }},
      {"sum", sum},
      {"title", [](filter_context& c) { return value(jinja_title(str(c.subject))); }},
      {"tojson", tojson},
      {"trim",
       [](filter_context& c) {
         const value chars = arg_or(c.args, 0, "chars", value(none_value{}));
         return value(py_strip(
             str(c.subject),
             chars.is_none() ? std::nullopt : std::optional<std::string>(str(chars)), true, true));
       }},
      {"unique", unique},
      {"upper", [](filter_context& c) { return value(utf8::upper(str(c.subject))); }},
      {"wordcount", wordcount},
  };
  return table;
}

}  // namespace

bool has_filter(std::string_view name) { return filter_table().contains(name); }

value call_filter(const std::string& name, const value& subject, call_args& args,
                  const render_limits& limits) {
  const auto it = filter_table().find(name);
  if (it == filter_table().end()) throw template_error("No filter named '" + name + "'");
  filter_context c{subject, args, limits};
  return it->second(c);
}

}  // namespace pagedserve::jinja
