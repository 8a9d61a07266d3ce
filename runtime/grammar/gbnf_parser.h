#pragma once
// The GBNF parser (compiled_grammar.h describes the dialect). Its output is already byte
// level: literals become one byte set per byte, classes and `.` become rules whose
// alternatives are UTF-8 byte sequences, groups and quantifiers become helper rules
// (x* as h ::= x h | "", right recursive, so a matcher's stacks stay shallow).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "runtime/grammar/byte_set.h"
#include "runtime/grammar/compiled_grammar.h"

namespace pagedserve::grammar {

enum class element_kind : std::uint8_t {
  bytes,  // value: index into parsed_grammar::byte_sets
  rule,   // value: rule index
  end,    // closes an alternative (only in compiled form)
};

struct grammar_element {
  element_kind kind = element_kind::end;
  std::uint32_t value = 0;
  friend bool operator==(const grammar_element&, const grammar_element&) = default;
};

using grammar_sequence = std::vector<grammar_element>;

struct parsed_rule {
  std::string name;  // a helper rule carries the name of the rule it was written in
  std::size_t line = 0;
  bool helper = false;
  std::vector<grammar_sequence> alternatives;
};

struct parsed_grammar {
  std::vector<parsed_rule> rules;
  std::vector<byte_set> byte_sets;  // unique
  std::uint32_t root = 0;
  std::size_t num_elements = 0;  // over all alternatives, one more per alternative for its end
};

// Groups nested deeper than this are refused (the parser recurses once per level).
inline constexpr std::size_t max_group_nesting = 256;

// Parses `gbnf` and checks it: every rule defined once, `root` present, no left recursion,
// within `limits`. Errors are invalid_argument with "line N: ..." messages.
[[nodiscard]] result<parsed_grammar> parse_gbnf(std::string_view gbnf,
                                                const compile_limits& limits);

// Refuses rules that can reach themselves without consuming a byte (directly, through other
// rules, or after a prefix that can match empty): a matcher would expand them forever.
[[nodiscard]] status check_left_recursion(const parsed_grammar& grammar);

}  // namespace pagedserve::grammar
