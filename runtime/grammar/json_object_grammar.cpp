// Objects (properties in declaration order, the optional ones omissible), allOf of objects,
// and arrays (items, prefixItems, minItems/maxItems).
#include <algorithm>
#include <functional>
#include <map>

#include "runtime/grammar/gbnf_text.h"
#include "runtime/grammar/json_schema_rules.h"
#include "runtime/grammar/json_value_rules.h"

namespace pagedserve::grammar {
namespace {

// One member of an object's grammar: how it is written first in the object and after
// another member, and whether it may be left out. The additional properties are one member
// that repeats.
struct object_member {
  std::string first;
  std::string next;
  bool optional = false;
};

object_member property_member(const std::string& kv, bool required) {
  if (required) return {kv, "\",\" " + kv, false};
  return {kv, "( \",\" " + kv + " )?", true};
}

object_member additional_member(const std::string& kv) {
  return {kv + " ( \",\" " + kv + " )*", "( \",\" " + kv + " )*", true};
}

result<std::vector<std::string>> required_names(const boost::json::object& schema) {
  std::vector<std::string> names;
  const auto* required = schema.if_contains("required");
  if (required == nullptr) return names;
  if (!required->is_array()) return invalid_schema("'required' must be a list of strings");
  for (const auto& name : required->as_array()) {
    if (!name.is_string()) return invalid_schema("'required' must be a list of strings");
    names.emplace_back(name.as_string());
  }
  return names;
}

}  // namespace

// The members in order m0..mn-1, r the first required one. Once a member is written each
// later one is its `next` form in turn (a straight line); before that, the object starts
// with some optional mi (i < r) or with mr itself:
//   "{" ( m0.first tail1 | m1.first tail2 | ... | mr.first tail(r+1) ) "}"
// where tail(i) = mi.next tail(i+1). Tails shared by several alternatives (i <= r) are
// rules, so the grammar grows linearly with the number of optional properties. With no
// required member the whole group is optional.
result<std::string> schema_converter::object_rule(const object& schema, const std::string& hint,
                                                  int depth) {
  auto required = required_names(schema);
  if (!required.ok()) return required.err();
  auto is_required = [&](std::string_view name) {
    return std::find(required->begin(), required->end(), name) != required->end();
  };
  const auto* properties = schema.if_contains("properties");
  if (properties != nullptr && !properties->is_object()) {
    return invalid_schema("'properties' must be an object");
  }
  std::vector<object_member> members;
  if (properties != nullptr) {
    for (const auto& property : properties->as_object()) {
      std::string_view name = property.key();
      if (property.value() == boost::json::value(false)) {
        if (is_required(name))
          return invalid_schema("required property '" + std::string(name) + "' has schema false");
        continue;
      }
      auto value = visit(property.value(), hint + "-" + std::string(name), depth + 1);
      if (!value.ok()) return value;
      members.push_back(
          property_member(gbnf_literal(json_quoted(name) + ":") + " " + *value, is_required(name)));
    }
  }
  // Strict as xgrammar and vLLM: with `properties`, no others unless the schema says so.
  const boost::json::value* additional = schema.if_contains("additionalProperties");
  boost::json::value default_additional(properties == nullptr);
  if (additional == nullptr) additional = &default_additional;
  for (const auto& name : *required) {
    if (properties != nullptr && properties->as_object().contains(name)) continue;
    bool any = additional->is_bool();  // a required name not in properties
    auto value = any ? result<std::string>(use(json_value))
                     : visit(*additional, hint + "-" + name, depth + 1);
    if (!value.ok()) return value;
    members.push_back(property_member(gbnf_literal(json_quoted(name) + ":") + " " + *value, true));
  }
  if (*additional != boost::json::value(false)) {
    auto value = visit(*additional, hint + "-additional", depth + 1);
    if (!value.ok()) return value;
    members.push_back(additional_member(use(json_string) + " \":\" " + *value));
  }
  if (members.empty()) return gbnf_literal("{}");

  std::string name = reserve_rule(hint);
  std::size_t first_required = members.size();
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (!members[i].optional) {
      first_required = i;
      break;
    }
  }
  std::size_t last_start = std::min(first_required, members.size() - 1);
  std::map<std::size_t, std::string> tail_rules;
  std::function<std::string(std::size_t)> tail = [&](std::size_t i) -> std::string {
    if (i >= members.size()) return "";
    if (auto known = tail_rules.find(i); known != tail_rules.end()) return known->second;
    std::string rest = tail(i + 1);
    std::string body = members[i].next + (rest.empty() ? "" : " " + rest);
    if (i > last_start) return body;  // only one way leads here
    return tail_rules[i] = add_rule(name + "-tail" + std::to_string(i), body);
  };
  std::string starts;
  for (std::size_t i = 0; i <= last_start; ++i) {
    std::string rest = tail(i + 1);
    starts += (i == 0 ? "" : " | ") + members[i].first + (rest.empty() ? "" : " " + rest);
  }
  bool all_optional = first_required == members.size();
  define_rule(name, "\"{\" ( " + starts + " )" + (all_optional ? "?" : "") + " \"}\"");
  return name;
}

