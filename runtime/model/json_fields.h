#pragma once
// json_fields: typed reads of one JSON object's keys that remember the first problem, so a
// parser reads every field in a row and checks once at the end. Messages name the source
// (a file name) and the key path, e.g. "config.json: key 'rope_scaling.factor' must be a number".

#include <boost/json.hpp>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace pagedserve::detail {

// Parses `text` as a JSON object; the error names `source`.
[[nodiscard]] result<boost::json::object> parse_json_object(std::string_view text,
                                                            std::string_view source);

// Reads and parses a JSON object file; errors name the path (not_found when it is absent).
[[nodiscard]] result<boost::json::object> read_json_object_file(const std::filesystem::path& path);
// The same for any JSON value (modules.json is a list), under the same size limit.
[[nodiscard]] result<boost::json::value> read_json_file(const std::filesystem::path& path);

class json_fields {
 public:
  // `prefix` is prepended to keys in messages ("rope_scaling.").
  json_fields(const boost::json::object& object, std::string source, std::string prefix = {});

  // True when the key exists and is not null.
  [[nodiscard]] bool has(std::string_view key) const;

  std::int64_t required_int(std::string_view key);
  std::optional<std::int64_t> optional_int(std::string_view key);
  std::string required_string(std::string_view key);
  std::optional<std::string> optional_string(std::string_view key);
  double number_or(std::string_view key, double fallback);
  std::optional<double> optional_number(std::string_view key);
  double required_number(std::string_view key);
  bool bool_or(std::string_view key, bool fallback);
  // An integer or a list of integers (HF's eos_token_id); absent or null gives {}.
  std::vector<std::int64_t> int_or_int_list(std::string_view key);
  // A nested object; nullptr when absent or null (an error when another type).
  const boost::json::object* optional_object(std::string_view key);

  // Records a problem with `key` (the first one wins).
  void fail(error_code code, std::string_view key, std::string_view what);
  // Adopts the first problem of a nested object's reader, if this one has none yet.
  void adopt(const json_fields& nested);

  [[nodiscard]] bool ok() const { return !first_error_.has_value(); }
  [[nodiscard]] const error& first_error() const { return *first_error_; }
  [[nodiscard]] const std::string& source() const { return source_; }

 private:
  [[nodiscard]] const boost::json::value* lookup(std::string_view key) const;
  std::optional<std::int64_t> to_int(std::string_view key, const boost::json::value& value);

  const boost::json::object& object_;
  std::string source_;
  std::string prefix_;
  std::optional<error> first_error_;
};

}  // namespace pagedserve::detail
