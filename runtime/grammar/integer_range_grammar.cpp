// Integers and numbers between bounds, as exact digit grammars (no leading zeros).
//
// Numbers of one length in [x, y] split on the first digit where they differ:
//   [1234, 1789]: "1" ( "2" ( "3" [4-9] | [4-9] [0-9] ) | [3-6] [0-9]{2} | "7" ( ... ) )
// the low branch (x's digit, then x's rest up to 99..9), the digits between (anything
// after them), and the high branch (y's digit, then 00..0 up to y's rest). Each branch
// recurses on one side only, so the text grows with the square of the digit count at worst.
#include <cmath>
#include <string>
#include <vector>

#include "runtime/grammar/gbnf_text.h"
#include "runtime/grammar/json_schema_rules.h"
#include "runtime/grammar/json_value_rules.h"

namespace pagedserve::grammar {
namespace {

// Largest magnitude of a bound: every bound and bound +/- 1 stays exact in int64 and double.
constexpr double max_bound = 1e15;

std::string join_alternatives(const std::vector<std::string>& alternatives) {
  std::string out;
  for (const auto& each : alternatives) out += (out.empty() ? "" : " | ") + each;
  return out;
}

std::string group(const std::string& expression) {
  return expression.find('|') == std::string::npos ? expression : "( " + expression + " )";
}

std::string any_digits(std::size_t n) {
  if (n == 0) return "";
  if (n == 1) return "[0-9]";
  std::string out = "[0-9]{";
  return out.append(std::to_string(n)).append("}");
}

std::string digit_class(char lo, char hi) {
  return lo == hi ? gbnf_literal(std::string(1, lo)) : std::string{'[', lo, '-', hi, ']'};
}

// Digit strings of equal length in [x, y], x <= y.
std::string same_length_range(const std::string& x, const std::string& y) {
  if (x == y) return gbnf_literal(x);
  std::size_t common = 0;
  while (x[common] == y[common]) ++common;
  if (common > 0) {
    return gbnf_literal(x.substr(0, common)) + " " +
           group(same_length_range(x.substr(common), y.substr(common)));
  }
  std::size_t rest = x.size() - 1;
  bool low_is_full = x.find_first_not_of('0', 1) == std::string::npos;
  bool high_is_full = y.find_first_not_of('9', 1) == std::string::npos;
  std::vector<std::string> alternatives;
  if (!low_is_full) {
    alternatives.push_back(digit_class(x[0], x[0]) + " " +
                           group(same_length_range(x.substr(1), std::string(rest, '9'))));
  }
  char middle_lo = low_is_full ? x[0] : static_cast<char>(x[0] + 1);
  char middle_hi = high_is_full ? y[0] : static_cast<char>(y[0] - 1);
  if (middle_lo <= middle_hi) {
    std::string tail = any_digits(rest);
    alternatives.push_back(digit_class(middle_lo, middle_hi) + (tail.empty() ? "" : " " + tail));
  }
  if (!high_is_full) {
    alternatives.push_back(digit_class(y[0], y[0]) + " " +
                           group(same_length_range(std::string(rest, '0'), y.substr(1))));
  }
  return join_alternatives(alternatives);
}

// Canonical decimals of [lo, hi] (hi open when absent), lo <= hi.
std::string unsigned_range(std::uint64_t lo, std::optional<std::uint64_t> hi) {
  std::string low = std::to_string(lo);
  std::size_t max_length = hi ? std::to_string(*hi).size() : low.size();
  std::vector<std::string> alternatives;
  for (std::size_t length = low.size(); length <= max_length; ++length) {
    std::string from = length == low.size() ? low : std::string(1, '1').append(length - 1, '0');
    std::string to = hi && length == max_length ? std::to_string(*hi) : std::string(length, '9');
    alternatives.push_back(same_length_range(from, to));
  }
  if (!hi) alternatives.push_back("[1-9] " + repeat_gbnf("[0-9]", low.size(), std::nullopt));
  return join_alternatives(alternatives);
}

// Numbers without exponent in the magnitude interval between lo and hi (integers >= 0).
std::string magnitude_range(number_bound lo, std::optional<number_bound> hi) {
  std::vector<std::string> alternatives;
  std::int64_t whole_lo = lo.exclusive ? lo.value + 1 : lo.value;
  if (hi && (hi->value < lo.value || (hi->value == lo.value && (lo.exclusive || hi->exclusive)))) {
    return "";
  }
  if (lo.exclusive) {  // lo itself with a fraction above zero
    alternatives.push_back(gbnf_literal(std::to_string(lo.value) + ".") + " [0-9]* [1-9] [0-9]*");
  }
  // Whole parts below hi take any fraction; hi itself only zeros.
  if (!hi || whole_lo <= hi->value - 1) {
    std::optional<std::uint64_t> whole_hi;
    if (hi) whole_hi = static_cast<std::uint64_t>(hi->value - 1);
    alternatives.push_back(group(unsigned_range(static_cast<std::uint64_t>(whole_lo), whole_hi)) +
                           " ( \".\" [0-9]+ )?");
  }
  if (hi && !hi->exclusive) {
    alternatives.push_back(gbnf_literal(std::to_string(hi->value)) + " ( \".\" \"0\"+ )?");
  }
  return join_alternatives(alternatives);
}

struct bounds {
  std::optional<number_bound> min;
  std::optional<number_bound> max;
};

// minimum/maximum and exclusiveMinimum/exclusiveMaximum (a number, or draft 4's boolean
// that makes minimum/maximum exclusive). The tighter of two given bounds wins.
result<std::optional<std::pair<double, bool>>> read_bound(const boost::json::object& schema,
                                                          const char* inclusive,
                                                          const char* exclusive, bool is_min) {
  std::optional<std::pair<double, bool>> bound;
  auto tighter = [&](double value, bool is_exclusive) {
    if (!bound || (is_min ? value > bound->first : value < bound->first) ||
        (value == bound->first && is_exclusive)) {
      bound = std::pair{value, is_exclusive};
    }
  };
  const auto* excl = schema.if_contains(exclusive);
  bool draft4_exclusive = excl != nullptr && excl->is_bool() && excl->as_bool();
  for (const auto* keyword : {inclusive, exclusive}) {
    const auto* value = schema.if_contains(keyword);
    if (value == nullptr || value->is_bool()) continue;
    if (!value->is_number()) return invalid_schema(concat({"'", keyword, "' must be a number"}));
    double number = value->to_number<double>();
    if (std::abs(number) > max_bound) {
      return unsupported_keyword(keyword, "bounds beyond 10^15");
    }
    tighter(number, keyword == exclusive || draft4_exclusive);
  }
  return bound;
}

}  // namespace

std::string integer_range_gbnf(std::optional<std::int64_t> min, std::optional<std::int64_t> max) {
  if (min && max && *min > *max) return "";
  std::vector<std::string> alternatives;
  if (!max || *max >= 0) {
    std::optional<std::uint64_t> hi;
    if (max) hi = static_cast<std::uint64_t>(*max);
    alternatives.push_back(unsigned_range(min && *min > 0 ? *min : 0, hi));
  }
  if (!min || *min < 0) {
    std::optional<std::uint64_t> hi;
    if (min) hi = static_cast<std::uint64_t>(-*min);
    std::uint64_t lo = max && *max < 0 ? static_cast<std::uint64_t>(-*max) : 1;
    alternatives.push_back("\"-\" " + group(unsigned_range(lo, hi)));
  }
  return join_alternatives(alternatives);
}

// Negative numbers are "-" and a magnitude in the mirrored interval, which is open at 0 so
// that "-0" is never written.
std::string number_range_gbnf(std::optional<number_bound> min, std::optional<number_bound> max) {
  std::vector<std::string> alternatives;
  bool has_non_negative = !max || max->value > 0 || (max->value == 0 && !max->exclusive);
  if (has_non_negative) {
    number_bound lo = min && min->value >= 0 ? *min : number_bound{0, false};
    std::string part = magnitude_range(lo, max);
    if (!part.empty()) alternatives.push_back(part);
  }
  if (!min || min->value < 0) {
    number_bound lo =
        max && max->value < 0 ? number_bound{-max->value, max->exclusive} : number_bound{0, true};
    std::optional<number_bound> hi;
    if (min) hi = number_bound{-min->value, min->exclusive};
    std::string part = magnitude_range(lo, hi);
    if (!part.empty()) alternatives.push_back("\"-\" ( " + part + " )");
  }
  return join_alternatives(alternatives);
}

result<std::string> schema_converter::integer_rule(const object& schema, const std::string& hint) {
  auto min = read_bound(schema, "minimum", "exclusiveMinimum", true);
  if (!min.ok()) return min.err();
  auto max = read_bound(schema, "maximum", "exclusiveMaximum", false);
  if (!max.ok()) return max.err();
  if (!*min && !*max) return use(json_integer);
  std::optional<std::int64_t> lo;
  std::optional<std::int64_t> hi;
  if (*min) {
    auto [value, exclusive] = **min;
    lo = static_cast<std::int64_t>(exclusive ? std::floor(value) + 1 : std::ceil(value));
  }
  if (*max) {
    auto [value, exclusive] = **max;
    hi = static_cast<std::int64_t>(exclusive ? std::ceil(value) - 1 : std::floor(value));
  }
  std::string range = integer_range_gbnf(lo, hi);
  if (range.empty()) return invalid_schema("no integer lies within the bounds");
  return add_rule(hint, range);
}

result<std::string> schema_converter::number_rule(const object& schema, const std::string& hint) {
  auto min = read_bound(schema, "minimum", "exclusiveMinimum", true);
  if (!min.ok()) return min.err();
  auto max = read_bound(schema, "maximum", "exclusiveMaximum", false);
  if (!max.ok()) return max.err();
  if (!*min && !*max) return use(json_number);
  std::optional<number_bound> lo;
  std::optional<number_bound> hi;
  for (auto [bound, out, keyword] : {std::tuple{&*min, &lo, "minimum"}, {&*max, &hi, "maximum"}}) {
    if (!*bound) continue;
    auto [value, exclusive] = **bound;
    if (value != std::floor(value)) {
      return unsupported_keyword(keyword, "a bound that is not a whole number, for type number");
    }
    *out = number_bound{static_cast<std::int64_t>(value), exclusive};
  }
  std::string range = number_range_gbnf(lo, hi);
  if (range.empty()) return invalid_schema("no number lies within the bounds");
  return add_rule(hint, range);
}

}  // namespace pagedserve::grammar
