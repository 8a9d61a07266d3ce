#include "runtime/tokenizer/byte_level.h"

#include "runtime/tokenizer/utf8.h"

namespace pagedserve::byte_level {

namespace {

struct tables {
  std::array<char32_t, 256> cp_of_byte{};
  std::array<std::string, 256> utf8_of_byte;
  std::array<std::int16_t, 512> byte_of_cp{};  // -1 where cp is not in the alphabet

  tables() {
    byte_of_cp.fill(-1);
    char32_t next = 256;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174;
      cp_of_byte[b] = printable ? static_cast<char32_t>(b) : next++;
      utf8::append(utf8_of_byte[b], cp_of_byte[b]);
      byte_of_cp[cp_of_byte[b]] = static_cast<std::int16_t>(b);
    }
  }
};

const tables& the_tables() {
  static const tables t;
  return t;
}

}  // namespace

std::string_view char_of_byte(unsigned char b) { return the_tables().utf8_of_byte[b]; }

std::optional<unsigned char> byte_of_char(char32_t cp) {
  if (cp >= 512) return std::nullopt;
  const std::int16_t b = the_tables().byte_of_cp[cp];
  if (b < 0) return std::nullopt;
  return static_cast<unsigned char>(b);
}

void encode(std::string_view bytes, std::string& out) {
  const tables& t = the_tables();
  for (const char c : bytes) out += t.utf8_of_byte[static_cast<unsigned char>(c)];
}

bool decode_token(std::string_view token, std::string& out) {
  const std::size_t mark = out.size();
  std::size_t pos = 0;
  while (pos < token.size()) {
    const char32_t cp = utf8::next_code_point(token, pos);
    const auto b = byte_of_char(cp);
    if (!b) {
      out.resize(mark);
      return false;
    }
    out += static_cast<char>(*b);
  }
  return true;
}

}  // namespace pagedserve::byte_level
