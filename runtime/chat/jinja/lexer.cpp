#include "runtime/chat/jinja/lexer.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>

#include "runtime/chat/jinja/utf8.h"

namespace pagedserve::jinja {
namespace {

bool is_ws(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
bool is_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '_'; }
bool is_name_char(char c) {
  return is_name_start(c) || std::isdigit(static_cast<unsigned char>(c)) != 0;
}

std::string rstrip_ws(std::string_view s) {
  std::size_t end = s.size();
  while (end > 0 && is_ws(s[end - 1])) --end;
  return std::string(s.substr(0, end));
}

// Jinja normalises every newline sequence to "\n" and drops one trailing newline.
std::string normalize(std::string_view source) {
  std::string out;
  out.reserve(source.size());
  for (std::size_t i = 0; i < source.size(); ++i) {
    if (source[i] == '\r') {
      out += '\n';
      if (i + 1 < source.size() && source[i + 1] == '\n') ++i;
    } else {
      out += source[i];
    }
  }
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

class lexer {
 public:
  explicit lexer(std::string src) : src_(std::move(src)) {}

  result<std::vector<token>> run() {
    while (pos_ < src_.size()) {
      if (auto st = step(); !st.ok()) return st.err();
    }
    tokens_.push_back({token_kind::eof, "", line_});
    return std::move(tokens_);
  }

 private:
  error fail(const std::string& what) const {
    return make_error(error_code::invalid_argument,
                      "chat template syntax error (line " + std::to_string(line_) + "): " + what);
  }

  // One piece of text followed by one tag (or the rest of the template).
  status step() {
    std::size_t tag = pos_;
    while ((tag = src_.find('{', tag)) != std::string::npos) {
      if (tag + 1 < src_.size() &&
          (src_[tag + 1] == '{' || src_[tag + 1] == '%' || src_[tag + 1] == '#'))
        break;
      ++tag;
    }
    std::string text = src_.substr(pos_, tag == std::string::npos ? std::string::npos : tag - pos_);
    if (tag == std::string::npos) {
      emit_text(std::move(text));
      pos_ = src_.size();
      return {};
    }
    const char kind = src_[tag + 1];
    const char sign = tag + 2 < src_.size() ? src_[tag + 2] : '\0';
    if (sign == '-') {
      text = rstrip_ws(text);
    } else if (kind != '{' && sign != '+') {
      text = lstrip_line(std::move(text));
    }
    emit_text(std::move(text));
    pos_ = tag + 2 + ((sign == '-' || sign == '+') ? 1 : 0);
    if (kind == '#') return comment();
    return tag_body(kind == '{');
  }

  // lstrip_blocks: drop whitespace between the start of the line and a block or comment tag.
  std::string lstrip_line(std::string text) const {
    const auto nl = text.rfind('\n');
    const std::size_t l_pos = nl == std::string::npos ? 0 : nl + 1;
    if (l_pos == 0 && !line_starting_) return text;
    if (l_pos == text.size()) return text;
    for (std::size_t i = l_pos; i < text.size(); ++i) {
      if (!is_ws(text[i])) return text;
    }
    text.resize(l_pos);
    return text;
  }

  void emit_text(std::string text) {
    if (strip_next_) {
      std::size_t i = 0;
      while (i < text.size() && is_ws(text[i])) ++i;
      text.erase(0, i);
      strip_next_ = false;
    }
    line_ += static_cast<int>(std::count(text.begin(), text.end(), '\n'));
    if (!text.empty()) tokens_.push_back({token_kind::text, std::move(text), line_});
  }

  // After a %} or #}: `-` strips following whitespace, `+` keeps it, else trim_blocks.
  void after_block_end(char sign) {
    line_starting_ = false;
    if (sign == '-') {
      std::size_t i = pos_;
      while (i < src_.size() && is_ws(src_[i])) ++i;
      line_starting_ = i > pos_ && src_[i - 1] == '\n';
      line_ += static_cast<int>(std::count(src_.begin() + static_cast<std::ptrdiff_t>(pos_),
                                           src_.begin() + static_cast<std::ptrdiff_t>(i), '\n'));
      pos_ = i;
    } else if (sign != '+' && pos_ < src_.size() && src_[pos_] == '\n') {
      ++pos_;
      ++line_;
      line_starting_ = true;
    }
  }

  status comment() {
    const auto end = src_.find("#}", pos_);
    if (end == std::string::npos) return fail("unterminated comment");
    const char sign =
        end > pos_ && (src_[end - 1] == '-' || src_[end - 1] == '+') ? src_[end - 1] : '\0';
    line_ += static_cast<int>(std::count(src_.begin() + static_cast<std::ptrdiff_t>(pos_),
                                         src_.begin() + static_cast<std::ptrdiff_t>(end), '\n'));
    pos_ = end + 2;
    after_block_end(sign);
    return {};
  }

  status tag_body(bool is_var) {
    const std::size_t first = tokens_.size();
    tokens_.push_back({is_var ? token_kind::var_begin : token_kind::block_begin, "", line_});
    int depth = 0;
    for (;;) {
      while (pos_ < src_.size() && is_ws(src_[pos_])) {
        if (src_[pos_] == '\n') ++line_;
        ++pos_;
      }
      if (pos_ >= src_.size())
        return fail(is_var ? "unexpected end of template, expected '}}'"
                           : "unexpected end of template, expected '%}'");
      if (depth == 0) {
        if (auto sign = tag_end(is_var)) {
          tokens_.push_back({is_var ? token_kind::var_end : token_kind::block_end, "", line_});
          if (is_var) {
            line_starting_ = false;
            if (*sign == '-') strip_next_ = true;
          } else {
            after_block_end(*sign);
          }
          if (!is_var && is_raw_start(first)) return raw_body(first);
          return {};
        }
      }
      if (auto st = lex_one(depth); !st.ok()) return st;
    }
  }

  // Length of the closing marker at pos_, with its sign char ('-', '+' or ' ').
  std::optional<char> tag_end(bool is_var) {
    const std::string_view rest = std::string_view(src_).substr(pos_);
    const std::string_view close = is_var ? "}}" : "%}";
    if (rest.starts_with(close)) {
      pos_ += 2;
      return ' ';
    }
    if ((rest.starts_with("-") || (!is_var && rest.starts_with("+"))) &&
        rest.substr(1).starts_with(close)) {
      pos_ += 3;
      return rest[0];
    }
    return std::nullopt;
  }

  bool is_raw_start(std::size_t first) const {
    return tokens_.size() == first + 3 && tokens_[first + 1].kind == token_kind::name &&
           tokens_[first + 1].text == "raw";
  }

  // {% raw %}...{% endraw %}: the body is text, no tags inside are interpreted.
  status raw_body(std::size_t first) {
    tokens_.resize(first);
    std::size_t search = pos_;
    for (;;) {
      const auto tag = src_.find("{%", search);
      if (tag == std::string::npos) return fail("missing endraw");
      std::size_t i = tag + 2;
      const char sign = i < src_.size() && (src_[i] == '-' || src_[i] == '+') ? src_[i] : ' ';
      if (sign != ' ') ++i;
      while (i < src_.size() && is_ws(src_[i])) ++i;
      if (src_.compare(i, 6, "endraw") != 0) {
        search = tag + 2;
        continue;
      }
      i += 6;
      while (i < src_.size() && is_ws(src_[i])) ++i;
      std::string body = src_.substr(pos_, tag - pos_);
      if (sign == '-') body = rstrip_ws(body);
      line_ += static_cast<int>(std::count(body.begin(), body.end(), '\n'));
      if (!body.empty()) tokens_.push_back({token_kind::text, std::move(body), line_});
      pos_ = i;
      const auto end_sign = tag_end(false);
      if (!end_sign) return fail("malformed endraw");
      after_block_end(*end_sign);
      return {};
    }
  }

  status lex_one(int& depth) {
    const char c = src_[pos_];
    if (c == '\'' || c == '"') return string_literal(c);
    if (std::isdigit(static_cast<unsigned char>(c)) != 0) return number();
    if (is_name_start(c)) {
      std::size_t end = pos_;
      while (end < src_.size() && is_name_char(src_[end])) ++end;
      tokens_.push_back({token_kind::name, src_.substr(pos_, end - pos_), line_});
      pos_ = end;
      return {};
    }
    static constexpr std::array<std::string_view, 6> two = {"//", "**", "==", "!=", "<=", ">="};
    for (auto op : two) {
      if (std::string_view(src_).substr(pos_).starts_with(op)) {
        tokens_.push_back({token_kind::op, std::string(op), line_});
        pos_ += 2;
        return {};
      }
    }
    if (std::string_view("+-*/%~<>=()[]{},.:|").find(c) == std::string_view::npos) {
      return fail(std::string("unexpected character '") + c + "'");
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') {
      if (depth == 0) return fail(std::string("unexpected '") + c + "'");
      --depth;
    }
    tokens_.push_back({token_kind::op, std::string(1, c), line_});
    ++pos_;
    return {};
  }

  status number() {
    std::size_t end = pos_;
    auto digits = [&] {
      while (end < src_.size() &&
             (std::isdigit(static_cast<unsigned char>(src_[end])) != 0 || src_[end] == '_'))
        ++end;
    };
    digits();
    bool is_float = false;
    if (end + 1 < src_.size() && src_[end] == '.' &&
        std::isdigit(static_cast<unsigned char>(src_[end + 1])) != 0) {
      is_float = true;
      ++end;
      digits();
    }
    if (end < src_.size() && (src_[end] == 'e' || src_[end] == 'E')) {
      std::size_t e = end + 1;
      if (e < src_.size() && (src_[e] == '+' || src_[e] == '-')) ++e;
      if (e < src_.size() && std::isdigit(static_cast<unsigned char>(src_[e])) != 0) {
        is_float = true;
        end = e;
        digits();
      }
    }
    std::string text = src_.substr(pos_, end - pos_);
    text.erase(std::remove(text.begin(), text.end(), '_'), text.end());
    tokens_.push_back(
        {is_float ? token_kind::floating : token_kind::integer, std::move(text), line_});
    pos_ = end;
    return {};
  }

  // Python string escapes (Jinja decodes literals with "unicode-escape").
  status string_literal(char quote) {
    std::string out;
    std::size_t i = pos_ + 1;
    for (;;) {
      if (i >= src_.size()) return fail("unterminated string literal");
      const char c = src_[i];
      if (c == quote) break;
      if (c == '\n') ++line_;
      if (c != '\\' || i + 1 >= src_.size()) {
        out += c;
        ++i;
        continue;
      }
      i += 1 + escape(src_[i + 1], i + 2, out);
    }
    tokens_.push_back({token_kind::string, std::move(out), line_});
    pos_ = i + 1;
    return {};
  }

  // Appends the escape `\e...` to out; returns how many chars after `e` it consumed.
  std::size_t escape(char e, std::size_t after, std::string& out) const {
    switch (e) {
      case 'n':
        out += '\n';
        return 1;
      case 't':
        out += '\t';
        return 1;
      case 'r':
        out += '\r';
        return 1;
      case '\\':
        out += '\\';
        return 1;
      case '\'':
        out += '\'';
        return 1;
      case '"':
        out += '"';
        return 1;
      case 'a':
        out += '\a';
        return 1;
      case 'b':
        out += '\b';
        return 1;
      case 'f':
        out += '\f';
        return 1;
      case 'v':
        out += '\v';
        return 1;
      case '\n':
        return 1;
      case 'x':
      case 'u':
      case 'U': {
        const std::size_t width = e == 'x' ? 2 : (e == 'u' ? 4 : 8);
        if (!hex_escape(after, width, out)) {
          out += '\\';
          return 0;
        }
        return 1 + width;
      }
      default:
        if (e >= '0' && e <= '7') {
          std::size_t n = 0;
          unsigned v = 0;
          for (std::size_t k = after - 1;
               k < src_.size() && n < 3 && src_[k] >= '0' && src_[k] <= '7'; ++k, ++n) {
            v = v * 8 + static_cast<unsigned>(src_[k] - '0');
          }
          utf8::append(out, v);
          return n;
        }
        out += '\\';
        return 0;  // unknown escapes keep the backslash; the char is read normally
    }
  }

  bool hex_escape(std::size_t at, std::size_t width, std::string& out) const {
    if (at + width > src_.size()) return false;
    unsigned v = 0;
    for (std::size_t k = 0; k < width; ++k) {
      const char h = static_cast<char>(std::tolower(static_cast<unsigned char>(src_[at + k])));
      if (std::isxdigit(static_cast<unsigned char>(h)) == 0) return false;
      v = v * 16 + static_cast<unsigned>(h <= '9' ? h - '0' : h - 'a' + 10);
    }
    utf8::append(out, v);
    return true;
  }

  std::string src_;
  std::size_t pos_ = 0;
  int line_ = 1;
  bool line_starting_ = true;
  bool strip_next_ = false;
  std::vector<token> tokens_;
};

}  // namespace

result<std::vector<token>> lex(std::string_view source) { return lexer(normalize(source)).run(); }

}  // namespace pagedserve::jinja
