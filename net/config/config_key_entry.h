#pragma once
// config_key_entry: one row of the configuration key table (config_keys.cpp) and the
// factories that build rows from a field accessor, so each key's parser, range check and
// formatter come from one line. An accessor is a generic lambda `[](auto& c) -> auto& {
// return c.port; }` that serves both the setter (mutable config) and the getter (const).

#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "net/config/config_value.h"
#include "net/config/server_config.h"

namespace pagedserve::net::detail {

struct config_key_entry {
  config_key_info info;
  std::function<status(server_config&, std::string_view)> set;
  std::function<std::string(const server_config&)> get;
};

inline error bad_value(const std::string& expected, std::string_view value) {
  return make_error(error_code::invalid_argument, expected + ", got '" + std::string(value) + "'");
}

template <class Access>
config_key_entry string_key(std::string key, std::string description, Access field) {
  return {{std::move(key), std::move(description)},
          [field](server_config& c, std::string_view v) {
            field(c) = std::string(v);
            return status::success();
          },
          [field](const server_config& c) { return std::string(field(c)); }};
}

// A string limited to a few values, listed in the error.
template <class Access>
config_key_entry choice_key(std::string key, std::string description, Access field,
                            std::vector<std::string> choices) {
  std::string list;
  for (const std::string& choice : choices) list += (list.empty() ? "" : " | ") + choice;
  return {{std::move(key), std::move(description)},
          [field, choices, list](server_config& c, std::string_view v) {
            for (const std::string& choice : choices) {
              if (v == choice) {
                field(c) = choice;
                return status::success();
              }
            }
            return status(bad_value("expected " + list, v));
          },
          [field](const server_config& c) { return std::string(field(c)); }};
}

// An unsigned integer field of type Int, in [min, max].
template <class Int, class Access>
config_key_entry unsigned_key(std::string key, std::string description, Access field,
                              std::uint64_t min = 0,
                              std::uint64_t max = std::numeric_limits<Int>::max()) {
  return {{std::move(key), std::move(description)},
          [field, min, max](server_config& c, std::string_view v) {
            auto value = config_value::parse_unsigned(v, min, max);
            if (!value) return status(value.err());
            field(c) = static_cast<Int>(*value);
            return status::success();
          },
          [field](const server_config& c) { return std::to_string(field(c)); }};
}

template <class Access>
config_key_entry bool_key(std::string key, std::string description, Access field) {
  return {{std::move(key), std::move(description), true},
          [field](server_config& c, std::string_view v) {
            auto value = config_value::parse_bool(v);
            if (!value) return status(value.err());
            field(c) = *value;
            return status::success();
          },
          [field](const server_config& c) { return std::string(field(c) ? "true" : "false"); }};
}

// A number above `min` (or equal to it when min_inclusive), at most `max`.
struct double_range {
  double min = 0.0;
  bool min_inclusive = false;
  double max = std::numeric_limits<double>::max();

  [[nodiscard]] bool contains(double v) const {
    return (min_inclusive ? v >= min : v > min) && v <= max;
  }
  [[nodiscard]] std::string describe() const {
    std::string text = std::string("must be ") + (min_inclusive ? "at least " : "greater than ") +
                       config_value::format_double(min);
    if (max < std::numeric_limits<double>::max()) {
      text += " and at most " + config_value::format_double(max);
    }
    return text;
  }
};

template <class Access>
config_key_entry double_key(std::string key, std::string description, Access field,
                            double_range range) {
  return {{std::move(key), std::move(description)},
          [field, range](server_config& c, std::string_view v) {
            auto value = config_value::parse_double(v);
            if (!value) return status(value.err());
            if (!range.contains(*value)) return status(bad_value(range.describe(), v));
            field(c) = *value;
            return status::success();
          },
          [field](const server_config& c) { return config_value::format_double(field(c)); }};
}

}  // namespace pagedserve::net::detail
