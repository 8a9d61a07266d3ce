#pragma once
// Small accessors over Boost.JSON objects for the tokenizer loaders: absent or null fields fall
// back to a default, wrong types are errors naming the field.

#include <optional>
#include <string>
#include <string_view>

#include <boost/json.hpp>

#include "common/result.h"

namespace pagedserve::json_util {

// The object's "type" field, or "" when there is none.
[[nodiscard]] std::string type_of(const boost::json::object& obj);

[[nodiscard]] bool get_bool(const boost::json::object& obj, std::string_view key, bool fallback);

// A string field; nullopt when absent or null.
[[nodiscard]] std::optional<std::string> get_string(const boost::json::object& obj,
                                                    std::string_view key);

// A string or an HF pattern object {"String": s} / {"Regex": r}.
struct pattern {
  std::string text;
  bool is_regex = false;
};
[[nodiscard]] result<pattern> get_pattern(const boost::json::object& obj, std::string_view key);

[[nodiscard]] error unsupported(std::string_view component, std::string_view type);

}  // namespace pagedserve::json_util
