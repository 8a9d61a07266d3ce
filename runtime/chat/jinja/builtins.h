#pragma once
// builtins: what the sandboxed environment HF uses offers beyond syntax: attribute and item
// lookup (with the sandbox's refusal of mutating methods), Python str/dict/list methods,
// filters, `is` tests and global functions. All throw template_error on misuse.

#include <cstdint>
#include <string>
#include <string_view>

#include "runtime/chat/jinja/value.h"

namespace pagedserve::jinja {

// Resource limits of one render; exceeding one is a render error, never a crash.
struct render_limits {
  std::size_t max_output_bytes = 16u << 20;  // output and any single string value
  std::size_t max_items = 1u << 20;          // length of any list built while rendering
  std::uint64_t max_steps = 10'000'000;      // loop iterations + calls + outputs
  int max_call_depth = 64;                   // nested macro calls
};

// obj.name: Python getattr first (methods), then item lookup; Undefined when missing.
[[nodiscard]] value get_attribute(const value& obj, const std::string& name);
// obj[key]: item lookup first, then getattr for string keys; Undefined when missing.
[[nodiscard]] value get_item(const value& obj, const value& key);
// obj[start:stop:step] on strings, lists and tuples (nulls are undefined values).
[[nodiscard]] value get_slice(const value& obj, const value& start, const value& stop,
                              const value& step);
// The bound method `receiver.name`, or undefined (with a reason) when there is none.
[[nodiscard]] value get_method(const value& receiver, const std::string& name);

// Iteration as Jinja's for loop sees it: list items, dict keys, string characters; undefined
// is empty.
[[nodiscard]] std::vector<value> iterate(const value& v);

[[nodiscard]] bool has_filter(std::string_view name);
[[nodiscard]] value call_filter(const std::string& name, const value& subject, call_args& args,
                                const render_limits& limits);
[[nodiscard]] bool has_test(std::string_view name);
[[nodiscard]] bool call_test(const std::string& name, const value& subject, call_args& args);
// Python `needle in haystack` (substring, dict key, list member).
[[nodiscard]] bool contains(const value& haystack, const value& needle);

// Argument binding for builtins written like Python signatures.
const value& arg(const call_args& args, std::size_t index, std::string_view name);
[[nodiscard]] value arg_or(const call_args& args, std::size_t index, std::string_view name,
                           value fallback);

}  // namespace pagedserve::jinja
