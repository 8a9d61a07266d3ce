#pragma once
// train_bpe: byte-level BPE training as in GPT-2 and Llama 3. Every word starts as its bytes
// (token ids 0-255 are the bytes 0x00-0xFF); then, until there are num_tokens tokens, the most
// frequent adjacent pair of tokens, counted over all words with their counts, becomes a new
// token (ties: pair_queue.h) and replaces each of its occurrences, left to right. A merge
// whose bytes some token already spells ("a" + "bc" after "ab" + "c") yields that token
// again, as in HF's BpeTrainer: every token has distinct bytes, so the vocabulary's strings
// are unique.
//
// Incremental: each merge touches only the words that hold the pair (an index from pair to
// words), updating the pair counts by what those words lose and gain.

#include <cstddef>
#include <string>
#include <vector>

#include "train/tokenizer/symbol_pair.h"
#include "train/tokenizer/word_counts.h"

namespace pagedserve::train {

inline constexpr std::size_t num_byte_tokens = 256;

struct bpe_merge {
  symbol_pair pair;
  token_id merged = 0;  // the token whose bytes are those of pair.left then pair.right
};

struct bpe_vocabulary {
  // The bytes each token stands for: tokens[b] is the single byte b for b < 256; the others
  // in the order their first merge made them.
  std::vector<std::string> tokens;
  std::vector<bpe_merge> merges;  // in the order learned: the rank of merges[r] is r
};

// words: byte-level strings (word_counts.h) with their counts. Stops early, with fewer
// tokens, when no adjacent pair is left. Aborts when a word is not in the byte-level
// alphabet (word_counter never makes one).
[[nodiscard]] bpe_vocabulary train_bpe(const word_count_map& words, std::size_t num_tokens);

}  // namespace pagedserve::train
