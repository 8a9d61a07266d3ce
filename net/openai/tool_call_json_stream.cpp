#include "net/openai/tool_call_json_stream.h"

#include <boost/json.hpp>

#include "net/openai/tool_call_scan.h"

namespace pagedserve::net::detail {
namespace {

bool is_number_char(char c) {
  return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::size_t json_stream::feed(std::string_view text, std::string& out) {
  std::size_t used = 0;
  while (used < text.size() && status_ == status::running) {
    if (!step(text[used], out)) {
      status_ = status::failed;
      return used;
    }
    ++used;
  }
  if (token_ == token::string) flush_string(out);
  return used;
}

bool json_stream::step(char c, std::string& out) {
  switch (token_) {
    case token::string:
      return string_char(c, out);
    case token::escape:
      return escape_char(c);
    case token::unicode:
      return unicode_char(c);
    case token::literal:
      return literal_char(c, out);
    case token::number:
      if (is_number_char(c)) {
        pending_ += c;
        return true;
      }
      if (!end_number(out)) return false;
      return structural(c, out);  // the byte that ended the number
    case token::none:
      return structural(c, out);
  }
  return false;
}

bool json_stream::structural(char c, std::string& out) {
  if (is_json_space(c)) return true;
  switch (expect_) {
    case expect::first_value:
      if (c == ']') return close(c, out);
      return begin_value(c, out);
    case expect::value:
      return begin_value(c, out);
    case expect::first_key:
      if (c == '}') return close(c, out);
      [[fallthrough]];
    case expect::key:
      if (c != '"') return false;
      out += '"';
      token_ = token::string;
      in_key_ = true;
      return true;
    case expect::colon:
      if (c != ':') return false;
      out += ':';
      expect_ = expect::value;
      return true;
    case expect::comma_or_end:
      if (c == ',') {
        out += ',';
        expect_ = stack_.back() == '{' ? expect::key : expect::value;
        return true;
      }
      if ((c == '}' && stack_.back() == '{') || (c == ']' && stack_.back() == '[')) {
        return close(c, out);
      }
      return false;
  }
  return false;
}

bool json_stream::begin_value(char c, std::string& out) {
  if (c == '{' || c == '[') {
    out += c;
    stack_ += c;
    expect_ = c == '{' ? expect::first_key : expect::first_value;
  } else if (c == '"') {
    out += '"';
    token_ = token::string;
    in_key_ = false;
  } else if (c == '-' || (c >= '0' && c <= '9')) {
    token_ = token::number;
    pending_.assign(1, c);
  } else if (c == 't' || c == 'f' || c == 'n') {
    token_ = token::literal;
    pending_.assign(1, c);
  } else {
    return false;
  }
  return true;
}

bool json_stream::close(char c, std::string& out) {
  out += c;
  stack_.pop_back();
  value_done();
  return true;
}

void json_stream::value_done() {
  token_ = token::none;
  if (stack_.empty()) {
    status_ = status::done;
  } else {
    expect_ = expect::comma_or_end;
  }
}

bool json_stream::string_char(char c, std::string& out) {
  const auto b = static_cast<unsigned char>(c);
  if (utf8_need_ > 0) return continuation(b);
  if (high_surrogate_ != 0 && c != '\\') return false;  // a lone high surrogate
  if (c == '"') {
    flush_string(out);
    out += '"';
    token_ = token::none;
    if (in_key_) {
      expect_ = expect::colon;
    } else {
      value_done();
    }
    return true;
  }
  if (c == '\\') {
    token_ = token::escape;
    return true;
  }
  if (b < 0x20) return false;
  chunk_ += c;
  if (b < 0x80) return true;
  // A lead byte: its length and the range of its first continuation byte (RFC 3629).
  utf8_lo_ = 0x80;
  utf8_hi_ = 0xBF;
  if (b >= 0xC2 && b <= 0xDF) {
    utf8_need_ = 1;
  } else if (b >= 0xE0 && b <= 0xEF) {
    utf8_need_ = 2;
    if (b == 0xE0) utf8_lo_ = 0xA0;
    if (b == 0xED) utf8_hi_ = 0x9F;
  } else if (b >= 0xF0 && b <= 0xF4) {
    utf8_need_ = 3;
    if (b == 0xF0) utf8_lo_ = 0x90;
    if (b == 0xF4) utf8_hi_ = 0x8F;
  } else {
    return false;
  }
  utf8_have_ = 1;
  return true;
}

bool json_stream::continuation(unsigned char b) {
  if (b < utf8_lo_ || b > utf8_hi_) return false;
  chunk_ += static_cast<char>(b);
  utf8_lo_ = 0x80;
  utf8_hi_ = 0xBF;
  --utf8_need_;
  utf8_have_ = utf8_need_ == 0 ? 0 : utf8_have_ + 1;
  return true;
}

bool json_stream::escape_char(char c) {
  if (high_surrogate_ != 0 && c != 'u') return false;
  token_ = token::string;
  switch (c) {
    case '"':
      chunk_ += '"';
      return true;
    case '\\':
      chunk_ += '\\';
      return true;
    case '/':
      chunk_ += '/';
      return true;
    case 'b':
      chunk_ += '\b';
      return true;
    case 'f':
      chunk_ += '\f';
      return true;
    case 'n':
      chunk_ += '\n';
      return true;
    case 'r':
      chunk_ += '\r';
      return true;
    case 't':
      chunk_ += '\t';
      return true;
    case 'u':
      token_ = token::unicode;
      pending_.clear();
      return true;
    default:
      return false;
  }
}

bool json_stream::unicode_char(char c) {
  if (hex_digit(c) < 0) return false;
  pending_ += c;
  if (pending_.size() < 4) return true;
  std::uint32_t cp = 0;
  for (const char h : pending_) cp = cp * 16 + static_cast<std::uint32_t>(hex_digit(h));
  token_ = token::string;
  if (high_surrogate_ != 0) {
    if (cp < 0xDC00 || cp > 0xDFFF) return false;
    cp = 0x10000 + ((high_surrogate_ - 0xD800) << 10) + (cp - 0xDC00);
    high_surrogate_ = 0;
  } else if (cp >= 0xD800 && cp <= 0xDBFF) {
    high_surrogate_ = cp;
    return true;
  } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
    return false;
  }
  append_utf8(chunk_, cp);
  return true;
}

bool json_stream::literal_char(char c, std::string& out) {
  pending_ += c;
  for (const std::string_view word : {"true", "false", "null"}) {
    if (word == pending_) {
      out += pending_;
      value_done();
      return true;
    }
    if (word.starts_with(pending_)) return true;
  }
  return false;
}

// The number's text is complete: Boost.JSON decides whether it is one; it goes out as the
// model wrote it (a valid JSON number: re-serializing would turn 2.50 into 2.5E0).
bool json_stream::end_number(std::string& out) {
  boost::system::error_code ec;
  const boost::json::value v = boost::json::parse(pending_, ec);
  if (ec || !v.is_number()) return false;
  out += pending_;
  value_done();
  return true;
}

// Writes the decoded string bytes read so far, up to the last whole code point, escaped
// by the serializer itself (it escapes code point by code point, so pieces concatenate).
void json_stream::flush_string(std::string& out) {
  const std::size_t whole = chunk_.size() - static_cast<std::size_t>(utf8_have_);
  if (whole == 0) return;
  const std::string quoted = boost::json::serialize(boost::json::string_view(chunk_.data(), whole));
  out.append(quoted, 1, quoted.size() - 2);
  chunk_.erase(0, whole);
}

}  // namespace pagedserve::net::detail
