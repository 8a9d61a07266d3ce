#include "runtime/tokenizer/json_util.h"

namespace pagedserve::json_util {

std::string type_of(const boost::json::object& obj) {
  const auto* v = obj.if_contains("type");
  if (v == nullptr || !v->is_string()) return "";
  return std::string(v->get_string());
}

bool get_bool(const boost::json::object& obj, std::string_view key, bool fallback) {
  const auto* v = obj.if_contains(key);
  if (v == nullptr || !v->is_bool()) return fallback;
  return v->get_bool();
}

std::optional<std::string> get_string(const boost::json::object& obj, std::string_view key) {
  const auto* v = obj.if_contains(key);
  if (v == nullptr || !v->is_string()) return std::nullopt;
  return std::string(v->get_string());
}

result<pattern> get_pattern(const boost::json::object& obj, std::string_view key) {
  const auto* v = obj.if_contains(key);
  if (v != nullptr && v->is_string()) return pattern{std::string(v->get_string()), false};
  if (v != nullptr && v->is_object()) {
    const auto& p = v->get_object();
    if (auto s = get_string(p, "String")) return pattern{*s, false};
    if (auto r = get_string(p, "Regex")) return pattern{*r, true};
  }
  return make_error(error_code::corrupt_data, "field '" + std::string(key) + "' is not a pattern");
}

error unsupported(std::string_view component, std::string_view type) {
  return make_error(error_code::unsupported,
                    "unsupported " + std::string(component) + " type '" + std::string(type) + "'");
}

}  // namespace pagedserve::json_util
