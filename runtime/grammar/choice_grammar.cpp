// choice_to_gbnf and json_object_gbnf: the two translations with no input to parse.
#include <string>

#include "runtime/grammar/gbnf_text.h"
#include "runtime/grammar/json_value_rules.h"
#include "runtime/grammar/schema_grammar.h"

namespace pagedserve::grammar {

result<std::string> choice_to_gbnf(std::span<const std::string> choices) {
  if (choices.empty()) {
    return make_error(error_code::invalid_argument, "choice needs at least one string");
  }
  std::string out = "root ::=";
  for (std::size_t i = 0; i < choices.size(); ++i) {
    out += (i == 0 ? " " : " | ") + gbnf_literal(choices[i]);
  }
  return out + "\n";
}

std::string json_object_gbnf() {
  return "root ::= json-object\n" + json_value_rules_text({std::string(json_object)});
}

}  // namespace pagedserve::grammar
