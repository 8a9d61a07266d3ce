#pragma once
// value: what a Jinja expression evaluates to, modelled on the Python objects that
// jinja2 sees when transformers renders a chat template (JSON data, loop state, namespaces,
// callables). Lists and dicts are shared by pointer as in Python; only namespaces are ever
// mutated (`set ns.x = ...`), because the sandbox HF uses forbids mutating lists and dicts.

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace pagedserve::jinja {

class value;

// A render-time failure (raise_exception, undefined misuse, type errors, limits). Thrown
// inside the interpreter only; template::render turns it into an error value.
class template_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Jinja's Undefined: falsy, renders as "", iterates as empty; most other uses fail with
// `hint` (e.g. "'dict object' has no attribute 'x'").
struct undefined_value {
  std::string hint;
};

struct none_value {};

// How deep lists and dicts may nest inside each other while rendering. Python stops at its
// recursion limit; here the limit is checked where a container is built, so every recursive
// walk (comparison, printing, destruction) stays shallow whatever a template does.
inline constexpr int max_value_nesting = 512;

struct list_object {
  std::vector<value> items;
  bool is_tuple = false;  // only changes how it prints: (a, b) instead of [a, b]
  int nesting = 1;        // 1 + the deepest item's nesting (value::list sets it)
};

// An insertion-ordered string-keyed mapping (JSON objects, namespaces, loop state).
struct dict_object {
  std::vector<std::pair<std::string, value>> entries;
  bool is_namespace = false;  // only namespaces accept `set obj.attr = ...`
  // 1 + the deepest entry's nesting; set() only raises it, so for a namespace whose entries
  // were replaced it is an upper bound (and a namespace inside itself raises it each time).
  int nesting = 1;

  [[nodiscard]] const value* find(std::string_view key) const;
  void set(std::string key, value v);
};

struct call_args {
  std::vector<value> positional;
  std::vector<std::pair<std::string, value>> keyword;
};

struct function_object {
  std::string name;
  std::function<value(call_args&)> fn;
};

using list_ptr = std::shared_ptr<list_object>;
using dict_ptr = std::shared_ptr<dict_object>;
using function_ptr = std::shared_ptr<function_object>;

class value {
 public:
  enum class kind { undefined, none, boolean, integer, floating, string, list, dict, function };

  value() : v_(undefined_value{}) {}
  value(none_value) : v_(none_value{}) {}             // NOLINT
  value(bool b) : v_(b) {}                            // NOLINT
  value(std::int64_t i) : v_(i) {}                    // NOLINT
  value(int i) : v_(static_cast<std::int64_t>(i)) {}  // NOLINT
  value(double d) : v_(d) {}                          // NOLINT
  value(std::string s) : v_(std::move(s)) {}          // NOLINT
  value(const char* s) : v_(std::string(s)) {}        // NOLINT
  value(list_ptr l) : v_(std::move(l)) {}             // NOLINT
  value(dict_ptr d) : v_(std::move(d)) {}             // NOLINT
  value(function_ptr f) : v_(std::move(f)) {}         // NOLINT
  value(undefined_value u) : v_(std::move(u)) {}      // NOLINT

  static value undefined(std::string hint) { return value(undefined_value{std::move(hint)}); }
  static value list(std::vector<value> items, bool is_tuple = false);
  static value dict();
  static value function(std::string name, std::function<value(call_args&)> fn);

  [[nodiscard]] kind type() const { return static_cast<kind>(v_.index()); }
  [[nodiscard]] bool is_undefined() const { return type() == kind::undefined; }
  [[nodiscard]] bool is_none() const { return type() == kind::none; }
  [[nodiscard]] bool is_bool() const { return type() == kind::boolean; }
  [[nodiscard]] bool is_int() const { return type() == kind::integer; }
  [[nodiscard]] bool is_float() const { return type() == kind::floating; }
  // Python numbers include bool.
  [[nodiscard]] bool is_number() const { return is_int() || is_float() || is_bool(); }
  [[nodiscard]] bool is_string() const { return type() == kind::string; }
  [[nodiscard]] bool is_list() const { return type() == kind::list; }
  [[nodiscard]] bool is_dict() const { return type() == kind::dict; }
  [[nodiscard]] bool is_function() const { return type() == kind::function; }

  [[nodiscard]] bool as_bool() const { return std::get<bool>(v_); }
  [[nodiscard]] std::int64_t as_int() const { return std::get<std::int64_t>(v_); }
  [[nodiscard]] double as_float() const { return std::get<double>(v_); }
  [[nodiscard]] const std::string& as_string() const { return std::get<std::string>(v_); }
  [[nodiscard]] const list_ptr& as_list() const { return std::get<list_ptr>(v_); }
  [[nodiscard]] const dict_ptr& as_dict() const { return std::get<dict_ptr>(v_); }
  [[nodiscard]] const function_ptr& as_function() const { return std::get<function_ptr>(v_); }
  [[nodiscard]] const std::string& undefined_hint() const {
    return std::get<undefined_value>(v_).hint;
  }

  // Integer view of int or bool (Python: True == 1).
  [[nodiscard]] std::int64_t to_int() const { return is_bool() ? (as_bool() ? 1 : 0) : as_int(); }
  // Float view of any number.
  [[nodiscard]] double to_float() const;

  [[nodiscard]] bool truthy() const;  // Python bool(x); Undefined is false
  // Fails with the undefined's hint when this is undefined; returns *this otherwise.
  const value& require_defined() const;

 private:
  std::variant<undefined_value, none_value, bool, std::int64_t, double, std::string, list_ptr,
               dict_ptr, function_ptr>
      v_;
};

// 0 for scalars, the container's nesting for lists and dicts.
[[nodiscard]] int nesting_of(const value& v);

// Python ==: 1 == 1.0 == True, lists/dicts deep, namespaces by identity (jinja2's Namespace
// has no __eq__), undefined equals only undefined.
[[nodiscard]] bool equals(const value& a, const value& b);
// Python <: numbers, strings (code point order), lists lexicographically; else an error.
[[nodiscard]] bool less_than(const value& a, const value& b);
// Python type name as used in error messages ("str", "int", "dict", ...).
[[nodiscard]] std::string type_name(const value& v);

}  // namespace pagedserve::jinja
