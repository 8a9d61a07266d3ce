#pragma once
// body_reader: typed reads of a request body's fields, with OpenAI-style errors. Absent and
// null both mean "not given" (as in OpenAI's and vLLM's schemas). A value of the wrong JSON
// type or out of range records an api_error naming the field; only the first error is kept
// and every later read returns nothing, so a parser reads its fields in a straight line and
// checks failed() where it needs the values.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include <boost/json.hpp>

#include "net/openai/api_error.h"

namespace pagedserve::net {

class body_reader {
 public:
  explicit body_reader(const boost::json::object& body) : body_(body) {}

  // The field when present and not null (no error either way).
  [[nodiscard]] const boost::json::value* find(std::string_view key) const;

  std::optional<bool> boolean(std::string_view key);
  std::optional<std::string> string(std::string_view key);
  // A JSON integer, or a number without fraction (16.0, as pydantic accepts), in [min, max].
  std::optional<std::int64_t> integer(std::string_view key, std::int64_t min, std::int64_t max);
  // A number (integer or not) in [min, max]; with min_open, in (min, max].
  std::optional<double> number(std::string_view key, double min, double max, bool min_open = false);
  const boost::json::object* object(std::string_view key);
  const boost::json::array* array(std::string_view key);

  void fail(api_error err);  // keeps the first error
  [[nodiscard]] bool failed() const { return error_.has_value(); }
  [[nodiscard]] const api_error& error() const { return *error_; }

 private:
  const boost::json::object& body_;
  std::optional<api_error> error_;
};

// o[key] as a string, for nested objects (blocks, items): absent is "'<param>.<key>' is
// required.", another type an invalid_type; both name "<param>.<key>".
[[nodiscard]] std::variant<std::string, api_error> required_string(const boost::json::object& o,
                                                                   std::string_view key,
                                                                   const std::string& param);

// The integer a JSON value holds (see body_reader::integer), or nothing for a non-integer.
// Integers beyond int64 come back clamped to its limits, so range checks still reject them.
[[nodiscard]] std::optional<std::int64_t> integral_value(const boost::json::value& v);

// "a string", "an integer", "an array", ... for messages.
[[nodiscard]] std::string_view kind_name(const boost::json::value& v);
// The value as JSON text, cut to a readable length, for messages.
[[nodiscard]] std::string quote_value(const boost::json::value& v);

// "Invalid type for 'n': expected an integer, but got a string instead."
[[nodiscard]] api_error invalid_type(const std::string& param, std::string_view expected,
                                     const boost::json::value& got);
// "Invalid value for 'n': expected <rule>, but got 300 instead."
[[nodiscard]] api_error invalid_value(const std::string& param, std::string_view rule,
                                      const boost::json::value& got);
// "'suffix' is not supported by this server (<why>)."
[[nodiscard]] api_error unsupported(const std::string& param, std::string_view why);

}  // namespace pagedserve::net
