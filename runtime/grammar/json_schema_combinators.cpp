// The schema keywords that combine or name other schemas: $ref, anyOf/oneOf, allOf, and the
// value lists const/enum.
#include <array>
#include <charconv>

#include "runtime/grammar/gbnf_text.h"
#include "runtime/grammar/json_schema_rules.h"

namespace pagedserve::grammar {
namespace {

// Keywords that may stand beside $ref, anyOf and oneOf: they do not constrain the value
// (nullable is applied by visit around the result).
constexpr std::array free_siblings = {
    "$defs",    "definitions", "nullable", "title",      "description", "$schema",   "$id",
    "$comment", "examples",    "default",  "deprecated", "readOnly",    "writeOnly", "strict"};

}  // namespace

status check_siblings(const boost::json::object& schema, std::string_view keyword) {
  for (const auto& member : schema) {
    std::string_view key = member.key();
    if (key == keyword) continue;
    if (std::find(free_siblings.begin(), free_siblings.end(), key) == free_siblings.end()) {
      return unsupported_keyword(key, concat({"beside '", keyword, "'"}));
    }
  }
  return status::success();
}

namespace {

void append_json_text(const boost::json::value& value, std::string& out);

void append_number(const boost::json::value& value, std::string& out) {
  if (value.is_int64()) {
    out += std::to_string(value.as_int64());
  } else if (value.is_uint64()) {
    out += std::to_string(value.as_uint64());
  } else {
    char buffer[32];
    auto end = std::to_chars(buffer, buffer + sizeof(buffer), value.as_double()).ptr;
    out.append(buffer, end);
  }
}

// Compact JSON as a model writes it: no whitespace, shortest numbers, members in order.
void append_json_text(const boost::json::value& value, std::string& out) {
  switch (value.kind()) {
    case boost::json::kind::null:
      out += "null";
      return;
    case boost::json::kind::bool_:
      out += value.as_bool() ? "true" : "false";
      return;
    case boost::json::kind::string:
      out += json_quoted(value.as_string());
      return;
    case boost::json::kind::array: {
      out += '[';
      bool first = true;
      for (const auto& element : value.as_array()) {
        if (!std::exchange(first, false)) out += ',';
        append_json_text(element, out);
      }
      out += ']';
      return;
    }
    case boost::json::kind::object: {
      out += '{';
      bool first = true;
      for (const auto& member : value.as_object()) {
        if (!std::exchange(first, false)) out += ',';
        out += json_quoted(member.key()) + ":";
        append_json_text(member.value(), out);
      }
      out += '}';
      return;
    }
    default:
      append_number(value, out);
  }
}

std::string json_literal(const boost::json::value& value) {
  std::string text;
  append_json_text(value, text);
  return gbnf_literal(text);
}

std::string unescape_pointer_token(std::string_view token) {
  std::string out;
  for (std::size_t i = 0; i < token.size(); ++i) {
    if (token[i] == '~' && i + 1 < token.size() && (token[i + 1] == '0' || token[i + 1] == '1')) {
      out += token[++i] == '0' ? '~' : '/';
    } else {
      out += token[i];
    }
  }
  return out;
}

}  // namespace

result<const boost::json::value*> schema_converter::resolve_ref(std::string_view ref) const {
  if (!ref.starts_with('#')) {
    return unsupported_keyword(
        "$ref", concat({"only references within the schema ('#...') are, not '", ref, "'"}));
  }
  const boost::json::value* at = &root_;
  std::string_view pointer = ref.substr(1);
  if (!pointer.empty() && !pointer.starts_with('/')) {
    return unsupported_keyword("$ref", concat({"'", ref, "' is not a JSON pointer"}));
  }
  while (!pointer.empty()) {
    pointer.remove_prefix(1);
    std::size_t slash = std::min(pointer.find('/'), pointer.size());
    std::string token = unescape_pointer_token(pointer.substr(0, slash));
    pointer.remove_prefix(slash);
    const boost::json::value* next = nullptr;
    if (at->is_object()) next = at->as_object().if_contains(token);
    if (at->is_array() && !token.empty() && token.find_first_not_of("0123456789") == token.npos &&
        std::stoull(token) < at->as_array().size()) {
      next = &at->as_array()[std::stoull(token)];
    }
    if (next == nullptr) return invalid_schema(concat({"$ref '", ref, "' does not resolve"}));
    at = next;
  }
  return at;
}

// Each target becomes one rule, named before it is visited: a reference back to it from
// inside (a tree's children) then finds the name, which makes the rule recursive.
result<std::string> schema_converter::visit_ref(const object& schema, int depth) {
  if (auto checked = check_siblings(schema, "$ref"); !checked.ok()) return checked.err();
  const auto& ref_value = schema.at("$ref");
  if (!ref_value.is_string()) return invalid_schema("'$ref' must be a string");
  std::string ref(ref_value.as_string());
  if (auto known = ref_rules_.find(ref); known != ref_rules_.end()) return known->second;
  auto target = resolve_ref(ref);
  if (!target.ok()) return target.err();
  std::string last = ref.substr(ref.rfind('/') == std::string::npos ? 1 : ref.rfind('/') + 1);
  std::string name = reserve_rule("ref-" + (last.empty() ? std::string("root") : last));
  ref_rules_.emplace(ref, name);
  auto body = visit(**target, name, depth + 1);
  if (!body.ok()) return body;
  if (*body == name) return invalid_schema("$ref '" + ref + "' refers only to itself");
  define_rule(name, std::move(*body));
  return name;
}

result<std::string> schema_converter::visit_alternatives(const object& schema,
                                                         std::string_view keyword,
                                                         const std::string& hint, int depth) {
  if (auto checked = check_siblings(schema, keyword); !checked.ok()) return checked.err();
  const auto& list = schema.at(keyword);
  if (!list.is_array() || list.as_array().empty()) {
    return invalid_schema(concat({"'", keyword, "' must be a non-empty list of schemas"}));
  }
  std::string alternatives;
  std::size_t index = 0;
  for (const auto& each : list.as_array()) {
    auto expression = visit(each, hint + "-" + std::to_string(index++), depth + 1);
    if (!expression.ok()) return expression;
    alternatives += (alternatives.empty() ? "" : " | ") + *expression;
  }
  return add_rule(hint, alternatives);
}

result<std::string> schema_converter::visit_enum(const object& schema, const std::string& hint) {
  if (const auto* value = schema.if_contains("const")) return json_literal(*value);
  const auto& values = schema.at("enum");
  if (!values.is_array() || values.as_array().empty()) {
    return invalid_schema("'enum' must be a non-empty list");
  }
  std::string alternatives;
  for (const auto& each : values.as_array()) {
    alternatives += (alternatives.empty() ? "" : " | ") + json_literal(each);
  }
  return add_rule(hint, alternatives);
}

}  // namespace pagedserve::grammar
