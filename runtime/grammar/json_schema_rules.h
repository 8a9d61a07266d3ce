#pragma once
// schema_converter: the JSON Schema translator behind json_schema_to_gbnf. It walks the
// schema once, returning for each subschema a GBNF expression and adding a named rule for
// each object, array, enum and $ref target, so the grammar stays linear in the schema's size.
// Internal to runtime/grammar; the methods are spread over json_schema_grammar.cpp (walk,
// combinators, $ref), json_object_grammar.cpp, string_format_grammar.cpp and
// integer_range_grammar.cpp.

#include <boost/json.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace pagedserve::grammar {

// Subschemas nested deeper than this are refused (invalid_argument) before recursing.
inline constexpr int max_schema_depth = 128;

// One end of a numeric interval.
struct number_bound {
  std::int64_t value = 0;
  bool exclusive = false;
};

// Canonical decimal integers (no leading zeros, no "-0") in [min, max]; either end may be
// open. Empty when the interval is.
[[nodiscard]] std::string integer_range_gbnf(std::optional<std::int64_t> min,
                                             std::optional<std::int64_t> max);
// JSON numbers without exponent between integer bounds. Empty when none.
[[nodiscard]] std::string number_range_gbnf(std::optional<number_bound> min,
                                            std::optional<number_bound> max);

// A JSON string's compact serialization (escaping " \ and control characters only).
[[nodiscard]] std::string json_quoted(std::string_view text);

class schema_converter {
 public:
  explicit schema_converter(const boost::json::value& root) : root_(root) {}

  // The whole grammar: `root ::= ...`, the schema's rules, then the JSON rules they use.
  [[nodiscard]] result<std::string> convert();

 private:
  using object = boost::json::object;

  // The expression of a subschema. `hint` names the rules it adds.
  result<std::string> visit(const boost::json::value& schema, const std::string& hint, int depth);
  result<std::string> visit_keywords(const object& schema, const std::string& hint, int depth);
  result<std::string> visit_type(const object& schema, std::string_view type,
                                 const std::string& hint, int depth);
  result<std::string> visit_ref(const object& schema, int depth);
  result<std::string> visit_alternatives(const object& schema, std::string_view keyword,
                                         const std::string& hint, int depth);
  result<std::string> visit_all_of(const object& schema, const std::string& hint, int depth);
  result<std::string> visit_enum(const object& schema, const std::string& hint);
  result<const boost::json::value*> resolve_ref(std::string_view ref) const;

  result<std::string> object_rule(const object& schema, const std::string& hint, int depth);
  result<std::string> array_rule(const object& schema, const std::string& hint, int depth);
  result<std::string> string_rule(const object& schema, const std::string& hint);
  result<std::string> integer_rule(const object& schema, const std::string& hint);
  result<std::string> number_rule(const object& schema, const std::string& hint);

  // A fresh rule name from `hint` (sanitized, made unique); define it later.
  std::string reserve_rule(const std::string& hint);
  void define_rule(const std::string& name, std::string body);
  // reserve_rule + define_rule, or the rule already added with the same body (equal
  // subschemas share their rule, so the matcher's masks for it are computed once).
  std::string add_rule(const std::string& hint, std::string body);
  // The name of a json_value_rules.h rule, which is then emitted.
  std::string use(std::string_view json_rule);

  const boost::json::value& root_;
  std::vector<std::pair<std::string, std::string>> rules_;  // in order of reservation
  std::map<std::string, std::size_t, std::less<>> rule_index_;
  std::set<std::string, std::less<>> used_json_rules_;
  std::map<std::string, std::string, std::less<>> ref_rules_;      // $ref text -> rule name
  std::map<std::string, std::string, std::less<>> rules_by_body_;  // add_rule's body -> name
};

// Helpers shared by the converter's files.
[[nodiscard]] error unsupported_keyword(std::string_view keyword, std::string_view detail = {});
[[nodiscard]] error invalid_schema(const std::string& what);
// Unsupported when a keyword other than annotations, $defs and nullable stands beside
// `keyword` (which takes the whole schema: $ref, anyOf, oneOf).
[[nodiscard]] status check_siblings(const boost::json::object& schema, std::string_view keyword);
// A non-negative integer keyword (minItems, maxLength...), or nullopt when absent.
[[nodiscard]] result<std::optional<std::uint64_t>> count_keyword(const boost::json::object& schema,
                                                                 std::string_view keyword);
// x{min,max} in GBNF, "" when max is 0.
[[nodiscard]] std::string repeat_gbnf(const std::string& element, std::uint64_t min,
                                      std::optional<std::uint64_t> max);

}  // namespace pagedserve::grammar
