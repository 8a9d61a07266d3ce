#pragma once
// Python str operations on UTF-8 strings, shared by the str methods and the filters.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/chat/jinja/value.h"

namespace pagedserve::jinja {

// str.strip/lstrip/rstrip: chars nullopt strips Unicode whitespace.
[[nodiscard]] std::string py_strip(std::string_view s, const std::optional<std::string>& chars,
                                   bool left, bool right);
// str.split / rsplit: sep nullopt splits on whitespace runs and drops empty parts.
[[nodiscard]] std::vector<std::string> py_split(std::string_view s,
                                                const std::optional<std::string>& sep,
                                                std::int64_t maxsplit);
[[nodiscard]] std::vector<std::string> py_rsplit(std::string_view s,
                                                 const std::optional<std::string>& sep,
                                                 std::int64_t maxsplit);
[[nodiscard]] std::vector<std::string> py_splitlines(std::string_view s);
[[nodiscard]] std::string py_replace(std::string_view s, std::string_view old_s,
                                     std::string_view new_s, std::int64_t count);
[[nodiscard]] std::string py_title(std::string_view s);       // str.title
[[nodiscard]] std::string jinja_title(std::string_view s);    // the `title` filter
[[nodiscard]] std::string py_capitalize(std::string_view s);  // str.capitalize
// str.find / rfind: code point index or -1 (Python's own result, not a sentinel of ours).
[[nodiscard]] std::int64_t py_find(std::string_view s, std::string_view sub, bool reverse);
[[nodiscard]] std::int64_t py_count(std::string_view s, std::string_view sub);
[[nodiscard]] std::string py_format(std::string_view fmt, const call_args& args);
[[nodiscard]] bool py_all_chars(std::string_view s, bool (*pred)(char32_t));
[[nodiscard]] bool py_is_cased(std::string_view s, bool upper);

}  // namespace pagedserve::jinja
