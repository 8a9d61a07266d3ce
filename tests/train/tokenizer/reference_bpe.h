#pragma once
// Test-side references, written from the specifications rather than from the code under
// test (quadratic where that is simpler):
//   - gpt2_byte_char: GPT-2's bytes_to_unicode table (openai/gpt-2 encoder.py);
//   - ascii_llama3_pieces: Llama 3's pre-tokenizer regex, evaluated by hand for ASCII text
//     (what PCRE2 makes of each alternative, in order, with its backtracking spelled out);
//   - greedy_bpe: a word's byte ids merged by rank: the lowest-ranked adjacent pair first
//     (the leftmost one on a tie), until no adjacent pair has a rank.

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pagedserve::testing {

[[nodiscard]] std::string gpt2_byte_char(unsigned char b);

[[nodiscard]] std::vector<std::string> ascii_llama3_pieces(std::string_view text);

struct ranked_merges {
  // (left id, right id) -> (rank, merged id)
  std::map<std::pair<int, int>, std::pair<int, int>> by_pair;
  void add(int left, int right, int merged) {
    by_pair.emplace(std::pair{left, right}, std::pair{static_cast<int>(by_pair.size()), merged});
  }
};

// The ids of one pre-token (raw bytes; byte b starts as id b).
[[nodiscard]] std::vector<int> greedy_bpe(std::string_view bytes, const ranked_merges& merges);

// ascii_llama3_pieces then greedy_bpe on each piece.
[[nodiscard]] std::vector<int> reference_encode(std::string_view text, const ranked_merges& merges);

}  // namespace pagedserve::testing
