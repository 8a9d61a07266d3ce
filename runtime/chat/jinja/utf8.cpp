#include "runtime/chat/jinja/utf8.h"

#include <utf8proc.h>

namespace pagedserve::jinja::utf8 {

std::vector<char32_t> decode(std::string_view s) {
  std::vector<char32_t> out;
  out.reserve(s.size());
  const auto* bytes = reinterpret_cast<const utf8proc_uint8_t*>(s.data());
  std::size_t i = 0;
  while (i < s.size()) {
    utf8proc_int32_t cp = 0;
    const auto n = utf8proc_iterate(bytes + i, static_cast<utf8proc_ssize_t>(s.size() - i), &cp);
    if (n <= 0) {
      out.push_back(static_cast<unsigned char>(s[i]));
      ++i;
      continue;
    }
    out.push_back(static_cast<char32_t>(cp));
    i += static_cast<std::size_t>(n);
  }
  return out;
}

void append(std::string& out, char32_t cp) {
  utf8proc_uint8_t buf[4];
  const auto n = utf8proc_encode_char(static_cast<utf8proc_int32_t>(cp), buf);
  out.append(reinterpret_cast<const char*>(buf), static_cast<std::size_t>(n));
}

std::string encode(const std::vector<char32_t>& cps) {
  std::string out;
  out.reserve(cps.size());
  for (char32_t cp : cps) append(out, cp);
  return out;
}

std::size_t length(std::string_view s) {
  std::size_t n = 0;
  for (char c : s) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  }
  return n;
}

bool is_space(char32_t cp) {
  if (cp == ' ' || (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x1F) || cp == 0x85) {
    return true;
  }
  if (cp < 0x80) return false;
  const auto cat = utf8proc_category(static_cast<utf8proc_int32_t>(cp));
  return cat == UTF8PROC_CATEGORY_ZS || cat == UTF8PROC_CATEGORY_ZL || cat == UTF8PROC_CATEGORY_ZP;
}

char32_t to_upper(char32_t cp) {
  return static_cast<char32_t>(utf8proc_toupper(static_cast<utf8proc_int32_t>(cp)));
}

char32_t to_lower(char32_t cp) {
  return static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(cp)));
}

bool is_alpha(char32_t cp) {
  const auto cat = utf8proc_category(static_cast<utf8proc_int32_t>(cp));
  return cat >= UTF8PROC_CATEGORY_LU && cat <= UTF8PROC_CATEGORY_LO;
}

bool is_digit(char32_t cp) {
  return utf8proc_category(static_cast<utf8proc_int32_t>(cp)) == UTF8PROC_CATEGORY_ND;
}

std::string upper(std::string_view s) {
  std::string out;
  for (char32_t cp : decode(s)) append(out, to_upper(cp));
  return out;
}

std::string lower(std::string_view s) {
  std::string out;
  for (char32_t cp : decode(s)) append(out, to_lower(cp));
  return out;
}

}  // namespace pagedserve::jinja::utf8