result<std::string> schema_converter::visit_all_of(const object& schema, const std::string& hint,
                                                   int depth) {
  const auto& list = schema.at("allOf");
  if (!list.is_array() || list.as_array().empty()) {
    return invalid_schema("'allOf' must be a non-empty list of schemas");
  }
  if (list.as_array().size() == 1 && check_siblings(schema, "allOf").ok()) {
    return visit(list.as_array()[0], hint, depth + 1);  // how pydantic annotates a $ref
  }
  object merged = schema;
  merged.erase("allOf");
  boost::json::object properties;
  boost::json::array required;
  if (const auto* own = schema.if_contains("properties"); own != nullptr && own->is_object()) {
    properties = own->as_object();
  }
  if (const auto* own = schema.if_contains("required"); own != nullptr && own->is_array()) {
    required = own->as_array();
  }
  for (const auto& each : list.as_array()) {
    const boost::json::value* part = &each;
    for (int hops = 0; part->is_object() && part->as_object().contains("$ref"); ++hops) {
      const auto& ref = part->as_object().at("$ref");
      if (!ref.is_string() || hops > max_schema_depth) return invalid_schema("bad '$ref' in allOf");
      auto target = resolve_ref(ref.as_string());
      if (!target.ok()) return target.err();
      part = *target;
    }
    if (!part->is_object()) return unsupported_keyword("allOf", "only of object schemas");
    const object& sub = part->as_object();
    const auto* type = sub.if_contains("type");
    bool is_object_schema = type != nullptr ? *type == "object" : sub.contains("properties");
    if (!is_object_schema || sub.contains("allOf") || sub.contains("anyOf") ||
        sub.contains("oneOf")) {
      return unsupported_keyword("allOf", "only of object schemas with properties");
    }
    for (const auto& member : sub) {
      if (member.key() == "properties" && member.value().is_object()) {
        for (const auto& property : member.value().as_object()) {
          properties[property.key()] = property.value();
        }
      } else if (member.key() == "required" && member.value().is_array()) {
        for (const auto& name : member.value().as_array()) required.push_back(name);
      } else if (!merged.contains(member.key())) {
        merged[member.key()] = member.value();
      }
    }
  }
  merged["type"] = "object";
  merged["properties"] = std::move(properties);
  merged["required"] = std::move(required);
  return visit(boost::json::value(std::move(merged)), hint, depth + 1);
}

// "[" p0 ( "," p1 ( "," p2 ... )? )? "]" for prefixItems, the ones past minItems optional,
// then ( "," item ){lo,hi} for the rest.
result<std::string> schema_converter::array_rule(const object& schema, const std::string& hint,
                                                 int depth) {
  auto min_items = count_keyword(schema, "minItems");
  if (!min_items.ok()) return min_items.err();
  auto max_items = count_keyword(schema, "maxItems");
  if (!max_items.ok()) return max_items.err();
  std::uint64_t min = min_items->value_or(0);
  std::optional<std::uint64_t> max = *max_items;
  if (max && *max < min) return invalid_schema("'minItems' is above 'maxItems'");

  const auto* items = schema.if_contains("items");
  const auto* prefix_items = schema.if_contains("prefixItems");
  const boost::json::value* rest = items;       // the schema of the items past the prefix
  if (items != nullptr && items->is_array()) {  // draft 4's tuple form
    prefix_items = items;
    rest = schema.if_contains("additionalItems");
  }
  std::vector<std::string> prefix;
  if (prefix_items != nullptr) {
    if (!prefix_items->is_array()) return invalid_schema("'prefixItems' must be a list");
    for (const auto& each : prefix_items->as_array()) {
      auto element = visit(each, hint + "-" + std::to_string(prefix.size()), depth + 1);
      if (!element.ok()) return element;
      prefix.push_back(std::move(*element));
    }
  }
  std::optional<std::string> item;
  if (rest == nullptr || *rest != boost::json::value(false)) {
    auto element = rest == nullptr ? result<std::string>(use(json_value))
                                   : visit(*rest, hint + "-item", depth + 1);
    if (!element.ok()) return element;
    item = std::move(*element);
  }
  std::uint64_t num_prefix = prefix.size();
  if (!item) {
    if (min > num_prefix) return invalid_schema("'minItems' is above the number of prefixItems");
    max = std::min(max.value_or(num_prefix), num_prefix);
  }
  if (max == std::optional<std::uint64_t>(0)) return gbnf_literal("[]");

  std::string body;
  if (num_prefix == 0) {
    std::optional<std::uint64_t> more = max ? std::optional(*max - 1) : std::nullopt;
    body = *item;
    std::string others = repeat_gbnf("( \",\" " + *item + " )", min == 0 ? 0 : min - 1, more);
    if (!others.empty()) body += " " + others;
    if (min == 0) body = "( " + body + " )?";
  } else {
    std::uint64_t num_written = max ? std::min(*max, num_prefix) : num_prefix;
    if (item && (!max || *max > num_prefix)) {
      std::optional<std::uint64_t> more = max ? std::optional(*max - num_prefix) : std::nullopt;
      body = repeat_gbnf("( \",\" " + *item + " )", min > num_prefix ? min - num_prefix : 0, more);
    }
    for (std::uint64_t i = num_written; i-- > 0;) {
      std::string element = (i == 0 ? "" : "\",\" ") + prefix[i] + (body.empty() ? "" : " " + body);
      body = i >= min ? "( " + element + " )?" : element;
    }
  }
  return add_rule(hint, "\"[\" " + body + " \"]\"");
}

}  // namespace pagedserve::grammar
