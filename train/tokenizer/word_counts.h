#pragma once
// word_counts: how often each distinct pre-token ("word") of the training text occurs, keyed
// by its byte-level form (the GPT-2 alphabet, as the vocabulary will spell it). BPE training
// then works on the distinct words with their counts instead of on the text.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <boost/unordered/unordered_flat_map.hpp>

#include "common/result.h"
#include "runtime/tokenizer/pre_tokenizer.h"

namespace pagedserve::train {

using word_count_map = boost::unordered_flat_map<std::string, std::uint64_t>;

class word_counter {
 public:
  // pre must outlive the counter.
  explicit word_counter(const pre_tokenizer& pre) : pre_(pre) {}

  // Counts the pre-tokens of text (invalid UTF-8 is replaced by U+FFFD first, as the
  // tokenizer does when it encodes).
  void add_text(std::string_view text);

  // Counts a file line by line, each line with its '\n' (so the newline tokens that text
  // joined by newlines needs are learned too).
  [[nodiscard]] status add_file(const std::filesystem::path& path);

  [[nodiscard]] const word_count_map& counts() const { return counts_; }
  [[nodiscard]] std::uint64_t num_words() const { return num_words_; }
  [[nodiscard]] std::uint64_t num_bytes() const { return num_bytes_; }

 private:
  const pre_tokenizer& pre_;
  word_count_map counts_;
  std::vector<pre_token> pieces_;
  std::vector<pre_token> scratch_;
  std::uint64_t num_words_ = 0;
  std::uint64_t num_bytes_ = 0;
};

}  // namespace pagedserve::train
