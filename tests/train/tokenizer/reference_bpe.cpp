#include "tests/train/tokenizer/reference_bpe.h"

#include <cctype>
#include <climits>

namespace pagedserve::testing {

std::string gpt2_byte_char(unsigned char b) {
  // bytes_to_unicode: printable bytes ('!'..'~', '¡'..'¬', '®'..'ÿ') stand for themselves;
  // the others, in byte order, for 256, 257, ...
  auto printable = [](int c) {
    return (c >= 33 && c <= 126) || (c >= 161 && c <= 172) || c >= 174;
  };
  int cp = b;
  if (!printable(b)) {
    cp = 256;
    for (int c = 0; c < b; ++c) {
      if (!printable(c)) ++cp;
    }
  }
  std::string utf8;
  if (cp < 0x80) {
    utf8 += static_cast<char>(cp);
  } else {
    utf8 += static_cast<char>(0xC0 | (cp >> 6));
    utf8 += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return utf8;
}

namespace {

bool is_letter(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
// \s in PCRE2 with UCP, for ASCII: space, \t, \n, \v, \f, \r.
bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
bool is_newline(char c) { return c == '\r' || c == '\n'; }
bool is_other(char c) { return !is_space(c) && !is_letter(c) && !is_digit(c); }

// The length of the match of Llama 3's pattern at text[i] (text[i] exists), trying each
// alternative in order as PCRE2 does.
std::size_t match_at(std::string_view t, std::size_t i) {
  const std::size_t n = t.size();
  auto run = [&](std::size_t from, auto pred) {
    while (from < n && pred(t[from])) ++from;
    return from;
  };
  // (?i:'s|'t|'re|'ve|'m|'ll|'d)
  if (t[i] == '\'') {
    for (const std::string_view c : {"s", "t", "re", "ve", "m", "ll", "d"}) {
      if (i + 1 + c.size() > n) continue;
      bool same = true;
      for (std::size_t k = 0; k < c.size(); ++k) {
        same = same && std::tolower(static_cast<unsigned char>(t[i + 1 + k])) == c[k];
      }
      if (same) return 1 + c.size();
    }
  }
  // [^\r\n\p{L}\p{N}]?\p{L}+ : with the optional character first, then without it.
  if (!is_newline(t[i]) && !is_letter(t[i]) && !is_digit(t[i]) && i + 1 < n &&
      is_letter(t[i + 1])) {
    return run(i + 1, is_letter) - i;
  }
  if (is_letter(t[i])) return run(i, is_letter) - i;
  // \p{N}{1,3}
  if (is_digit(t[i])) return std::min<std::size_t>(run(i, is_digit) - i, 3);
  // ' ?[^\s\p{L}\p{N}]+[\r\n]*'
  const std::size_t after_space = t[i] == ' ' ? i + 1 : i;
  if (after_space < n && is_other(t[after_space])) {
    return run(run(after_space, is_other), is_newline) - i;
  }
  if (is_other(t[i])) return run(run(i, is_other), is_newline) - i;
  const std::size_t spaces_end = run(i, is_space);
  // \s*[\r\n]+ : \s* backs off to the last newline of the whitespace run.
  for (std::size_t k = spaces_end; k > i; --k) {
    if (is_newline(t[k - 1])) return k - i;
  }
  // \s+(?!\S) : the whole run at the end of the text, else all of it but its last character.
  if (spaces_end == n) return n - i;
  if (spaces_end - i >= 2) return spaces_end - 1 - i;
  // \s+
  return spaces_end - i;
}

}  // namespace

std::vector<std::string> ascii_llama3_pieces(std::string_view text) {
  std::vector<std::string> pieces;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t len = match_at(text, i);
    pieces.emplace_back(text.substr(i, len));
    i += len;
  }
  return pieces;
}

std::vector<int> greedy_bpe(std::string_view bytes, const ranked_merges& merges) {
  std::vector<int> ids;
  for (const char c : bytes) ids.push_back(static_cast<unsigned char>(c));
  for (;;) {
    int best_rank = INT_MAX;
    std::size_t best_at = 0;
    int merged = 0;
    for (std::size_t i = 0; i + 1 < ids.size(); ++i) {
      const auto it = merges.by_pair.find({ids[i], ids[i + 1]});
      if (it != merges.by_pair.end() && it->second.first < best_rank) {
        best_rank = it->second.first;
        best_at = i;
        merged = it->second.second;
      }
    }
    if (best_rank == INT_MAX) return ids;
    ids[best_at] = merged;
    ids.erase(ids.begin() + static_cast<std::ptrdiff_t>(best_at) + 1);
  }
}

std::vector<int> reference_encode(std::string_view text, const ranked_merges& merges) {
  std::vector<int> ids;
  for (const std::string& piece : ascii_llama3_pieces(text)) {
    const auto piece_ids = greedy_bpe(piece, merges);
    ids.insert(ids.end(), piece_ids.begin(), piece_ids.end());
  }
  return ids;
}

}  // namespace pagedserve::testing
