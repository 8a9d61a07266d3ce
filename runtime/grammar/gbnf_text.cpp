#include "runtime/grammar/gbnf_text.h"

#include "runtime/tokenizer/utf8.h"

#include <algorithm>
#include <cstdio>

namespace pagedserve::grammar {
namespace {

std::string hex_escape(char prefix, unsigned value, int digits) {
  char buffer[16];
  std::snprintf(buffer, sizeof(buffer), "\\%c%0*X", prefix, digits, value);
  return buffer;
}

// One code point inside a GBNF class: the class metacharacters and everything outside
// printable ASCII are escaped, so the text stays ASCII and unambiguous.
std::string class_char(char32_t cp) {
  if (cp == ']' || cp == '-' || cp == '^' || cp == '\\' || cp == '[') {
    return std::string{'\\', static_cast<char>(cp)};
  }
  if (cp >= 0x20 && cp < 0x7F) return std::string(1, static_cast<char>(cp));
  if (cp < 0x80) return hex_escape('x', cp, 2);
  if (cp <= 0xFFFF) return hex_escape('u', cp, 4);
  return hex_escape('U', cp, 8);
}

std::string class_body(const std::vector<std::pair<char32_t, char32_t>>& ranges) {
  std::string body;
  for (auto [lo, hi] : ranges) {
    body += class_char(lo);
    if (hi == lo) continue;
    if (hi > lo + 1) body += '-';
    body += class_char(hi);
  }
  return body;
}

}  // namespace

std::string gbnf_literal(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (byte < 0x20 || byte == 0x7F) {
          out += hex_escape('x', byte, 2);
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

// The tokenizer's encoder (runtime/tokenizer/utf8.h), as a value.
std::string utf8_encode(char32_t cp) {
  std::string out;
  utf8::append(out, cp);
  return out;
}

std::optional<char32_t> utf8_decode(std::string_view text, std::size_t& pos) {
  if (pos >= text.size()) return std::nullopt;
  auto lead = static_cast<unsigned char>(text[pos]);
  std::size_t length = lead < 0x80           ? 1
                       : (lead >> 5) == 0x6  ? 2
                       : (lead >> 4) == 0xE  ? 3
                       : (lead >> 3) == 0x1E ? 4
                                             : 0;
  if (length == 0 || pos + length > text.size()) return std::nullopt;
  char32_t cp = length == 1 ? lead : lead & (0x7F >> length);
  for (std::size_t i = 1; i < length; ++i) {
    auto next = static_cast<unsigned char>(text[pos + i]);
    if ((next & 0xC0) != 0x80) return std::nullopt;
    cp = (cp << 6) | (next & 0x3F);
  }
  static constexpr char32_t min_for_length[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < min_for_length[length] || cp > max_code_point) return std::nullopt;
  pos += length;
  return cp;
}

code_point_set code_point_set::of(char32_t lo, char32_t hi) {
  code_point_set set;
  set.add(lo, hi);
  return set;
}

void code_point_set::add(char32_t lo, char32_t hi) {
  ranges_.emplace_back(lo, hi);
  normalize();
}

void code_point_set::add(const code_point_set& other) {
  ranges_.insert(ranges_.end(), other.ranges_.begin(), other.ranges_.end());
  normalize();
}

// Sorts and merges overlapping or adjacent ranges: the invariant of ranges_.
void code_point_set::normalize() {
  std::sort(ranges_.begin(), ranges_.end());
  std::vector<std::pair<char32_t, char32_t>> merged;
  for (auto range : ranges_) {
    if (!merged.empty() && range.first <= merged.back().second + 1) {
      merged.back().second = std::max(merged.back().second, range.second);
    } else {
      merged.push_back(range);
    }
  }
  ranges_ = std::move(merged);
}

code_point_set code_point_set::complement() const {
  code_point_set out;
  char32_t next = 0;
  for (auto [lo, hi] : ranges_) {
    if (lo > next) out.ranges_.emplace_back(next, lo - 1);
    next = hi + 1;
  }
  if (next <= max_code_point) out.ranges_.emplace_back(next, max_code_point);
  return out;
}

code_point_set code_point_set::intersect(const code_point_set& other) const {
  code_point_set outside = complement();
  outside.add(other.complement());
  return outside.complement();
}

bool code_point_set::contains(char32_t cp) const {
  return std::any_of(ranges_.begin(), ranges_.end(),
                     [cp](auto range) { return range.first <= cp && cp <= range.second; });
}

std::string code_point_set::to_gbnf() const {
  std::string positive = concat({"[", class_body(ranges_), "]"});
  // A set reaching the top code point is usually a negation ([^"\\]): say it that way.
  if (!ranges_.empty() && ranges_.back().second == max_code_point) {
    std::string negative = concat({"[^", class_body(complement().ranges_), "]"});
    if (negative.size() < positive.size() && negative != "[^]") return negative;
  }
  return positive;
}

std::string json_escaped(char32_t cp) {
  switch (cp) {
    case '"':
      return "\\\"";
    case '\\':
      return "\\\\";
    case '\n':
      return "\\n";
    case '\t':
      return "\\t";
    case '\r':
      return "\\r";
    case '\b':
      return "\\b";
    case '\f':
      return "\\f";
    default:
      if (cp < 0x20) return hex_escape('u', cp, 4);
      return utf8_encode(cp);
  }
}

// The characters JSON lets a string hold unescaped form one class; each of the others (at
// most 34) is an alternative written as its escape.
std::string json_string_set_gbnf(const code_point_set& set) {
  code_point_set needs_escape = code_point_set::of(0, 0x1F);
  needs_escape.add('"', '"');
  needs_escape.add('\\', '\\');
  std::vector<std::string> alternatives;
  code_point_set plain = set.intersect(needs_escape.complement());
  if (!plain.empty()) alternatives.push_back(plain.to_gbnf());
  code_point_set escaped = set.intersect(needs_escape);
  if (escaped.intersect(code_point_set::of(0, 0x1F)).ranges() ==
      code_point_set::of(0, 0x1F).ranges()) {
    // Every control character: one group of the short escapes and \u0000-\u001F.
    std::string shorts = "bfnrt";
    if (set.contains('"')) shorts += '"';
    if (set.contains('\\')) shorts += "\\\\";
    alternatives.push_back(concat({R"("\\" ( [)", shorts, R"(] | "u00" [01] [0-9a-fA-F] ))"}));
  } else {
    for (auto [lo, hi] : escaped.ranges()) {
      for (char32_t cp = lo; cp <= hi; ++cp) {
        alternatives.push_back(gbnf_literal(json_escaped(cp)));
      }
    }
  }
  if (alternatives.size() == 1) return alternatives[0];
  std::string out = "(";
  for (std::size_t i = 0; i < alternatives.size(); ++i) {
    out.append(i == 0 ? " " : " | ").append(alternatives[i]);
  }
  return out + " )";
}

}  // namespace pagedserve::grammar
