#pragma once
// UTF-8 helpers for the tokenizer: validation with replacement (as Rust's
// String::from_utf8_lossy: each maximal invalid subpart becomes one U+FFFD), code point
// iteration over text already known to be valid, and encoding.

#include <cstddef>
#include <string>
#include <string_view>

namespace pagedserve::utf8 {

inline constexpr std::string_view replacement_char = "\xEF\xBF\xBD";  // U+FFFD

// Length of the valid sequence starting at text[pos], or 0 when the bytes there do not start
// a complete, well-formed sequence.
[[nodiscard]] std::size_t valid_sequence_length(std::string_view text, std::size_t pos);

[[nodiscard]] bool is_valid(std::string_view text);

// text with every maximal invalid subpart replaced by U+FFFD (the Unicode "best practice"
// that Rust's from_utf8_lossy follows).
[[nodiscard]] std::string sanitize(std::string_view text);

// Length of the sequence whose lead byte is `lead` in text that is known to be valid.
[[nodiscard]] inline std::size_t char_length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if (lead < 0xE0) return 2;
  if (lead < 0xF0) return 3;
  return 4;
}

// Decodes the code point at text[pos] (valid text) and advances pos past it.
[[nodiscard]] char32_t next_code_point(std::string_view text, std::size_t& pos);

void append(std::string& out, char32_t cp);

}  // namespace pagedserve::utf8
