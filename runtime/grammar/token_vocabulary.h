#pragma once
// token_vocabulary: what the grammar engine knows of a tokenizer. For each token id, the
// bytes it adds to the text when it follows other tokens (runtime/tokenizer/token_bytes.h
// derives them from a tokenizer); and the stop tokens (EOS and the model's other end ids),
// which a grammar allows only where its text is complete. A token with no bytes that is not
// a stop token (a special token) is never allowed. Built once per served model, immutable,
// shared between threads; compiled grammars keep a pointer to it.

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/types.h"
#include "runtime/grammar/vocabulary_trie.h"

namespace pagedserve::grammar {

class token_vocabulary {
 public:
  // token_bytes.size() is the vocabulary size (the logits' width); stop ids are within it.
  [[nodiscard]] static std::shared_ptr<const token_vocabulary> create(
      std::vector<std::string> token_bytes, std::vector<token_id> stop_token_ids);

  [[nodiscard]] std::size_t size() const { return token_bytes_.size(); }
  [[nodiscard]] const std::string& bytes(token_id id) const { return token_bytes_[id]; }
  [[nodiscard]] const std::vector<token_id>& stop_token_ids() const { return stop_token_ids_; }
  [[nodiscard]] bool is_stop(token_id id) const;
  // Number of 32-bit words of a token bitmask over this vocabulary.
  [[nodiscard]] std::size_t bitmask_words() const { return (size() + 31) / 32; }

  // Ids of the tokens with bytes, sorted by their bytes (the order a trie walk visits them;
  // a token's index here is its "sorted index"), and their trie (vocabulary_trie.h).
  [[nodiscard]] const std::vector<token_id>& sorted_ids() const { return sorted_ids_; }
  [[nodiscard]] const std::vector<trie_node>& trie() const { return trie_; }
  // trie_bytes_below of the trie: 32 bytes a node (about 9 MB at 128k tokens).
  [[nodiscard]] const std::vector<byte_set>& trie_bytes() const { return trie_bytes_; }
  // The trie node of the one-byte prefix b, 0 when no token starts with b.
  [[nodiscard]] std::uint32_t root_child(std::uint8_t b) const { return root_children_[b]; }
  // The longest token's bytes (the trie's depth).
  [[nodiscard]] std::size_t max_token_bytes() const { return max_token_bytes_; }

 private:
  token_vocabulary() = default;

  std::vector<std::string> token_bytes_;
  std::vector<token_id> stop_token_ids_;  // ascending, unique
  std::vector<token_id> sorted_ids_;
  std::vector<trie_node> trie_;
  std::vector<byte_set> trie_bytes_;
  std::array<std::uint32_t, 256> root_children_{};
  std::size_t max_token_bytes_ = 0;
};

}  // namespace pagedserve::grammar
