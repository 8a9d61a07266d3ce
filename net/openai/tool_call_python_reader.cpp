#include "net/openai/tool_call_python_reader.h"

#include <cctype>

#include "net/openai/tool_call_scan.h"

namespace pagedserve::net::detail {
namespace {

namespace json = boost::json;

constexpr int k_max_depth = 64;

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_ident_char(char c) {
  return is_ident_start(c) || std::isdigit(static_cast<unsigned char>(c));
}
bool is_number_char(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' ||
         c == '+' || c == '-';
}

}  // namespace

std::optional<python_call> python_reader::call() {
  python_call c;
  auto name = identifier();
  if (!name || !eat('(')) return std::nullopt;
  c.name = std::move(*name);
  if (eat(')')) return c;
  while (true) {
    auto key = identifier();
    if (!key || !eat('=')) return std::nullopt;
    auto v = value();
    if (!v) return std::nullopt;
    c.arguments[*key] = std::move(*v);
    if (eat(')')) return c;
    if (!eat(',')) return std::nullopt;
    if (eat(')')) return c;  // a trailing comma
  }
}

bool python_reader::more() {
  while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  if (pos_ < text_.size()) return true;
  incomplete_ = true;
  return false;
}

bool python_reader::eat(char c) {
  if (!more() || text_[pos_] != c) return false;
  ++pos_;
  return true;
}

std::optional<std::string> python_reader::identifier() {
  if (!more() || !is_ident_start(text_[pos_])) return std::nullopt;
  const std::size_t start = pos_;
  while (pos_ < text_.size() && is_ident_char(text_[pos_])) ++pos_;
  if (pos_ == text_.size()) {  // the name may go on
    incomplete_ = true;
    return std::nullopt;
  }
  return std::string(text_.substr(start, pos_ - start));
}

std::optional<json::value> python_reader::value() {
  if (!more()) return std::nullopt;
  const char c = text_[pos_];
  if (c == '\'' || c == '"') {
    auto s = string_literal();
    if (!s) return std::nullopt;
    return json::value(json::string(*s));
  }
  if (c == '[' || c == '(' || c == '{') {
    if (depth_ == k_max_depth) return std::nullopt;
    ++depth_;
    auto v = c == '{' ? dict() : sequence(c == '[' ? ']' : ')');
    --depth_;
    return v;
  }
  if (is_ident_start(c)) return word();
  if (is_number_char(c)) return number();
  return std::nullopt;
}

std::optional<json::value> python_reader::word() {
  auto w = identifier();
  if (!w) return std::nullopt;
  if (*w == "True") return json::value(true);
  if (*w == "False") return json::value(false);
  if (*w == "None") return json::value(nullptr);
  return std::nullopt;
}

// Python's number forms that JSON lacks (+1, .5, 1.) are written the JSON way first.
std::optional<json::value> python_reader::number() {
  const std::size_t start = pos_;
  while (pos_ < text_.size() && is_number_char(text_[pos_])) ++pos_;
  if (pos_ == text_.size()) {
    incomplete_ = true;
    return std::nullopt;
  }
  std::string_view raw = text_.substr(start, pos_ - start);
  if (raw.starts_with('+')) raw.remove_prefix(1);
  // Built by appending (GCC 12 reports false -Wrestrict errors for std::string::insert).
  std::string digits;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    const bool digit_before = i > 0 && std::isdigit(static_cast<unsigned char>(raw[i - 1]));
    const bool digit_after =
        i + 1 < raw.size() && std::isdigit(static_cast<unsigned char>(raw[i + 1]));
    if (raw[i] == '.' && !digit_before) digits += '0';
    digits += raw[i];
    if (raw[i] == '.' && !digit_after) digits += '0';
  }
  boost::system::error_code ec;
  json::value v = json::parse(digits, ec);
  if (ec || !v.is_number()) return std::nullopt;
  return v;
}

std::optional<json::value> python_reader::sequence(char close) {
  ++pos_;  // the opening bracket
  json::array items;
  while (true) {
    if (eat(close)) return json::value(std::move(items));
    if (incomplete_) return std::nullopt;
    auto v = value();
    if (!v) return std::nullopt;
    items.push_back(std::move(*v));
    if (eat(close)) return json::value(std::move(items));
    if (!eat(',')) return std::nullopt;
  }
}

std::optional<json::value> python_reader::dict() {
  ++pos_;  // '{'
  json::object items;
  while (true) {
    if (eat('}')) return json::value(std::move(items));
    if (!more() || (text_[pos_] != '\'' && text_[pos_] != '"')) return std::nullopt;
    auto key = string_literal();
    if (!key || !eat(':')) return std::nullopt;
    auto v = value();
    if (!v) return std::nullopt;
    items[*key] = std::move(*v);
    if (eat('}')) return json::value(std::move(items));
    if (!eat(',')) return std::nullopt;
  }
}

std::optional<std::string> python_reader::string_literal() {
  const char quote = text_[pos_++];
  std::string out;
  while (true) {
    if (pos_ == text_.size()) {
      incomplete_ = true;
      return std::nullopt;
    }
    const char c = text_[pos_++];
    if (c == quote) return out;
    if (c == '\n') return std::nullopt;  // a single-quoted string ends on its line
    if (c != '\\') {
      out += c;
    } else if (!escape(out)) {
      return std::nullopt;
    }
  }
}

bool python_reader::escape(std::string& out) {
  if (pos_ == text_.size()) {
    incomplete_ = true;
    return false;
  }
  const char c = text_[pos_++];
  switch (c) {
    case '\n':
      return true;  // a line continuation
    case '\\':
    case '\'':
    case '"':
      out += c;
      return true;
    case 'n':
      out += '\n';
      return true;
    case 't':
      out += '\t';
      return true;
    case 'r':
      out += '\r';
      return true;
    case 'b':
      out += '\b';
      return true;
    case 'f':
      out += '\f';
      return true;
    case 'v':
      out += '\v';
      return true;
    case 'a':
      out += '\a';
      return true;
    case '0':
      out += '\0';
      return true;
    case 'x':
      return code_point(2, out);
    case 'u':
      return code_point(4, out);
    case 'U':
      return code_point(8, out);
    default:  // Python keeps an unknown escape as written
      out += '\\';
      out += c;
      return true;
  }
}

bool python_reader::code_point(int digits, std::string& out) {
  std::uint32_t cp = 0;
  for (int i = 0; i < digits; ++i, ++pos_) {
    if (pos_ == text_.size()) {
      incomplete_ = true;
      return false;
    }
    const char h = text_[pos_];
    if (!std::isxdigit(static_cast<unsigned char>(h))) return false;
    cp = cp * 16 +
         static_cast<std::uint32_t>(std::isdigit(h) ? h - '0' : (std::tolower(h) - 'a' + 10));
  }
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;  // not UTF-8
  append_utf8(out, cp);
  return true;
}

}  // namespace pagedserve::net::detail
