#include "common/config_value.h"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>

namespace pagedserve::config_value {
namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

error invalid(std::string message) {
  return make_error(error_code::invalid_argument, std::move(message));
}

// Built by appending: GCC 12 at -O3 reports a false -Wrestrict on "'" + std::string(...)
// (GCC bug 105329).
std::string quoted(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '\'';
  out += text;
  out += '\'';
  return out;
}

}  // namespace

result<bool> parse_bool(std::string_view text) {
  const std::string v = lower(text);
  if (v == "true" || v == "yes" || v == "on" || v == "1") return true;
  if (v == "false" || v == "no" || v == "off" || v == "0") return false;
  return invalid("expected true or false, got " + quoted(text));
}

result<std::uint64_t> parse_unsigned(std::string_view text, std::uint64_t min, std::uint64_t max) {
  std::uint64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec == std::errc::result_out_of_range) {
    return invalid("must be at most " + std::to_string(max) + ", got " + quoted(text));
  }
  if (text.empty() || ec != std::errc{} || ptr != end) {
    return invalid("expected a non-negative integer, got " + quoted(text));
  }
  if (value < min) {
    return invalid("must be at least " + std::to_string(min) + ", got " + quoted(text));
  }
  if (value > max) {
    return invalid("must be at most " + std::to_string(max) + ", got " + quoted(text));
  }
  return value;
}

result<double> parse_double(std::string_view text) {
  // from_chars takes no leading '+', which YAML allows.
  const std::string_view digits = text.starts_with('+') ? text.substr(1) : text;
  double value = 0.0;
  const char* end = digits.data() + digits.size();
  const auto [ptr, ec] = std::from_chars(digits.data(), end, value);
  if (digits.empty() || ec != std::errc{} || ptr != end || !std::isfinite(value)) {
    return invalid("expected a number, got " + quoted(text));
  }
  return value;
}

std::string format_double(double value) {
  std::array<char, 64> buffer{};
  const auto [ptr, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  if (ec != std::errc{}) return std::to_string(value);
  return std::string(buffer.data(), ptr);
}

result<std::vector<std::string>> parse_list(std::string_view text) {
  auto trim = [](std::string_view s, std::string_view junk) {
    while (!s.empty() && junk.find(s.front()) != std::string_view::npos) s.remove_prefix(1);
    while (!s.empty() && junk.find(s.back()) != std::string_view::npos) s.remove_suffix(1);
    return s;
  };
  std::string_view body = trim(text, " \t");
  if (body.starts_with('[')) {
    if (!body.ends_with(']')) {
      return make_error(error_code::invalid_argument,
                        "a list must close its '[', got '" + std::string(text) + "'");
    }
    body = trim(body.substr(1, body.size() - 2), " \t");
  }
  std::vector<std::string> items;
  while (!body.empty()) {
    const std::size_t comma = body.find(',');
    const std::string_view item = trim(body.substr(0, comma), " \t\"'");
    if (item.empty()) {
      return make_error(error_code::invalid_argument,
                        "a list item is empty in '" + std::string(text) + "'");
    }
    items.emplace_back(item);
    if (comma == std::string_view::npos) break;
    body.remove_prefix(comma + 1);
    if (body.empty()) {
      return make_error(error_code::invalid_argument,
                        "a list ends with ',' in '" + std::string(text) + "'");
    }
  }
  return items;
}

std::string format_list(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ",") + item;
  return out;
}

}  // namespace pagedserve::config_value
