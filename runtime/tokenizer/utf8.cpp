#include "runtime/tokenizer/utf8.h"

namespace pagedserve::utf8 {

namespace {

bool is_continuation(unsigned char b) { return (b & 0xC0) == 0x80; }

// The allowed range of the second byte depends on the lead (no overlongs, no surrogates,
// nothing above U+10FFFF).
bool second_byte_ok(unsigned char lead, unsigned char b) {
  switch (lead) {
    case 0xE0:
      return b >= 0xA0 && b <= 0xBF;
    case 0xED:
      return b >= 0x80 && b <= 0x9F;
    case 0xF0:
      return b >= 0x90 && b <= 0xBF;
    case 0xF4:
      return b >= 0x80 && b <= 0x8F;
    default:
      return is_continuation(b);
  }
}

std::size_t expected_length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) return 2;
  if (lead >= 0xE0 && lead <= 0xEF) return 3;
  if (lead >= 0xF0 && lead <= 0xF4) return 4;
  return 0;
}

// Number of bytes from pos that form the longest prefix of a well-formed sequence (at least
// 1); equal to the expected length when the sequence is complete.
std::size_t maximal_prefix(std::string_view text, std::size_t pos, std::size_t expected) {
  const auto lead = static_cast<unsigned char>(text[pos]);
  std::size_t n = 1;
  while (n < expected && pos + n < text.size()) {
    const auto b = static_cast<unsigned char>(text[pos + n]);
    const bool ok = n == 1 ? second_byte_ok(lead, b) : is_continuation(b);
    if (!ok) break;
    ++n;
  }
  return n;
}

}  // namespace

std::size_t valid_sequence_length(std::string_view text, std::size_t pos) {
  const std::size_t expected = expected_length(static_cast<unsigned char>(text[pos]));
  if (expected == 0) return 0;
  return maximal_prefix(text, pos, expected) == expected ? expected : 0;
}

bool is_valid(std::string_view text) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (static_cast<unsigned char>(text[pos]) < 0x80) {
      ++pos;
      continue;
    }
    const std::size_t n = valid_sequence_length(text, pos);
    if (n == 0) return false;
    pos += n;
  }
  return true;
}

std::string sanitize(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t pos = 0;
  while (pos < text.size()) {
    const auto lead = static_cast<unsigned char>(text[pos]);
    const std::size_t expected = expected_length(lead);
    if (expected == 0) {
      out += replacement_char;
      ++pos;
      continue;
    }
    const std::size_t n = maximal_prefix(text, pos, expected);
    if (n == expected) {
      out.append(text.substr(pos, n));
    } else {
      out += replacement_char;
    }
    pos += n;
  }
  return out;
}

char32_t next_code_point(std::string_view text, std::size_t& pos) {
  const auto lead = static_cast<unsigned char>(text[pos]);
  const std::size_t n = char_length(lead);
  char32_t cp = n == 1 ? lead : n == 2 ? (lead & 0x1Fu) : n == 3 ? (lead & 0x0Fu) : (lead & 0x07u);
  for (std::size_t i = 1; i < n && pos + i < text.size(); ++i) {
    cp = (cp << 6) | (static_cast<unsigned char>(text[pos + i]) & 0x3Fu);
  }
  pos += n;
  return cp;
}

void append(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

}  // namespace pagedserve::utf8
