#pragma once
// Python str semantics over UTF-8 bytes: Jinja strings are Python str, so lengths, indices,
// slices and case mapping count code points, not bytes.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pagedserve::jinja::utf8 {

// Code points of `s`; an invalid byte decodes as itself (U+0080..U+00FF) so nothing is lost.
[[nodiscard]] std::vector<char32_t> decode(std::string_view s);
void append(std::string& out, char32_t cp);
[[nodiscard]] std::string encode(const std::vector<char32_t>& cps);
[[nodiscard]] std::size_t length(std::string_view s);

[[nodiscard]] bool is_space(char32_t cp);  // Python str.isspace for one code point
[[nodiscard]] char32_t to_upper(char32_t cp);
[[nodiscard]] char32_t to_lower(char32_t cp);
[[nodiscard]] bool is_alpha(char32_t cp);
[[nodiscard]] bool is_digit(char32_t cp);

[[nodiscard]] std::string upper(std::string_view s);
[[nodiscard]] std::string lower(std::string_view s);

}  // namespace pagedserve::jinja::utf8
