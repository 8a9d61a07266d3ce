#pragma once
// config_key<Config>: one row of a configuration key table, and the factories that build
// rows from a field accessor, so each key's parser, range check and formatter come from one
// line. An accessor is a generic lambda `[](auto& c) -> auto& { return c.port; }` that
// serves both the setter (mutable config) and the getter (const). Values arrive as text (a
// YAML scalar or a flag's argument) and go through config_value.h.
//
// The engine's keys are one table over engine_config (engine_keys.h); `pagedserve serve`
// lifts them into its server_config table (net/config) and the other commands turn them
// into flags (cli/engine_flags.h), so a key parses and checks the same way everywhere.

#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/config_value.h"
#include "common/result.h"

namespace pagedserve {

struct config_key_info {
  std::string key;
  std::string description;
  bool is_boolean = false;  // a bare flag (--enable-prefix-caching) means true
  bool is_list = false;     // a YAML list is accepted (its items joined with commas)
  bool is_object = false;   // a YAML map is accepted (as the JSON object it spells)
};

template <class Config>
struct config_key {
  config_key_info info;
  std::function<status(Config&, std::string_view)> set;
  std::function<std::string(const Config&)> get;
};

namespace config_keys_detail {

inline error bad_value(const std::string& expected, std::string_view value) {
  return make_error(error_code::invalid_argument, expected + ", got '" + std::string(value) + "'");
}

}  // namespace config_keys_detail

template <class Config, class Access>
config_key<Config> string_key(std::string key, std::string description, Access field) {
  return {{std::move(key), std::move(description)},
          [field](Config& c, std::string_view v) {
            field(c) = std::string(v);
            return status::success();
          },
          [field](const Config& c) { return std::string(field(c)); }};
}

// A string limited to a few values, listed in the error.
template <class Config, class Access>
config_key<Config> choice_key(std::string key, std::string description, Access field,
                              std::vector<std::string> choices) {
  std::string list;
  for (const std::string& choice : choices) list += (list.empty() ? "" : " | ") + choice;
  return {{std::move(key), std::move(description)},
          [field, choices, list](Config& c, std::string_view v) {
            for (const std::string& choice : choices) {
              if (v == choice) {
                field(c) = choice;
                return status::success();
              }
            }
            return status(config_keys_detail::bad_value("expected " + list, v));
          },
          [field](const Config& c) { return std::string(field(c)); }};
}

// A list of strings (config_value.h parse_list).
template <class Config, class Access>
config_key<Config> list_key(std::string key, std::string description, Access field) {
  return {{std::move(key), std::move(description), false, true},
          [field](Config& c, std::string_view v) {
            auto items = config_value::parse_list(v);
            if (!items) return status(items.err());
            field(c) = std::move(*items);
            return status::success();
          },
          [field](const Config& c) { return config_value::format_list(field(c)); }};
}

// An unsigned integer field of type Int, in [min, max].
template <class Config, class Int, class Access>
config_key<Config> unsigned_key(std::string key, std::string description, Access field,
                                std::uint64_t min = 0,
                                std::uint64_t max = std::numeric_limits<Int>::max()) {
  return {{std::move(key), std::move(description)},
          [field, min, max](Config& c, std::string_view v) {
            auto value = config_value::parse_unsigned(v, min, max);
            if (!value) return status(value.err());
            field(c) = static_cast<Int>(*value);
            return status::success();
          },
          [field](const Config& c) { return std::to_string(field(c)); }};
}

template <class Config, class Access>
config_key<Config> bool_key(std::string key, std::string description, Access field) {
  return {{std::move(key), std::move(description), true},
          [field](Config& c, std::string_view v) {
            auto value = config_value::parse_bool(v);
            if (!value) return status(value.err());
            field(c) = *value;
            return status::success();
          },
          [field](const Config& c) { return std::string(field(c) ? "true" : "false"); }};
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

template <class Config, class Access>
config_key<Config> double_key(std::string key, std::string description, Access field,
                              double_range range) {
  return {{std::move(key), std::move(description)},
          [field, range](Config& c, std::string_view v) {
            auto value = config_value::parse_double(v);
            if (!value) return status(value.err());
            if (!range.contains(*value)) {
              return status(config_keys_detail::bad_value(range.describe(), v));
            }
            field(c) = *value;
            return status::success();
          },
          [field](const Config& c) { return config_value::format_double(field(c)); }};
}

// The same key on a config that holds an Inner one (server_config's engine_config).
template <class Outer, class Inner, class Access>
config_key<Outer> lift_key(config_key<Inner> key, Access inner) {
  auto set = key.set;
  auto get = key.get;
  return {std::move(key.info),
          [set, inner](Outer& c, std::string_view v) { return set(inner(c), v); },
          [get, inner](const Outer& c) { return get(inner(c)); }};
}

// The row named `name` in `keys`, or null.
template <class Config>
[[nodiscard]] const config_key<Config>* find_key(const std::vector<config_key<Config>>& keys,
                                                 std::string_view name) {
  for (const config_key<Config>& key : keys) {
    if (key.info.key == name) return &key;
  }
  return nullptr;
}

// Applies each key's own rule to the values `config` holds, as when they arrive as text: a
// config built in code never went through `set`, so each value is formatted and set again on
// a copy. The first bad key's error, as "key: what is wrong". This is how validate() checks
// single keys: a key's rule lives in its row alone.
template <class Config>
[[nodiscard]] status validate_keys(const std::vector<config_key<Config>>& keys,
                                   const Config& config) {
  for (const config_key<Config>& key : keys) {
    Config scratch = config;
    if (status s = key.set(scratch, key.get(config)); !s) {
      return status(make_error(s.err().code, key.info.key + ": " + s.err().message));
    }
  }
  return status::success();
}

// key max_num_seqs is flag --max-num-seqs (without the dashes).
[[nodiscard]] inline std::string flag_name(std::string_view key) {
  std::string name(key);
  for (char& c : name) {
    if (c == '_') c = '-';
  }
  return name;
}

}  // namespace pagedserve
