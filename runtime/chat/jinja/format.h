#pragma once
// How values become text: Python str() (what `{{ x }}` prints), Python repr() (items inside a
// printed list or dict) and json.dumps (transformers' own `tojson` filter).

#include <cstddef>
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

// The most bytes python_str, python_repr and to_json may produce on this thread while the
// scope lives (template_error past it; 16 MiB outside any scope). Values share their lists,
// so a list holding one big list a thousand times, nested a few levels, would otherwise print
// exponentially; compiled_template::render opens one with render_limits::max_output_bytes.
class print_limit_scope {
 public:
  explicit print_limit_scope(std::size_t max_bytes);
  ~print_limit_scope();
  print_limit_scope(const print_limit_scope&) = delete;
  print_limit_scope& operator=(const print_limit_scope&) = delete;

 private:
  std::size_t saved_;
};

}  // namespace pagedserve::jinja
