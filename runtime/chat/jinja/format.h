#pragma once
// How values become text: Python str() (what `{{ x }}` prints), Python repr() (items inside a
// printed list or dict) and json.dumps (transformers' own `tojson` filter).

#include <optional>
#include <string>

#include "runtime/chat/jinja/value.h"

namespace pagedserve::jinja {

[[nodiscard]] std::string python_str(const value& v);
[[nodiscard]] std::string python_repr(const value& v);
// Python repr(float): shortest round-trip digits, "1.0", "1e-05", "1e+16", "inf", "nan".
[[nodiscard]] std::string float_repr(double d);

// json.dumps options as transformers' tojson exposes them (ensure_ascii defaults to False).
struct json_options {
  bool ensure_ascii = false;
  std::optional<std::string> indent;  // None: single line; an int n becomes n spaces
  std::optional<std::string> item_separator;
  std::optional<std::string> key_separator;
  bool sort_keys = false;
};

[[nodiscard]] std::string to_json(const value& v, const json_options& options);

}  // namespace pagedserve::jinja
