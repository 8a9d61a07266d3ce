#include "net/openai/body_reader.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace pagedserve::net {
namespace {

constexpr std::size_t k_max_quoted_chars = 64;

std::string format_bound(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", x);
  return buffer;
}

// Integers integral_value saturated (they are beyond every range we accept).
bool beyond_int64(const boost::json::value& v) {
  if (v.is_uint64()) return v.get_uint64() > std::numeric_limits<std::uint64_t>::max() / 2;
  if (v.is_double()) {
    const double d = v.get_double();
    return d >= 9223372036854775808.0 || d < -9223372036854775808.0;
  }
  return false;
}

}  // namespace

const boost::json::value* body_reader::find(std::string_view key) const {
  const boost::json::value* v = body_.if_contains(key);
  if (v == nullptr || v->is_null()) return nullptr;
  return v;
}

std::optional<bool> body_reader::boolean(std::string_view key) {
  const boost::json::value* v = find(key);
  if (v == nullptr || failed()) return std::nullopt;
  if (!v->is_bool()) {
    fail(invalid_type(std::string(key), "a boolean", *v));
    return std::nullopt;
  }
  return v->get_bool();
}

std::optional<std::string> body_reader::string(std::string_view key) {
  const boost::json::value* v = find(key);
  if (v == nullptr || failed()) return std::nullopt;
  if (!v->is_string()) {
    fail(invalid_type(std::string(key), "a string", *v));
    return std::nullopt;
  }
  return std::string(v->get_string());
}

std::optional<std::int64_t> body_reader::integer(std::string_view key, std::int64_t min,
                                                 std::int64_t max) {
  const boost::json::value* v = find(key);
  if (v == nullptr || failed()) return std::nullopt;
  const std::optional<std::int64_t> x = integral_value(*v);
  if (!x) {
    fail(invalid_type(std::string(key), "an integer", *v));
    return std::nullopt;
  }
  if (*x < min || *x > max || beyond_int64(*v)) {
    fail(invalid_value(std::string(key),
                       "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]",
                       *v));
    return std::nullopt;
  }
  return x;
}

std::optional<double> body_reader::number(std::string_view key, double min, double max,
                                          bool min_open) {
  const boost::json::value* v = find(key);
  if (v == nullptr || failed()) return std::nullopt;
  if (!v->is_number()) {
    fail(invalid_type(std::string(key), "a number", *v));
    return std::nullopt;
  }
  const double x = v->to_number<double>();
  const bool above_min = min_open ? x > min : x >= min;
  if (!std::isfinite(x) || !above_min || x > max) {
    const std::string rule = std::string("a number in ") + (min_open ? "(" : "[") +
                             format_bound(min) + ", " + format_bound(max) + "]";
    fail(invalid_value(std::string(key), rule, *v));
    return std::nullopt;
  }
  return x;
}

const boost::json::object* body_reader::object(std::string_view key) {
  const boost::json::value* v = find(key);
  if (v == nullptr || failed()) return nullptr;
  if (!v->is_object()) {
    fail(invalid_type(std::string(key), "an object", *v));
    return nullptr;
  }
  return &v->get_object();
}

const boost::json::array* body_reader::array(std::string_view key) {
  const boost::json::value* v = find(key);
  if (v == nullptr || failed()) return nullptr;
  if (!v->is_array()) {
    fail(invalid_type(std::string(key), "an array", *v));
    return nullptr;
  }
  return &v->get_array();
}

void body_reader::fail(api_error err) {
  if (!error_) error_ = std::move(err);
}

std::optional<std::int64_t> integral_value(const boost::json::value& v) {
  constexpr auto k_min = std::numeric_limits<std::int64_t>::min();
  constexpr auto k_max = std::numeric_limits<std::int64_t>::max();
  if (v.is_int64()) return v.get_int64();
  if (v.is_uint64()) {
    const std::uint64_t u = v.get_uint64();
    return u > static_cast<std::uint64_t>(k_max) ? k_max : static_cast<std::int64_t>(u);
  }
  if (!v.is_double()) return std::nullopt;
  const double d = v.get_double();
  // A literal beyond the double range (a 400-digit integer) parses as infinity: it is an
  // integer too large for any range, not a fraction.
  if (std::isnan(d) || (std::isfinite(d) && d != std::floor(d))) return std::nullopt;
  // 2^63 is exactly representable; anything at or beyond it saturates.
  if (d >= 9223372036854775808.0) return k_max;
  if (d < -9223372036854775808.0) return k_min;
  return static_cast<std::int64_t>(d);
}

std::string_view kind_name(const boost::json::value& v) {
  switch (v.kind()) {
    case boost::json::kind::null:
      return "null";
    case boost::json::kind::bool_:
      return "a boolean";
    case boost::json::kind::int64:
    case boost::json::kind::uint64:
      return "an integer";
    case boost::json::kind::double_:
      return "a number";
    case boost::json::kind::string:
      return "a string";
    case boost::json::kind::array:
      return "an array";
    case boost::json::kind::object:
      return "an object";
  }
  return "a value";
}

std::string quote_value(const boost::json::value& v) {
  // Boost.JSON writes an overflowed literal as "Infinity", which no client sent.
  if (v.is_double() && !std::isfinite(v.get_double())) {
    return v.get_double() > 0 ? "a number above 1.8e308" : "a number below -1.8e308";
  }
  std::string text = boost::json::serialize(v);
  if (text.size() > k_max_quoted_chars) {
    text.resize(k_max_quoted_chars);
    text += "...";
  }
  return text;
}

api_error invalid_type(const std::string& param, std::string_view expected,
                       const boost::json::value& got) {
  std::string message = "Invalid type for '" + param + "': expected ";
  message.append(expected).append(", but got ").append(kind_name(got)).append(" instead.");
  return bad_request(std::move(message), param);
}

api_error invalid_value(const std::string& param, std::string_view rule,
                        const boost::json::value& got) {
  std::string message = "Invalid value for '" + param + "': expected ";
  message.append(rule).append(", but got ").append(quote_value(got)).append(" instead.");
  return bad_request(std::move(message), param);
}

api_error unsupported(const std::string& param, std::string_view why) {
  std::string message = "'" + param + "' is not supported by this server";
  if (!why.empty()) message.append(" (").append(why).append(")");
  message += ".";
  return bad_request(std::move(message), param, "unsupported");
}

std::variant<std::string, api_error> required_string(const boost::json::object& o,
                                                     std::string_view key,
                                                     const std::string& param) {
  const boost::json::value* v = o.if_contains(key);
  std::string name = param;
  name.append(".").append(key);
  if (v == nullptr) return bad_request("'" + name + "' is required.", name);
  if (!v->is_string()) return invalid_type(name, "a string", *v);
  return std::string(v->get_string());
}

}  // namespace pagedserve::net
