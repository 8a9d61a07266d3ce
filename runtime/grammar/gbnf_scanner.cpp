#include "runtime/grammar/gbnf_scanner.h"

#include <algorithm>

namespace pagedserve::grammar {
namespace {

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Decodes one UTF-8 code point at text[pos]; 0 bytes when invalid.
std::size_t decode_utf8(std::string_view text, std::size_t pos, char32_t& cp) {
  const auto b0 = static_cast<unsigned char>(text[pos]);
  std::size_t n = b0 < 0x80           ? 1
                  : (b0 >> 5) == 0x6  ? 2
                  : (b0 >> 4) == 0xE  ? 3
                  : (b0 >> 3) == 0x1E ? 4
                                      : 0;
  if (n == 0 || pos + n > text.size()) return 0;
  cp = n == 1 ? b0 : b0 & (0x7F >> n);
  for (std::size_t i = 1; i < n; ++i) {
    const auto b = static_cast<unsigned char>(text[pos + i]);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  static constexpr char32_t min_of_length[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < min_of_length[n] || cp > max_code_point || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

}  // namespace

bool gbnf_scanner::consume(std::string_view s) {
  if (text_.substr(std::min(pos_, text_.size())).starts_with(s)) {
    pos_ += s.size();
    return true;
  }
  return false;
}

// Counts on from the last position asked for: the parser asks at every rule, in order, and
// counting from the start each time would be quadratic in the grammar's size.
std::size_t gbnf_scanner::line_at(std::size_t pos) const {
  pos = std::min(pos, text_.size());
  if (pos < counted_pos_) {
    counted_pos_ = 0;
    counted_line_ = 1;
  }
  counted_line_ +=
      static_cast<std::size_t>(std::count(text_.begin() + counted_pos_, text_.begin() + pos, '\n'));
  counted_pos_ = pos;
  return counted_line_;
}

bool gbnf_scanner::fail(const std::string& message) {
  if (!error_) {
    error_ =
        make_error(error_code::invalid_argument, "line " + std::to_string(line()) + ": " + message);
  }
  return false;
}

void gbnf_scanner::skip_space(bool newline_ok) {
  while (!at_end()) {
    const char c = peek();
    if (c == ' ' || c == '\t' || c == '\r') {
      ++pos_;
    } else if (c == '#') {
      while (!at_end() && peek() != '\n') ++pos_;
    } else if (c == '\n' && (newline_ok || !starts_rule_or_end(pos_ + 1))) {
      ++pos_;
    } else {
      return;
    }
  }
}

// Whether the text from pos, past blank and comment lines, is `name ::=` or nothing.
bool gbnf_scanner::starts_rule_or_end(std::size_t pos) const {
  while (pos < text_.size()) {
    const char c = text_[pos];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      ++pos;
    } else if (c == '#') {
      while (pos < text_.size() && text_[pos] != '\n') ++pos;
    } else {
      break;
    }
  }
  if (pos >= text_.size()) return true;
  const std::size_t name_begin = pos;
  while (pos < text_.size() && is_name_char(text_[pos])) ++pos;
  if (pos == name_begin) return false;
  while (pos < text_.size() && (text_[pos] == ' ' || text_[pos] == '\t')) ++pos;
  return text_.substr(pos).starts_with("::=");
}

std::string_view gbnf_scanner::scan_name() {
  const std::size_t begin = pos_;
  while (!at_end() && is_name_char(peek())) ++pos_;
  return text_.substr(begin, pos_ - begin);
}

bool gbnf_scanner::scan_escape(char32_t& cp) {
  ++pos_;  // the backslash
  const char c = peek();
  ++pos_;
  std::size_t num_digits = 0;
  switch (c) {
    case 'n':
      cp = '\n';
      return true;
    case 'r':
      cp = '\r';
      return true;
    case 't':
      cp = '\t';
      return true;
    case '"':
    case '\\':
    case '[':
    case ']':
    case '-':
    case '^':
    case '/':
      cp = static_cast<unsigned char>(c);
      return true;
    case 'x':
      num_digits = 2;
      break;
    case 'u':
      num_digits = 4;
      break;
    case 'U':
      num_digits = 8;
      break;
    default:
      --pos_;
      return fail(c == '\0' ? "unfinished escape" : std::string("unknown escape '\\") + c + "'");
  }
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < num_digits; ++i) {
    const int digit = hex_value(peek());
    if (digit < 0)
      return fail(std::string("escape \\") + c + " needs " + std::to_string(num_digits) +
                  " hex digits");
    value = value * 16 + static_cast<std::uint64_t>(digit);
    ++pos_;
  }
  if (value > max_code_point || (value >= 0xD800 && value <= 0xDFFF)) {
    return fail("escape is not a valid code point");
  }
  cp = static_cast<char32_t>(value);
  return true;
}

bool gbnf_scanner::scan_literal(std::vector<std::uint8_t>& out) {
  ++pos_;  // the opening quote
  while (true) {
    if (at_end() || peek() == '\n') return fail("unterminated string literal");
    const char c = peek();
    if (c == '"') break;
    if (c == '\\') {
      char32_t cp = 0;
      if (!scan_escape(cp)) return false;
      append_utf8(out, cp);
    } else {
      out.push_back(static_cast<std::uint8_t>(c));
      ++pos_;
    }
  }
  ++pos_;
  return true;
}

bool gbnf_scanner::scan_class_char(char32_t& cp) {
  if (at_end() || peek() == '\n') return fail("unterminated character class");
  if (peek() == '\\') return scan_escape(cp);
  const std::size_t n = decode_utf8(text_, pos_, cp);
  if (n == 0) return fail("invalid UTF-8 in character class");
  pos_ += n;
  return true;
}

bool gbnf_scanner::scan_class(std::vector<code_point_range>& out, bool& negated) {
  ++pos_;  // '['
  negated = consume("^");
  while (at_end() || peek() != ']') {
    char32_t lo = 0;
    if (!scan_class_char(lo)) return false;
    char32_t hi = lo;
    if (peek() == '-' && peek(1) != ']' && peek(1) != '\0') {
      ++pos_;
      if (!scan_class_char(hi)) return false;
      if (hi < lo) return fail("character class range is out of order");
    }
    out.push_back({lo, hi});
  }
  ++pos_;  // ']'
  return true;
}

bool gbnf_scanner::scan_number(std::size_t& value) {
  if (peek() < '0' || peek() > '9') return fail("expected a number in { }");
  value = 0;
  while (peek() >= '0' && peek() <= '9') {
    // Saturates: anything this large is past every bound and refused by the caller.
    value = std::min<std::size_t>(value * 10 + static_cast<std::size_t>(peek() - '0'),
                                  std::size_t{1} << 40);
    ++pos_;
  }
  return true;
}

bool gbnf_scanner::scan_repetition(std::size_t& min, std::optional<std::size_t>& max) {
  ++pos_;  // '{'
  skip_space(true);
  if (!scan_number(min)) return false;
  skip_space(true);
  max = min;
  if (consume(",")) {
    skip_space(true);
    max.reset();
    if (peek() != '}') {
      std::size_t n = 0;
      if (!scan_number(n)) return false;
      max = n;
      skip_space(true);
    }
  }
  if (!consume("}")) return fail("expected '}' to close the repetition");
  if (max && *max < min) return fail("repetition {m,n} has n < m");
  return true;
}

}  // namespace pagedserve::grammar
