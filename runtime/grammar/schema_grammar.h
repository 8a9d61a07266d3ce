#pragma once
// Translations of the structured-output specifications into GBNF (compiled_grammar.h), as
// vLLM's structured_outputs / OpenAI's response_format give them. Errors name what is not
// supported (unsupported) or malformed (invalid_argument); the OpenAI layer turns both into
// a 400.
//
// JSON is generated compact, as xgrammar's any_whitespace=false: no whitespace between
// tokens, ", " and ": " never, so a model cannot stall a request in endless spaces.

#include <span>
#include <string>
#include <string_view>

#include "common/result.h"

namespace pagedserve::grammar {

// A JSON Schema (its JSON text). See docs/structured-outputs.md for the keywords.
[[nodiscard]] result<std::string> json_schema_to_gbnf(std::string_view schema_json);
// Any JSON object (OpenAI's response_format json_object).
[[nodiscard]] std::string json_object_gbnf();
// An ECMAScript regular expression (the subset xgrammar accepts), matched in full.
[[nodiscard]] result<std::string> regex_to_gbnf(std::string_view pattern);
// Exactly one of the strings.
[[nodiscard]] result<std::string> choice_to_gbnf(std::span<const std::string> choices);

}  // namespace pagedserve::grammar
