#pragma once
// header_list: the elements of a comma-separated header value (RFC 9110 §5.6.1: `#element`
// lists, optional whitespace around each element, empty elements ignored).

#include <string_view>
#include <vector>

namespace pagedserve::net {

// `text` without leading and trailing spaces and tabs (RFC 9110's OWS).
[[nodiscard]] inline std::string_view trim_ows(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// The non-empty elements of a list value, trimmed, in order (views into `value`).
[[nodiscard]] inline std::vector<std::string_view> list_elements(std::string_view value) {
  std::vector<std::string_view> elements;
  while (!value.empty()) {
    const std::size_t comma = value.find(',');
    const std::string_view element = trim_ows(value.substr(0, comma));
    if (!element.empty()) elements.push_back(element);
    value = comma == std::string_view::npos ? std::string_view{} : value.substr(comma + 1);
  }
  return elements;
}

}  // namespace pagedserve::net
