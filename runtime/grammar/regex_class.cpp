#include "runtime/grammar/regex_class.h"

#include <cctype>
#include <optional>
#include <string>

namespace pagedserve::grammar {
namespace {

error invalid_at(std::size_t offset, const std::string& what) {
  return make_error(error_code::invalid_argument,
                    "invalid regex: " + what + " at offset " + std::to_string(offset));
}

error unsupported_at(std::size_t offset, const std::string& what) {
  return make_error(
      error_code::unsupported,
      "regex construct " + what + " is not supported (offset " + std::to_string(offset) + ")");
}

code_point_set digits() { return code_point_set::of('0', '9'); }

code_point_set word_chars() {
  code_point_set set = code_point_set::of('a', 'z');
  set.add('A', 'Z');
  set.add('0', '9');
  set.add('_', '_');
  return set;
}

// ECMAScript's WhiteSpace and LineTerminator code points.
code_point_set space_chars() {
  code_point_set set = code_point_set::of('\t', '\r');
  for (char32_t cp : {0x20, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF}) {
    set.add(cp, cp);
  }
  set.add(0x2000, 0x200A);
  return set;
}

regex_escape set_escape(code_point_set set) { return {true, std::move(set), 0}; }
regex_escape char_escape(char32_t cp) { return {false, {}, cp}; }

std::optional<char32_t> parse_hex(std::string_view pattern, std::size_t& pos, std::size_t n) {
  if (pos + n > pattern.size()) return std::nullopt;
  char32_t value = 0;
  for (std::size_t i = 0; i < n; ++i) {
    char c = pattern[pos + i];
    int digit = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
    if (digit < 0) return std::nullopt;
    value = value * 16 + static_cast<char32_t>(digit);
  }
  pos += n;
  return value;
}

// \uXXXX, with a following \uXXXX low surrogate joined to a high one (how ECMAScript
// strings spell code points past U+FFFF), and \u{X...}.
result<regex_escape> parse_unicode_escape(std::string_view pattern, std::size_t& pos,
                                          std::size_t start) {
  if (pos < pattern.size() && pattern[pos] == '{') {
    auto close = pattern.find('}', pos);
    std::size_t digits_pos = pos + 1;
    std::size_t n = close == std::string_view::npos ? 0 : close - digits_pos;
    auto cp = n > 0 && n <= 6 ? parse_hex(pattern, digits_pos, n) : std::nullopt;
    if (!cp || *cp > max_code_point) return invalid_at(start, "bad \\u{...} escape");
    pos = close + 1;
    return char_escape(*cp);
  }
  auto cp = parse_hex(pattern, pos, 4);
  if (!cp) return invalid_at(start, "bad \\u escape");
  if (*cp >= 0xD800 && *cp < 0xDC00 && pattern.substr(pos, 2) == "\\u") {
    std::size_t low_pos = pos + 2;
    auto low = parse_hex(pattern, low_pos, 4);
    if (low && *low >= 0xDC00 && *low < 0xE000) {
      pos = low_pos;
      return char_escape(0x10000 + ((*cp - 0xD800) << 10) + (*low - 0xDC00));
    }
  }
  return char_escape(*cp);
}

}  // namespace

result<regex_escape> parse_escape(std::string_view pattern, std::size_t& pos,
                                  escape_context context) {
  std::size_t start = pos++;
  if (pos >= pattern.size()) return invalid_at(start, "'\\' at the end of the pattern");
  char c = pattern[pos++];
  switch (c) {
    case 'd':
      return set_escape(digits());
    case 'D':
      return set_escape(digits().complement());
    case 'w':
      return set_escape(word_chars());
    case 'W':
      return set_escape(word_chars().complement());
    case 's':
      return set_escape(space_chars());
    case 'S':
      return set_escape(space_chars().complement());
    case 'n':
      return char_escape('\n');
    case 't':
      return char_escape('\t');
    case 'r':
      return char_escape('\r');
    case 'f':
      return char_escape('\f');
    case 'v':
      return char_escape('\v');
    case 'b':
      if (context == escape_context::inside_class) return char_escape('\b');
      return unsupported_at(start, "word boundary '\\b'");
    case 'B':
      return unsupported_at(start, "word boundary '\\B'");
    case 'k':
      return unsupported_at(start, "backreference '\\k'");
    case 'p':
    case 'P':
      return unsupported_at(start,
                            concat({"Unicode property escape '\\", std::string_view(&c, 1), "'"}));
    case 'x': {
      auto cp = parse_hex(pattern, pos, 2);
      if (!cp) return invalid_at(start, "bad \\x escape");
      return char_escape(*cp);
    }
    case 'u':
      return parse_unicode_escape(pattern, pos, start);
    case 'c':
      if (pos < pattern.size() && std::isalpha(static_cast<unsigned char>(pattern[pos]))) {
        return char_escape(static_cast<char32_t>(pattern[pos++]) % 32);
      }
      return invalid_at(start, "bad \\c escape");
    case '0':
      if (pos < pattern.size() && std::isdigit(static_cast<unsigned char>(pattern[pos]))) {
        return unsupported_at(start, "octal escape");
      }
      return char_escape(0);
    default:
      break;
  }
  if (c >= '1' && c <= '9')
    return unsupported_at(start, concat({"backreference '\\", std::string_view(&c, 1), "'"}));
  // Any other character stands for itself (\. \/ \- and ECMAScript's identity escapes).
  --pos;
  auto cp = utf8_decode(pattern, pos);
  if (!cp) return invalid_at(start, "invalid UTF-8");
  return char_escape(*cp);
}

namespace {

// One member of a class: a code point or a set escape. pos is advanced past it.
result<regex_escape> parse_class_atom(std::string_view pattern, std::size_t& pos) {
  if (pattern[pos] == '\\') return parse_escape(pattern, pos, escape_context::inside_class);
  std::size_t start = pos;
  auto cp = utf8_decode(pattern, pos);
  if (!cp) return invalid_at(start, "invalid UTF-8");
  return char_escape(*cp);
}

}  // namespace

result<code_point_set> parse_class(std::string_view pattern, std::size_t& pos) {
  std::size_t open = pos++;
  bool negated = pos < pattern.size() && pattern[pos] == '^';
  if (negated) ++pos;
  code_point_set set;
  while (true) {
    if (pos >= pattern.size()) return invalid_at(open, "missing ']' for the class");
    if (pattern[pos] == ']') break;
    std::size_t atom_start = pos;
    auto first = parse_class_atom(pattern, pos);
    if (!first.ok()) return first.err();
    bool is_range = pos + 1 < pattern.size() && pattern[pos] == '-' && pattern[pos + 1] != ']';
    if (!is_range) {
      first->is_set ? set.add(first->set) : set.add(first->cp, first->cp);
      continue;
    }
    ++pos;
    auto last = parse_class_atom(pattern, pos);
    if (!last.ok()) return last.err();
    if (first->is_set || last->is_set) return invalid_at(atom_start, "class escape in a range");
    if (first->cp > last->cp) return invalid_at(atom_start, "range out of order in class");
    set.add(first->cp, last->cp);
  }
  ++pos;
  return negated ? set.complement() : set;
}

}  // namespace pagedserve::grammar
