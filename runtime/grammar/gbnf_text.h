#pragma once
// Pieces of GBNF text (compiled_grammar.h's dialect) shared by the translators of
// schema_grammar.h: literals, classes of code points, and UTF-8 decoding of their inputs.
// Internal to runtime/grammar.

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pagedserve::grammar {

inline constexpr char32_t max_code_point = 0x10FFFF;

// The parts joined. (Spelled out rather than with operator+ chains, which set off GCC 12's
// false -Wrestrict alarms when a short literal comes first.)
[[nodiscard]] inline std::string concat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (auto part : parts) out.append(part);
  return out;
}

// A GBNF literal matching exactly the bytes of `text` (UTF-8 is kept as is; quotes,
// backslashes and control bytes are escaped).
[[nodiscard]] std::string gbnf_literal(std::string_view text);

// The UTF-8 encoding of a code point.
[[nodiscard]] std::string utf8_encode(char32_t cp);
// Decodes the code point starting at text[pos] and advances pos past it; nullopt when the
// bytes there are not UTF-8 (pos is then unchanged).
[[nodiscard]] std::optional<char32_t> utf8_decode(std::string_view text, std::size_t& pos);

// A set of code points as sorted, disjoint, non-adjacent inclusive ranges.
class code_point_set {
 public:
  code_point_set() = default;
  static code_point_set of(char32_t lo, char32_t hi);
  static code_point_set all() { return of(0, max_code_point); }

  void add(char32_t lo, char32_t hi);
  void add(const code_point_set& other);
  [[nodiscard]] code_point_set complement() const;
  [[nodiscard]] code_point_set intersect(const code_point_set& other) const;
  [[nodiscard]] bool contains(char32_t cp) const;
  [[nodiscard]] bool empty() const { return ranges_.empty(); }
  [[nodiscard]] const std::vector<std::pair<char32_t, char32_t>>& ranges() const { return ranges_; }

  // The GBNF class `[...]` (or `[^...]` when that is shorter). Requires !empty().
  [[nodiscard]] std::string to_gbnf() const;

 private:
  void normalize();

  std::vector<std::pair<char32_t, char32_t>> ranges_;
};

// A code point as it is written inside a JSON string: itself, or its escape (\" \\ \n \t
// \r \b \f, \u00XX for the other control characters).
[[nodiscard]] std::string json_escaped(char32_t cp);
// A GBNF element matching any code point of `set` written inside a JSON string. Requires
// !set.empty().
[[nodiscard]] std::string json_string_set_gbnf(const code_point_set& set);

}  // namespace pagedserve::grammar
