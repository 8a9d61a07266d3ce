// json_schema_to_gbnf: parsing, the walk over subschemas, keyword checks and rule naming.
// Combinators and $ref are in json_schema_combinators.cpp; the types in their own files.
#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>

#include "runtime/grammar/gbnf_text.h"
#include "runtime/grammar/json_schema_rules.h"
#include "runtime/grammar/json_value_rules.h"
#include "runtime/grammar/schema_grammar.h"

namespace pagedserve::grammar {
namespace {

// Deep enough for any schema under max_schema_depth (a subschema level takes at most two
// JSON levels, as in properties/name), shallow enough to parse and free without recursion
// worries.
constexpr std::size_t max_json_depth = 2 * max_schema_depth + 64;

constexpr std::array handled_keywords = {"type",
                                         "properties",
                                         "required",
                                         "additionalProperties",
                                         "enum",
                                         "const",
                                         "anyOf",
                                         "oneOf",
                                         "allOf",
                                         "$ref",
                                         "$defs",
                                         "definitions",
                                         "items",
                                         "prefixItems",
                                         "additionalItems",
                                         "minItems",
                                         "maxItems",
                                         "minLength",
                                         "maxLength",
                                         "pattern",
                                         "format",
                                         "minimum",
                                         "maximum",
                                         "exclusiveMinimum",
                                         "exclusiveMaximum",
                                         "nullable"};

// Annotations: they describe the value but constrain nothing.
constexpr std::array ignored_keywords = {"title",    "description", "$schema", "$id",
                                         "$comment", "examples",    "default", "deprecated",
                                         "readOnly", "writeOnly",   "strict"};

bool is_one_of(std::string_view key, const auto& keywords) {
  return std::find(keywords.begin(), keywords.end(), key) != keywords.end();
}

status check_keywords(const boost::json::object& schema) {
  for (const auto& member : schema) {
    std::string_view key = member.key();
    if (!is_one_of(key, handled_keywords) && !is_one_of(key, ignored_keywords)) {
      return unsupported_keyword(key);
    }
  }
  return status::success();
}

// The type a schema without "type" describes, from the keywords it uses ("" for any value).
std::string_view implied_type(const boost::json::object& schema) {
  static constexpr std::array<std::pair<const char*, const char*>, 13> implied = {{
      {"properties", "object"},
      {"additionalProperties", "object"},
      {"required", "object"},
      {"items", "array"},
      {"prefixItems", "array"},
      {"minItems", "array"},
      {"maxItems", "array"},
      {"minLength", "string"},
      {"maxLength", "string"},
      {"pattern", "string"},
      {"format", "string"},
      {"minimum", "number"},
      {"maximum", "number"},
  }};
  for (auto [keyword, type] : implied) {
    if (schema.contains(keyword)) return type;
  }
  if (schema.contains("exclusiveMinimum") || schema.contains("exclusiveMaximum")) return "number";
  return "";
}

std::string sanitize_rule_name(const std::string& hint) {
  std::string name;
  for (char c : hint.substr(0, 40)) {
    name += std::isalnum(static_cast<unsigned char>(c)) != 0 ? c : '-';
  }
  return name.empty() ? "schema" : name;
}

}  // namespace

result<std::string> json_schema_to_gbnf(std::string_view schema_json) {
  boost::json::parse_options options;
  options.max_depth = max_json_depth;
  boost::system::error_code ec;
  boost::json::value schema = boost::json::parse(schema_json, ec, {}, options);
  if (ec == boost::json::error::too_deep) {
    return invalid_schema("the schema nests deeper than " + std::to_string(max_schema_depth) +
                          " levels");
  }
  if (ec) return invalid_schema("the schema is not valid JSON: " + ec.message());
  return schema_converter(schema).convert();
}

result<std::string> schema_converter::convert() {
  rule_index_.emplace("root", 0);  // taken by the start rule written below
  auto root = visit(root_, "root", 0);
  if (!root.ok()) return root;
  std::string out = "root ::= " + *root + "\n";
  for (const auto& [name, body] : rules_) out += name + " ::= " + body + "\n";
  return out + json_value_rules_text(used_json_rules_);
}

result<std::string> schema_converter::visit(const boost::json::value& schema,
                                            const std::string& hint, int depth) {
  if (depth > max_schema_depth) {
    return invalid_schema("the schema nests deeper than " + std::to_string(max_schema_depth) +
                          " levels");
  }
  if (schema.is_bool()) {
    if (schema.as_bool()) return use(json_value);
    return invalid_schema("the schema 'false' accepts no value");
  }
  if (!schema.is_object()) return invalid_schema("a schema must be an object or a boolean");
  const object& keywords = schema.as_object();
  if (auto checked = check_keywords(keywords); !checked.ok()) return checked.err();
  auto expression = visit_keywords(keywords, hint, depth);
  if (!expression.ok()) return expression;
  const auto* nullable = keywords.if_contains("nullable");
  if (nullable != nullptr && nullable->is_bool() && nullable->as_bool()) {
    return "( " + *expression + " | " + use(json_null) + " )";
  }
  return expression;
}

result<std::string> schema_converter::visit_keywords(const object& schema, const std::string& hint,
                                                     int depth) {
  if (schema.contains("$ref")) return visit_ref(schema, depth);
  if (schema.contains("const") || schema.contains("enum")) return visit_enum(schema, hint);
  if (schema.contains("anyOf")) return visit_alternatives(schema, "anyOf", hint, depth);
  if (schema.contains("oneOf")) return visit_alternatives(schema, "oneOf", hint, depth);
  if (schema.contains("allOf")) return visit_all_of(schema, hint, depth);
  const auto* type = schema.if_contains("type");
  if (type == nullptr) {
    std::string_view implied = implied_type(schema);
    if (implied.empty()) return use(json_value);
    return visit_type(schema, implied, hint, depth);
  }
  if (type->is_string()) return visit_type(schema, type->as_string(), hint, depth);
  if (!type->is_array() || type->as_array().empty()) {
    return invalid_schema("'type' must be a string or a non-empty list of strings");
  }
  std::string alternatives;
  for (const auto& each : type->as_array()) {
    if (!each.is_string()) return invalid_schema("'type' must list strings");
    auto expression = visit_type(schema, each.as_string(), hint, depth);
    if (!expression.ok()) return expression;
    alternatives += (alternatives.empty() ? "" : " | ") + *expression;
  }
  return add_rule(hint, alternatives);
}

result<std::string> schema_converter::visit_type(const object& schema, std::string_view type,
                                                 const std::string& hint, int depth) {
  if (type == "object") return object_rule(schema, hint, depth);
  if (type == "array") return array_rule(schema, hint, depth);
  if (type == "string") return string_rule(schema, hint);
  if (type == "integer") return integer_rule(schema, hint);
  if (type == "number") return number_rule(schema, hint);
  if (type == "boolean") return use(json_boolean);
  if (type == "null") return use(json_null);
  return invalid_schema(concat({"unknown type '", type, "'"}));
}

std::string schema_converter::reserve_rule(const std::string& hint) {
  std::string base = sanitize_rule_name(hint);
  std::string name = base;
  for (int suffix = 1; rule_index_.contains(name) || name.starts_with("json-"); ++suffix) {
    name = base + "-" + std::to_string(suffix);
  }
  rule_index_.emplace(name, rules_.size());
  rules_.emplace_back(name, "");
  return name;
}

void schema_converter::define_rule(const std::string& name, std::string body) {
  rules_[rule_index_.find(name)->second].second = std::move(body);
}

std::string schema_converter::add_rule(const std::string& hint, std::string body) {
  if (const auto it = rules_by_body_.find(body); it != rules_by_body_.end()) return it->second;
  std::string name = reserve_rule(hint);
  rules_by_body_.emplace(body, name);
  define_rule(name, std::move(body));
  return name;
}

std::string schema_converter::use(std::string_view json_rule) {
  used_json_rules_.emplace(json_rule);
  return std::string(json_rule);
}

error unsupported_keyword(std::string_view keyword, std::string_view detail) {
  std::string message = concat({"JSON Schema keyword '", keyword, "' is not supported"});
  if (!detail.empty()) message.append(": ").append(detail);
  return make_error(error_code::unsupported, std::move(message));
}

error invalid_schema(const std::string& what) {
  return make_error(error_code::invalid_argument, "invalid JSON Schema: " + what);
}

result<std::optional<std::uint64_t>> count_keyword(const boost::json::object& schema,
                                                   std::string_view keyword) {
  const auto* value = schema.if_contains(keyword);
  if (value == nullptr) return std::optional<std::uint64_t>{};
  if (value->is_uint64()) return std::optional<std::uint64_t>{value->as_uint64()};
  if (value->is_int64() && value->as_int64() >= 0) {
    return std::optional<std::uint64_t>{static_cast<std::uint64_t>(value->as_int64())};
  }
  std::string message = "'";
  message.append(keyword).append("' must be a non-negative integer");
  return invalid_schema(message);
}

std::string repeat_gbnf(const std::string& element, std::uint64_t min,
                        std::optional<std::uint64_t> max) {
  if (max == std::optional<std::uint64_t>(0)) return "";
  std::string out = element;
  if (!max) {
    if (min <= 1) {
      out += min == 0 ? '*' : '+';
    } else {
      out.append("{").append(std::to_string(min)).append(",}");
    }
  } else if (min == *max) {
    if (min != 1) out.append("{").append(std::to_string(min)).append("}");
  } else if (min == 0 && *max == 1) {
    out += '?';
  } else {
    out.append("{")
        .append(std::to_string(min))
        .append(",")
        .append(std::to_string(*max))
        .append("}");
  }
  return out;
}

std::string json_quoted(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x80) {
      out += json_escaped(byte);  // quotes, backslashes and control characters escaped
    } else {
      out += c;  // a byte of a multi-byte UTF-8 sequence: kept as it is
    }
  }
  return out + "\"";
}

}  // namespace pagedserve::grammar
