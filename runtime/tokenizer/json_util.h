#pragma once
// Small accessors over Boost.JSON objects for the tokenizer loaders: absent or null fields fall
// back to a default, wrong types are errors naming the field.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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

// A "Sequence" component's steps: the array under `key` ("normalizers", "pretokenizers",
// "processors", "decoders"), each parsed by `parse_step` (result<std::unique_ptr<Step>>);
// a step parsed as null (a no-op) is left out.
template <class Step, class ParseStep>
[[nodiscard]] result<std::vector<std::unique_ptr<Step>>> parse_sequence_steps(
    const boost::json::object& obj, std::string_view key, ParseStep parse_step) {
  const auto* list = obj.if_contains(key);
  if (list == nullptr || !list->is_array()) {
    return make_error(error_code::corrupt_data, "Sequence without " + std::string(key));
  }
  std::vector<std::unique_ptr<Step>> steps;
  for (const auto& item : list->get_array()) {
    auto step = parse_step(item);
    if (!step) return step.err();
    if (*step) steps.push_back(std::move(*step));
  }
  return steps;
}

}  // namespace pagedserve::json_util
