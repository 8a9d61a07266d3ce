#pragma once
// symbol_pair: two adjacent tokens of a word, packed into one 64-bit key (left id in the high
// half) so that comparing keys compares pairs lexicographically: (left, right).

#include <cstdint>

#include "common/types.h"

namespace pagedserve::train {

struct symbol_pair {
  token_id left = 0;
  token_id right = 0;

  [[nodiscard]] std::uint64_t key() const {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(left)) << 32) |
           static_cast<std::uint32_t>(right);
  }
  [[nodiscard]] static symbol_pair of_key(std::uint64_t key) {
    return {static_cast<token_id>(key >> 32), static_cast<token_id>(key & 0xffffffffu)};
  }
  friend bool operator==(const symbol_pair&, const symbol_pair&) = default;
};

}  // namespace pagedserve::train
