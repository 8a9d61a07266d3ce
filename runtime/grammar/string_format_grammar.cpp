// Strings: plain, with a length, a pattern (regex_translate.h, written as JSON string
// content) or one of the fixed formats.
#include <array>

#include "runtime/grammar/json_schema_rules.h"
#include "runtime/grammar/json_value_rules.h"
#include "runtime/grammar/regex_translate.h"

namespace pagedserve::grammar {
namespace {

constexpr std::string_view date_gbnf =
    R"([0-9]{4} "-" ( "0" [1-9] | "1" [0-2] ) "-" ( "0" [1-9] | [12] [0-9] | "3" [01] ))";
constexpr std::string_view time_gbnf =
    R"(( [01] [0-9] | "2" [0-3] ) ":" [0-5] [0-9] ":" [0-5] [0-9] ( "." [0-9]+ )? )"
    R"(( "Z" | [+-] ( [01] [0-9] | "2" [0-3] ) ":" [0-5] [0-9] ))";
constexpr std::string_view uuid_gbnf =
    R"([0-9a-fA-F]{8} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{4} "-" )"
    R"([0-9a-fA-F]{12})";
// Dot-atom local part and a domain of dot-separated labels (RFC 5321 without quoted local
// parts or address literals); every character is plain JSON string content.
constexpr std::string_view email_gbnf =
    R"([a-zA-Z0-9!#$%&'*+/=?^_`{|}~\-]+ ( "." [a-zA-Z0-9!#$%&'*+/=?^_`{|}~\-]+ )* "@" )"
    R"([a-zA-Z0-9] ( [a-zA-Z0-9\-]* [a-zA-Z0-9] )? ( "." [a-zA-Z0-9] ( [a-zA-Z0-9\-]* )"
    R"([a-zA-Z0-9] )? )+)";

// The content of a string in a known format; "" for the formats left unchecked.
std::string format_gbnf(std::string_view format) {
  if (format == "date") return std::string(date_gbnf);
  if (format == "time") return std::string(time_gbnf);
  if (format == "date-time") return std::string(date_gbnf) + " \"T\" " + std::string(time_gbnf);
  if (format == "uuid") return std::string(uuid_gbnf);
  if (format == "email") return std::string(email_gbnf);
  return "";
}

std::string quoted(const std::string& content) { return "\"\\\"\" " + content + " \"\\\"\""; }

}  // namespace

result<std::string> schema_converter::string_rule(const object& schema, const std::string& hint) {
  auto min_length = count_keyword(schema, "minLength");
  if (!min_length.ok()) return min_length.err();
  auto max_length = count_keyword(schema, "maxLength");
  if (!max_length.ok()) return max_length.err();
  bool has_length = *min_length || *max_length;
  if (const auto* pattern = schema.if_contains("pattern")) {
    if (!pattern->is_string()) return invalid_schema("'pattern' must be a string");
    if (has_length) return unsupported_keyword("pattern", "together with minLength/maxLength");
    auto content = regex_to_gbnf_expression(pattern->as_string(), regex_text::json_content);
    if (!content.ok()) {
      return make_error(content.err().code, "'pattern': " + content.err().message);
    }
    return add_rule(hint, quoted(*content));
  }
  if (const auto* format = schema.if_contains("format")) {
    if (!format->is_string()) return invalid_schema("'format' must be a string");
    std::string content = format_gbnf(format->as_string());
    if (!content.empty()) {
      if (has_length) return unsupported_keyword("format", "together with minLength/maxLength");
      return add_rule(hint, quoted(content));
    }
  }
  if (!has_length) return use(json_string);
  std::uint64_t min = min_length->value_or(0);
  if (*max_length && **max_length < min) return invalid_schema("'minLength' is above 'maxLength'");
  std::string content = repeat_gbnf(use(json_char), min, *max_length);
  return add_rule(hint, quoted(content.empty() ? "\"\"" : content));
}

}  // namespace pagedserve::grammar
