#pragma once
// The GPT-2 byte-level alphabet: every byte maps to one printable code point (printable
// Latin-1 bytes to themselves, the rest to U+0100 + n in byte order), so any byte string
// becomes a string of visible characters and back.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pagedserve::byte_level {

// The UTF-8 encoding of the code point that stands for byte b.
[[nodiscard]] std::string_view char_of_byte(unsigned char b);

// The byte that code point cp stands for, if cp is in the alphabet.
[[nodiscard]] std::optional<unsigned char> byte_of_char(char32_t cp);

// Appends the alphabet form of bytes to out.
void encode(std::string_view bytes, std::string& out);

// The bytes behind token if every character of it is in the alphabet.
[[nodiscard]] bool decode_token(std::string_view token, std::string& out);

// The GPT-2 pre-tokenization regex that ByteLevel uses when use_regex is set.
inline constexpr std::string_view gpt2_pattern =
    R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

}  // namespace pagedserve::byte_level
