#pragma once
// byte_set: a set of byte values, the terminal of the byte-level grammar (a literal byte is a
// set of one; a UTF-8 range such as [80-BF] a set of many).

#include <array>
#include <cstdint>

namespace pagedserve::grammar {

struct byte_set {
  std::array<std::uint64_t, 4> words{};

  [[nodiscard]] bool test(std::uint8_t b) const { return ((words[b >> 6] >> (b & 63)) & 1) != 0; }
  void set(std::uint8_t b) { words[b >> 6] |= std::uint64_t{1} << (b & 63); }
  void set_range(std::uint8_t lo, std::uint8_t hi) {
    for (unsigned b = lo; b <= hi; ++b) set(static_cast<std::uint8_t>(b));
  }
  [[nodiscard]] bool empty() const { return (words[0] | words[1] | words[2] | words[3]) == 0; }
  byte_set& operator|=(const byte_set& other) {
    for (int i = 0; i < 4; ++i) words[i] |= other.words[i];
    return *this;
  }
  friend bool operator==(const byte_set&, const byte_set&) = default;
  friend auto operator<=>(const byte_set&, const byte_set&) = default;
};

}  // namespace pagedserve::grammar
