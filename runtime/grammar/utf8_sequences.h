#pragma once
// Classes of code points as byte automata: the UTF-8 encodings of a set of code points,
// split into sequences of byte ranges the way regex engines compile Unicode classes (RE2,
// Rust's utf8-ranges). Each sequence matches the bytes of a contiguous run of code points
// whose encodings have the same length; surrogates (U+D800..U+DFFF) are never encoded.

#include <cstdint>
#include <span>
#include <vector>

#include "runtime/grammar/byte_set.h"

namespace pagedserve::grammar {

inline constexpr char32_t max_code_point = 0x10FFFF;

struct code_point_range {
  char32_t lo = 0;
  char32_t hi = 0;  // inclusive
};

// A byte string matcher: one byte from each set in order. Sequences that differ only in their
// first byte are merged, so a class has few of them (JSON's [^"\\] has 8).
struct utf8_sequence {
  std::vector<byte_set> bytes;
};

// Sorted, non-overlapping, adjacent runs merged.
[[nodiscard]] std::vector<code_point_range> normalize_ranges(std::vector<code_point_range> ranges);
// The code points of [0, max_code_point] not in `ranges` (normalized).
[[nodiscard]] std::vector<code_point_range> complement_ranges(
    std::span<const code_point_range> ranges);
// The UTF-8 byte sequences of the valid code points in `ranges`.
[[nodiscard]] std::vector<utf8_sequence> utf8_sequences(std::span<const code_point_range> ranges);

// Appends the UTF-8 encoding of cp (a valid scalar value) to out.
void append_utf8(std::vector<std::uint8_t>& out, char32_t cp);

}  // namespace pagedserve::grammar
