#pragma once
// added_vocabulary: the "added_tokens" of tokenizer.json. Before normalization the input is
// cut at every occurrence of a non-normalized added token (leftmost match first, the longest
// one at that position, as HF's Aho-Corasick LeftmostLongest); the text between them is then
// normalized and cut again at the normalized added tokens.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/fwd.hpp>
#include <boost/unordered/unordered_flat_map.hpp>

#include "common/result.h"
#include "common/types.h"

namespace pagedserve {

class normalizer;

struct added_token {
  std::string content;
  token_id id = 0;
  bool special = false;
  bool lstrip = false;
  bool rstrip = false;
  bool single_word = false;
  bool normalized = false;
};

// A stretch of text: an added token (id set) or plain text to tokenize.
struct text_segment {
  std::size_t begin = 0;
  std::size_t end = 0;
  std::optional<token_id> id;
};

class added_vocabulary {
 public:
  // Every id must lie in [0, id_limit) (tokenizer_load: bounded by the file's entries).
  [[nodiscard]] static result<added_vocabulary> parse(const boost::json::array& tokens,
                                                      const normalizer* norm,
                                                      std::int64_t id_limit);

  // Cuts text at the added tokens of one kind (normalized == false: matched on raw text).
  void split(std::string_view text, bool normalized, std::vector<text_segment>& out) const;

  [[nodiscard]] const std::vector<added_token>& tokens() const { return tokens_; }
  [[nodiscard]] const added_token* find(token_id id) const;
  [[nodiscard]] std::optional<token_id> token_to_id(std::string_view content) const;
  [[nodiscard]] bool has_normalized() const { return !matchers_[1].empty(); }

 private:
  // A byte trie of the patterns: the deepest terminal reached from a position is the longest
  // match there, found in time proportional to its length (not to the number of patterns).
  struct trie_node {
    std::vector<std::pair<unsigned char, std::uint32_t>> children;
    std::optional<std::size_t> token;  // index in tokens_ of the pattern ending here
  };
  struct matcher {
    std::vector<trie_node> nodes{trie_node{}};  // nodes[0] is the root
    std::array<bool, 256> starts{};             // bytes that begin some pattern
    [[nodiscard]] bool empty() const { return nodes.size() == 1; }
  };
  static void add_pattern(matcher& m, std::string_view text, std::size_t index);
  // (end of the longest match starting at pos, token index), if any.
  [[nodiscard]] static std::optional<std::pair<std::size_t, std::size_t>> match_at(
      const matcher& m, std::string_view text, std::size_t pos);

  std::vector<added_token> tokens_;
  boost::unordered_flat_map<token_id, std::size_t> by_id_;
  std::array<matcher, 2> matchers_;  // [0]: raw text, [1]: normalized text
};

}  // namespace pagedserve
