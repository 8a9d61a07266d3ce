#include "runtime/model/json_fields.h"

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include "runtime/model/model_limits.h"

namespace pagedserve::detail {

result<boost::json::value> parse_json(std::string_view text, std::string_view source) {
  boost::system::error_code ec;
  boost::json::value value = boost::json::parse(text, ec);
  if (ec) {
    return make_error(error_code::corrupt_data,
                      std::string(source) + ": not valid JSON (" + ec.message() + ")");
  }
  return value;
}

result<boost::json::object> parse_json_object(std::string_view text, std::string_view source) {
  auto parsed = parse_json(text, source);
  if (!parsed) return parsed.err();
  boost::json::value& value = *parsed;
  if (!value.is_object()) {
    return make_error(error_code::corrupt_data,
                      std::string(source) + ": expected a JSON object at the top level");
  }
  return std::move(value.as_object());
}

result<boost::json::object> read_json_object_file(const std::filesystem::path& path) {
  auto value = read_json_file(path);
  if (!value) return value.err();
  if (!value->is_object()) {
    return make_error(error_code::corrupt_data,
                      path.string() + ": expected a JSON object at the top level");
  }
  return std::move(value->as_object());
}

result<boost::json::value> read_json_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return make_error(error_code::not_found, path.string() + ": file not found");
  }
  // Read whole, so its size is checked first (a JSON config is KBs; a FIFO is not regular).
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec || size > model_limits::max_json_file_bytes) {
    return make_error(error_code::corrupt_data,
                      path.string() + ": file of " + (ec ? "unknown size" : std::to_string(size)) +
                          " bytes is above the limit of " +
                          std::to_string(model_limits::max_json_file_bytes) + " bytes");
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in.good() && !in.eof()) {
    return make_error(error_code::io_error, path.string() + ": cannot read the file");
  }
  return parse_json(text.str(), path.string());
}

json_fields::json_fields(const boost::json::object& object, std::string source, std::string prefix)
    : object_(object), source_(std::move(source)), prefix_(std::move(prefix)) {}

const boost::json::value* json_fields::lookup(std::string_view key) const {
  const boost::json::value* value = object_.if_contains(key);
  if (value == nullptr || value->is_null()) return nullptr;
  return value;
}

bool json_fields::has(std::string_view key) const { return lookup(key) != nullptr; }

void json_fields::fail(error_code code, std::string_view key, std::string_view what) {
  if (first_error_) return;
  first_error_ =
      make_error(code, source_ + ": key '" + prefix_ + std::string(key) + "' " + std::string(what));
}

void json_fields::adopt(const json_fields& nested) {
  if (!first_error_ && !nested.ok()) first_error_ = nested.first_error();
}

std::optional<std::int64_t> json_fields::to_int(std::string_view key,
                                                const boost::json::value& value) {
  if (value.is_int64()) return value.get_int64();
  if (value.is_uint64() &&
      value.get_uint64() <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    return static_cast<std::int64_t>(value.get_uint64());
  }
  if (value.is_double()) {  // some writers emit 4096.0 for integers
    const double d = value.get_double();
    if (std::trunc(d) == d && std::fabs(d) < 9.0e15) return static_cast<std::int64_t>(d);
  }
  fail(error_code::invalid_argument, key,
       "must be an integer, got " + boost::json::serialize(value));
  return std::nullopt;
}

std::int64_t json_fields::required_int(std::string_view key) {
  const boost::json::value* value = lookup(key);
  if (value == nullptr) {
    fail(error_code::not_found, key, "is missing");
    return 0;
  }
  return to_int(key, *value).value_or(0);
}

std::optional<std::int64_t> json_fields::optional_int(std::string_view key) {
  const boost::json::value* value = lookup(key);
  if (value == nullptr) return std::nullopt;
  return to_int(key, *value);
}

std::optional<std::string> json_fields::optional_string(std::string_view key) {
  const boost::json::value* value = lookup(key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_string()) {
    fail(error_code::invalid_argument, key,
         "must be a string, got " + boost::json::serialize(*value));
    return std::nullopt;
  }
  return std::string(value->get_string());
}

std::string json_fields::required_string(std::string_view key) {
  if (!has(key)) {
    fail(error_code::not_found, key, "is missing");
    return {};
  }
  return optional_string(key).value_or(std::string{});
}

std::optional<double> json_fields::optional_number(std::string_view key) {
  const boost::json::value* value = lookup(key);
  if (value == nullptr) return std::nullopt;
  if (value->is_double()) return value->get_double();
  if (value->is_int64()) return static_cast<double>(value->get_int64());
  if (value->is_uint64()) return static_cast<double>(value->get_uint64());
  fail(error_code::invalid_argument, key,
       "must be a number, got " + boost::json::serialize(*value));
  return std::nullopt;
}

double json_fields::number_or(std::string_view key, double fallback) {
  return optional_number(key).value_or(fallback);
}

double json_fields::required_number(std::string_view key) {
  if (!has(key)) {
    fail(error_code::not_found, key, "is missing");
    return 0.0;
  }
  return optional_number(key).value_or(0.0);
}

bool json_fields::bool_or(std::string_view key, bool fallback) {
  const boost::json::value* value = lookup(key);
  if (value == nullptr) return fallback;
  if (!value->is_bool()) {
    fail(error_code::invalid_argument, key,
         "must be true or false, got " + boost::json::serialize(*value));
    return fallback;
  }
  return value->get_bool();
}

std::vector<std::int64_t> json_fields::int_or_int_list(std::string_view key) {
  const boost::json::value* value = lookup(key);
  if (value == nullptr) return {};
  if (!value->is_array()) {
    std::optional<std::int64_t> single = to_int(key, *value);
    return single ? std::vector<std::int64_t>{*single} : std::vector<std::int64_t>{};
  }
  std::vector<std::int64_t> ids;
  for (const boost::json::value& element : value->get_array()) {
    std::optional<std::int64_t> id = to_int(key, element);
    if (!id) return {};
    ids.push_back(*id);
  }
  return ids;
}

const boost::json::object* json_fields::optional_object(std::string_view key) {
  const boost::json::value* value = lookup(key);
  if (value == nullptr) return nullptr;
  if (!value->is_object()) {
    fail(error_code::invalid_argument, key,
         "must be an object, got " + boost::json::serialize(*value));
    return nullptr;
  }
  return &value->get_object();
}

}  // namespace pagedserve::detail
