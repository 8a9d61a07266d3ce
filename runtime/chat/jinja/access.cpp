// Attribute, item and slice lookup with the semantics of jinja2's SandboxedEnvironment.

#include <algorithm>

#include "runtime/chat/jinja/builtins.h"
#include "runtime/chat/jinja/format.h"
#include "runtime/chat/jinja/utf8.h"

namespace pagedserve::jinja {
namespace {

// Jinja's object_type_repr, as used in Undefined messages.
std::string object_repr(const value& obj) {
  if (obj.is_none()) return "None";
  return "'" + type_name(obj) + " object'";
}

value missing_attribute(const value& obj, const std::string& name) {
  return value::undefined(object_repr(obj) + " has no attribute '" + name + "'");
}

value missing_element(const value& obj, const value& key) {
  return value::undefined(object_repr(obj) + " has no element " + python_repr(key));
}

// Python index normalisation; nullopt when out of range.
std::optional<std::size_t> normalize_index(std::int64_t index, std::size_t size) {
  const auto n = static_cast<std::int64_t>(size);
  if (index < 0) index += n;
  if (index < 0 || index >= n) return std::nullopt;
  return static_cast<std::size_t>(index);
}

// Python slice.indices(): the selected positions, in order.
std::vector<std::size_t> slice_positions(std::size_t size, const value& start_v,
                                         const value& stop_v, const value& step_v) {
  auto int_or_none = [](const value& v) -> std::optional<std::int64_t> {
    if (v.is_undefined() || v.is_none()) return std::nullopt;
    if (!v.is_int() && !v.is_bool()) {
      throw template_error("slice indices must be integers or None");
    }
    return v.to_int();
  };
  const auto n = static_cast<std::int64_t>(size);
  const std::int64_t step = int_or_none(step_v).value_or(1);
  if (step == 0) throw template_error("slice step cannot be zero");
  auto clamp = [&](std::optional<std::int64_t> v, std::int64_t dflt) {
    if (!v) return dflt;
    std::int64_t x = *v < 0 ? *v + n : *v;
    if (step > 0) return std::clamp<std::int64_t>(x, 0, n);
    return std::clamp<std::int64_t>(x, -1, n - 1);
  };
  const std::int64_t start = clamp(int_or_none(start_v), step > 0 ? 0 : n - 1);
  const std::int64_t stop = clamp(int_or_none(stop_v), step > 0 ? n : -1);
  std::vector<std::size_t> out;
  for (std::int64_t i = start; step > 0 ? i < stop : i > stop;) {
    out.push_back(static_cast<std::size_t>(i));
    if (__builtin_add_overflow(i, step, &i)) break;
  }
  return out;
}

}  // namespace

value get_attribute(const value& obj, const std::string& name) {
  obj.require_defined();
  if (obj.is_dict() && obj.as_dict()->is_namespace) {
    if (const value* v = obj.as_dict()->find(name)) return *v;
    return missing_attribute(obj, name);
  }
  if (value m = get_method(obj, name); !m.is_undefined() || !m.undefined_hint().empty()) {
    return m;
  }
  if (obj.is_dict()) {
    if (const value* v = obj.as_dict()->find(name)) return *v;
  }
  return missing_attribute(obj, name);
}

value get_item(const value& obj, const value& key) {
  obj.require_defined();
  if (obj.is_dict() && !obj.as_dict()->is_namespace && key.is_string()) {
    if (const value* v = obj.as_dict()->find(key.as_string())) return *v;
  }
  if ((obj.is_list() || obj.is_string()) && (key.is_int() || key.is_bool())) {
    if (obj.is_list()) {
      const auto& items = obj.as_list()->items;
      if (auto i = normalize_index(key.to_int(), items.size())) return items[*i];
    } else {
      const auto cps = utf8::decode(obj.as_string());
      if (auto i = normalize_index(key.to_int(), cps.size())) {
        std::string s;
        utf8::append(s, cps[*i]);
        return value(std::move(s));
      }
    }
    return missing_element(obj, key);
  }
  if (key.is_string()) {
    if (obj.is_dict() && obj.as_dict()->is_namespace)
      return missing_attribute(obj, key.as_string());
    if (value m = get_method(obj, key.as_string()); !m.is_undefined()) return m;
    return missing_attribute(obj, key.as_string());
  }
  return missing_element(obj, key);
}

value get_slice(const value& obj, const value& start, const value& stop, const value& step) {
  obj.require_defined();
  if (obj.is_string()) {
    const auto cps = utf8::decode(obj.as_string());
    std::string out;
    for (std::size_t i : slice_positions(cps.size(), start, stop, step)) utf8::append(out, cps[i]);
    return value(std::move(out));
  }
  if (obj.is_list()) {
    const auto& items = obj.as_list()->items;
    std::vector<value> out;
    for (std::size_t i : slice_positions(items.size(), start, stop, step)) out.push_back(items[i]);
    return value::list(std::move(out), obj.as_list()->is_tuple);
  }
  throw template_error("'" + type_name(obj) + "' object is not subscriptable");
}

std::vector<value> iterate(const value& v) {
  switch (v.type()) {
    case value::kind::undefined:
      return {};
    case value::kind::list:
      return v.as_list()->items;
    case value::kind::dict: {
      if (v.as_dict()->is_namespace) break;
      std::vector<value> keys;
      for (const auto& [k, _] : v.as_dict()->entries) keys.emplace_back(k);
      return keys;
    }
    case value::kind::string: {
      std::vector<value> chars;
      for (char32_t cp : utf8::decode(v.as_string())) {
        std::string s;
        utf8::append(s, cp);
        chars.emplace_back(std::move(s));
      }
      return chars;
    }
    default:
      break;
  }
  throw template_error("'" + type_name(v) + "' object is not iterable");
}

const value& arg(const call_args& args, std::size_t index, std::string_view name) {
  for (const auto& [k, v] : args.keyword) {
    if (k == name) return v;
  }
  if (index < args.positional.size()) return args.positional[index];
  throw template_error("missing required argument '" + std::string(name) + "'");
}

value arg_or(const call_args& args, std::size_t index, std::string_view name, value fallback) {
  for (const auto& [k, v] : args.keyword) {
    if (k == name) return v;
  }
  if (index < args.positional.size()) return args.positional[index];
  return fallback;
}

}  // namespace pagedserve::jinja
