#pragma once
// bpe_model: HF's BPE model. Vocabulary strings live in one arena and are looked up through a
// flat hash map of string_views; merges map a pair of ids to (rank, merged id). A word is
// split into characters (or byte-fallback tokens) and merged lowest rank first with a priority
// queue over a linked list of symbols. Recent words are cached.

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/fwd.hpp>
#include <boost/unordered/unordered_flat_map.hpp>

#include "common/result.h"
#include "common/types.h"
#include "runtime/tokenizer/merge_table.h"
#include "runtime/tokenizer/vocab_table.h"

namespace pagedserve {

class bpe_model {
 public:
  // Every vocabulary id must lie in [0, id_limit) (tokenizer_load: bounded by the file's
  // entries), so the id-indexed tables stay the size of the file's vocabulary, however large
  // an id it writes.
  [[nodiscard]] static result<std::unique_ptr<bpe_model>> parse(const boost::json::object& model,
                                                                std::int64_t id_limit);

  // Appends the ids of one pre-token (HF Model::tokenize).
  void tokenize(std::string_view word, std::vector<token_id>& out) const;

  [[nodiscard]] std::optional<token_id> token_to_id(std::string_view token) const;
  // Empty when id is not in the model's vocabulary.
  [[nodiscard]] std::optional<std::string_view> id_to_token(token_id id) const;
  [[nodiscard]] std::size_t vocab_size() const { return vocab_.size(); }

 private:
  [[nodiscard]] status parse_vocab(const boost::json::object& vocab, std::int64_t id_limit);
  [[nodiscard]] status parse_merges(const boost::json::array& merges);
  struct merge_text {
    std::string_view a;
    std::string_view b;
  };
  // Adds merges[first, first + n) (ranks = indices); lookups are prefetched as a batch.
  [[nodiscard]] status add_merges(const std::vector<merge_text>& merges, std::size_t first,
                                  std::size_t n);
  void merge_word(std::string_view word, std::vector<token_id>& out) const;
  // The initial symbols of word: one per character, byte-fallback tokens or unk.
  void initial_symbols(std::string_view word, std::vector<token_id>& ids,
                       std::vector<std::uint32_t>& lens) const;

  std::string arena_;  // every vocabulary string; never reallocated after parse
  vocab_table vocab_;
  std::vector<std::optional<std::string_view>> id_to_token_;
  merge_table merges_;
  std::array<std::optional<token_id>, 256> byte_tokens_{};  // "<0xNN>" when byte_fallback
  bool byte_fallback_ = false;
  bool ignore_merges_ = false;
  bool fuse_unk_ = false;
  std::optional<token_id> unk_;
  std::string continuing_subword_prefix_;
  std::string end_of_word_suffix_;

  // Cache of recent words (shorter than max_cached_word_bytes); cleared when full.
  static constexpr std::size_t max_cached_word_bytes = 256;
  static constexpr std::size_t cache_capacity = 10000;
  mutable std::mutex cache_mutex_;
  struct string_hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  mutable boost::unordered_flat_map<std::string, std::vector<token_id>, string_hash,
                                    std::equal_to<>>
      cache_;
};

}  // namespace pagedserve
