#include "runtime/grammar/utf8_sequences.h"

#include <algorithm>
#include <map>
#include <utility>

namespace pagedserve::grammar {
namespace {

struct byte_range {
  std::uint8_t lo;
  std::uint8_t hi;
  friend auto operator<=>(const byte_range&, const byte_range&) = default;
};

// Encodes lo and hi (same encoded length) and pairs their bytes into ranges. Valid only when
// the split below has made every continuation position span its full sub-range.
std::vector<byte_range> encode_pair(char32_t lo, char32_t hi) {
  std::vector<std::uint8_t> a;
  std::vector<std::uint8_t> b;
  append_utf8(a, lo);
  append_utf8(b, hi);
  std::vector<byte_range> out(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) out[i] = {a[i], b[i]};
  return out;
}

// Splits [lo, hi] until each piece is one encoded length, has no surrogates, and is a
// product of byte ranges (RE2's rule: split where a lower 6-bit group does not span fully).
void split_range(char32_t lo, char32_t hi, std::vector<std::vector<byte_range>>& out) {
  std::vector<std::pair<char32_t, char32_t>> work{{lo, hi}};
  while (!work.empty()) {
    auto [l, h] = work.back();
    work.pop_back();
    if (l > h) continue;
    if (l <= 0xDFFF && h >= 0xD800) {
      if (l < 0xD800) work.emplace_back(l, 0xD7FF);
      if (h > 0xDFFF) work.emplace_back(0xE000, h);
      continue;
    }
    bool split = false;
    for (const char32_t boundary : {char32_t{0x7F}, char32_t{0x7FF}, char32_t{0xFFFF}}) {
      if (l <= boundary && boundary < h) {
        work.emplace_back(l, boundary);
        work.emplace_back(boundary + 1, h);
        split = true;
        break;
      }
    }
    if (split) continue;
    if (h > 0x7F) {
      for (int i = 1; i < 4 && !split; ++i) {
        const char32_t m = (char32_t{1} << (6 * i)) - 1;
        if ((l & ~m) == (h & ~m)) continue;
        if ((l & m) != 0) {
          work.emplace_back(l, l | m);
          work.emplace_back((l | m) + 1, h);
          split = true;
        } else if ((h & m) != m) {
          work.emplace_back(l, (h & ~m) - 1);
          work.emplace_back(h & ~m, h);
          split = true;
        }
      }
      if (split) continue;
    }
    out.push_back(encode_pair(l, h));
  }
}

}  // namespace

void append_utf8(std::vector<std::uint8_t>& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<std::uint8_t>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<std::uint8_t>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<std::uint8_t>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<std::uint8_t>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<std::uint8_t>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<std::uint8_t>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<std::uint8_t>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<std::uint8_t>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<std::uint8_t>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<std::uint8_t>(0x80 | (cp & 0x3F)));
  }
}

std::vector<code_point_range> normalize_ranges(std::vector<code_point_range> ranges) {
  std::sort(ranges.begin(), ranges.end(), [](const auto& a, const auto& b) { return a.lo < b.lo; });
  std::vector<code_point_range> out;
  for (const auto& r : ranges) {
    if (!out.empty() && r.lo <= out.back().hi + 1) {
      out.back().hi = std::max(out.back().hi, r.hi);
    } else {
      out.push_back(r);
    }
  }
  return out;
}

std::vector<code_point_range> complement_ranges(std::span<const code_point_range> ranges) {
  std::vector<code_point_range> out;
  char32_t next = 0;
  for (const auto& r : ranges) {
    if (r.lo > next) out.push_back({next, r.lo - 1});
    next = r.hi + 1;
  }
  if (next <= max_code_point) out.push_back({next, max_code_point});
  return out;
}

std::vector<utf8_sequence> utf8_sequences(std::span<const code_point_range> ranges) {
  std::vector<std::vector<byte_range>> pieces;
  for (const auto& r : ranges) split_range(r.lo, std::min(r.hi, max_code_point), pieces);
  // Merge pieces with equal continuation ranges: their first bytes become one set.
  std::map<std::vector<byte_range>, byte_set> by_tail;
  for (const auto& piece : pieces) {
    std::vector<byte_range> tail(piece.begin() + 1, piece.end());
    by_tail[tail].set_range(piece[0].lo, piece[0].hi);
  }
  std::vector<utf8_sequence> out;
  for (const auto& [tail, first] : by_tail) {
    utf8_sequence seq;
    seq.bytes.push_back(first);
    for (const auto& r : tail) {
      byte_set s;
      s.set_range(r.lo, r.hi);
      seq.bytes.push_back(s);
    }
    out.push_back(std::move(seq));
  }
  return out;
}

}  // namespace pagedserve::grammar
