#pragma once
// GBNF rules for compact JSON values (RFC 8259 with no insignificant whitespace), shared by
// json_object_gbnf and the JSON Schema translator. Internal to runtime/grammar.

#include <set>
#include <string>
#include <string_view>

namespace pagedserve::grammar {

// Rule names (usable in expressions once their rules are emitted).
inline constexpr std::string_view json_value = "json-value";
inline constexpr std::string_view json_object = "json-object";
inline constexpr std::string_view json_array = "json-array";
inline constexpr std::string_view json_string = "json-string";
inline constexpr std::string_view json_char = "json-char";  // one character of a string
inline constexpr std::string_view json_number = "json-number";
inline constexpr std::string_view json_integer = "json-integer";
inline constexpr std::string_view json_fraction = "json-fraction";  // "." digits
inline constexpr std::string_view json_boolean = "json-boolean";
inline constexpr std::string_view json_null = "json-null";

// The rules named in `used` and those they refer to, one per line.
[[nodiscard]] std::string json_value_rules_text(const std::set<std::string, std::less<>>& used);

}  // namespace pagedserve::grammar
