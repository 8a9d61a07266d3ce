#pragma once
// config_value: the scalar parsers and formatters behind every configuration key. Values
// arrive as text (a YAML scalar or a flag's argument); each parser accepts the whole text or
// names what it expected.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace pagedserve::config_value {

// true|false, yes|no, on|off, 1|0 (case-insensitive), as YAML 1.1 and most CLIs accept.
[[nodiscard]] result<bool> parse_bool(std::string_view text);
// A decimal integer in [min, max]; no sign, no fraction, no surrounding space.
[[nodiscard]] result<std::uint64_t> parse_unsigned(std::string_view text, std::uint64_t min,
                                                   std::uint64_t max);
// A finite decimal number.
[[nodiscard]] result<double> parse_double(std::string_view text);

// Shortest text that parses back to the same value ("30", "0.9", "1e-05").
[[nodiscard]] std::string format_double(double value);
// A list value: "a,b", or vLLM's JSON spelling '["a", "b"]' (brackets, quotes and spaces
// around items are dropped; a YAML list arrives joined with commas). "" is the empty list.
// Items may not hold commas or quotes.
[[nodiscard]] result<std::vector<std::string>> parse_list(std::string_view text);
[[nodiscard]] std::string format_list(const std::vector<std::string>& items);

}  // namespace pagedserve::config_value
