#include "runtime/grammar/json_value_rules.h"

#include <vector>

namespace pagedserve::grammar {
namespace {

struct json_rule {
  std::string_view name;
  std::string_view body;
  std::vector<std::string_view> refers_to;
};

// Strings: any code point but " \ and the control characters, or an escape. Numbers: no
// leading zeros, as JSON. Objects and arrays recurse through json-value, so nesting is
// bounded only by the request's max_tokens.
const std::vector<json_rule>& json_rules() {
  static const std::vector<json_rule> rules = {
      {json_value,
       "json-object | json-array | json-string | json-number | json-boolean | json-null",
       {json_object, json_array, json_string, json_number, json_boolean, json_null}},
      {json_object,
       R"("{" ( json-string ":" json-value ( "," json-string ":" json-value )* )? "}")",
       {json_string, json_value}},
      {json_array, R"("[" ( json-value ( "," json-value )* )? "]")", {json_value}},
      {json_string, R"("\"" json-char* "\"")", {json_char}},
      {json_char, R"([^"\\\x00-\x1F] | "\\" ( ["\\/bfnrt] | "u" [0-9a-fA-F]{4} ))", {}},
      {json_number,
       R"(json-integer json-fraction? ( [eE] [-+]? [0-9]+ )?)",
       {json_integer, json_fraction}},
      {json_integer, R"("-"? ( "0" | [1-9] [0-9]* ))", {}},
      {json_fraction, R"("." [0-9]+)", {}},
      {json_boolean, R"("true" | "false")", {}},
      {json_null, R"("null")", {}},
  };
  return rules;
}

}  // namespace

std::string json_value_rules_text(const std::set<std::string, std::less<>>& used) {
  std::set<std::string_view> needed(used.begin(), used.end());
  for (std::size_t before = 0; before != needed.size();) {  // until the set is closed
    before = needed.size();
    for (const auto& rule : json_rules()) {
      if (needed.contains(rule.name)) needed.insert(rule.refers_to.begin(), rule.refers_to.end());
    }
  }
  std::string out;
  for (const auto& rule : json_rules()) {
    if (!needed.contains(rule.name)) continue;
    out += std::string(rule.name) + " ::= " + std::string(rule.body) + "\n";
  }
  return out;
}

}  // namespace pagedserve::grammar
