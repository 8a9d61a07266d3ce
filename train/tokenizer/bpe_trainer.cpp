#include "train/tokenizer/bpe_trainer.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "runtime/tokenizer/byte_level.h"
#include "train/tokenizer/pair_queue.h"

namespace pagedserve::train {

namespace {

struct word {
  std::vector<token_id> symbols;
  std::int64_t count = 0;
};

using pair_deltas = boost::unordered_flat_map<std::uint64_t, std::int64_t>;

// The words as byte ids, in a fixed order (sorted by text) so that the run is the same
// whatever the hash map's order.
std::vector<word> words_of(const word_count_map& counts) {
  std::vector<std::pair<std::string, std::uint64_t>> sorted(counts.begin(), counts.end());
  std::sort(sorted.begin(), sorted.end());
  std::vector<word> words;
  words.reserve(sorted.size());
  std::string bytes;
  for (const auto& [text, count] : sorted) {
    bytes.clear();
    if (!byte_level::decode_token(text, bytes)) {
      std::fprintf(stderr, "train_bpe: word '%s' is not in the byte-level alphabet\n",
                   text.c_str());
      std::abort();
    }
    word w{{}, static_cast<std::int64_t>(count)};
    for (const char c : bytes) w.symbols.push_back(static_cast<unsigned char>(c));
    words.push_back(std::move(w));
  }
  return words;
}

void add_pairs(const word& w, std::int64_t sign, pair_deltas& deltas) {
  for (std::size_t i = 0; i + 1 < w.symbols.size(); ++i) {
    deltas[symbol_pair{w.symbols[i], w.symbols[i + 1]}.key()] += sign * w.count;
  }
}

bool contains(const word& w, symbol_pair pair) {
  for (std::size_t i = 0; i + 1 < w.symbols.size(); ++i) {
    if (w.symbols[i] == pair.left && w.symbols[i + 1] == pair.right) return true;
  }
  return false;
}

// Replaces each occurrence of pair, left to right and without overlap ("a a a" -> "aa a").
void merge_in(word& w, symbol_pair pair, token_id merged) {
  std::size_t out = 0;
  for (std::size_t i = 0; i < w.symbols.size(); ++out) {
    if (i + 1 < w.symbols.size() && w.symbols[i] == pair.left && w.symbols[i + 1] == pair.right) {
      w.symbols[out] = merged;
      i += 2;
    } else {
      w.symbols[out] = w.symbols[i];
      i += 1;
    }
  }
  w.symbols.resize(out);
}

class bpe_training {
 public:
  explicit bpe_training(std::vector<word> words) : words_(std::move(words)) {
    pair_deltas initial;
    for (std::size_t w = 0; w < words_.size(); ++w) {
      add_pairs(words_[w], +1, initial);
      index_new_pairs(w, [](symbol_pair) { return true; });
    }
    for (const auto& [key, count] : initial) queue_.add(symbol_pair::of_key(key), count);
  }

  // The pair to merge next, if any is left.
  [[nodiscard]] std::optional<symbol_pair> best_pair() {
    const auto best = queue_.best();
    if (!best) return std::nullopt;
    return best->first;
  }

  // Replaces pair by token `merged` in every word.
  void merge(symbol_pair pair, token_id merged) {
    deltas_.clear();
    const auto holders = index_.find(pair.key());
    if (holders == index_.end()) {
      std::fprintf(stderr, "train_bpe: pair (%d, %d) has a count but no words\n", pair.left,
                   pair.right);
      std::abort();
    }
    std::vector<std::uint32_t> words = std::move(holders->second);
    index_.erase(holders);
    for (const std::uint32_t w : words) {
      if (!contains(words_[w], pair)) continue;  // merged away by an earlier merge
      add_pairs(words_[w], -1, deltas_);
      merge_in(words_[w], pair, merged);
      add_pairs(words_[w], +1, deltas_);
      index_new_pairs(w, [merged](symbol_pair p) { return p.left == merged || p.right == merged; });
    }
    for (const auto& [key, delta] : deltas_) queue_.add(symbol_pair::of_key(key), delta);
    if (queue_.count(pair) != 0) {
      std::fprintf(stderr, "train_bpe: pair (%d, %d) left after merging it everywhere\n", pair.left,
                   pair.right);
      std::abort();
    }
  }

 private:
  // Records word w under each of its pairs that `is_new` accepts: the pairs that a merge
  // creates hold the merged token. The same pair twice in a word comes back to back in one
  // call and is recorded once; a word listed twice under a pair (a merge that yields a token
  // the word already had) is harmless, as merge skips words without the pair.
  template <class Predicate>
  void index_new_pairs(std::size_t w, Predicate is_new) {
    const auto& symbols = words_[w].symbols;
    for (std::size_t i = 0; i + 1 < symbols.size(); ++i) {
      const symbol_pair p{symbols[i], symbols[i + 1]};
      if (!is_new(p)) continue;
      auto& holders = index_[p.key()];
      if (holders.empty() || holders.back() != w) holders.push_back(static_cast<std::uint32_t>(w));
    }
  }

  std::vector<word> words_;
  boost::unordered_flat_map<std::uint64_t, std::vector<std::uint32_t>> index_;
  pair_queue queue_;
  pair_deltas deltas_;
};

}  // namespace

bpe_vocabulary train_bpe(const word_count_map& words, std::size_t num_tokens) {
  bpe_vocabulary vocab;
  boost::unordered_flat_map<std::string, token_id> id_of;
  for (std::size_t b = 0; b < num_byte_tokens; ++b) {
    vocab.tokens.emplace_back(1, static_cast<char>(b));
    id_of.emplace(vocab.tokens.back(), static_cast<token_id>(b));
  }
  bpe_training training(words_of(words));
  while (vocab.tokens.size() < num_tokens) {
    const auto best = training.best_pair();
    if (!best) break;
    std::string bytes = vocab.tokens[static_cast<std::size_t>(best->left)] +
                        vocab.tokens[static_cast<std::size_t>(best->right)];
    const auto [it, is_new] = id_of.emplace(bytes, static_cast<token_id>(vocab.tokens.size()));
    if (is_new) vocab.tokens.push_back(std::move(bytes));
    training.merge(*best, it->second);
    vocab.merges.push_back({*best, it->second});
  }
  return vocab;
}

}  // namespace pagedserve::train
