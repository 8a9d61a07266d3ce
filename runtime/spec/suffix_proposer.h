#pragma once
// suffix_proposer: suffix decoding (vLLM's "suffix" method, after Oliaro et al.,
// "SuffixDecoding", 2024): proposals from the outputs of earlier requests as well as from the
// sequence itself. Agents, tool calls and templated answers repeat across requests; prompt
// lookup alone (ngram_proposer.h) sees only one request.
//
// Store: the outputs of the last max_cached_requests finished sequences (each cut to its last
// k_max_cached_tokens_per_output tokens), in one token buffer with a separator between them,
// and an index from each token to its most recent positions. Bounded: the oldest output goes
// when one more would pass the request count; stale index entries are dropped when the
// buffer is rebuilt, which happens each time as many outputs as it holds have been evicted.
//
// Proposal: among the stored positions holding the sequence's last token (the most recent
// k_max_candidates), those whose preceding tokens match the sequence's longest (up to
// max_depth tokens) are the matches; the proposal then grows one token at a time with the
// token most of the remaining matches continue with, while that token's share of them is at
// least min_token_prob (a frequency-weighted walk down the suffix tree of the matches). The
// sequence's own tokens are searched the same way (prompt lookup); the source whose match is
// longer wins, the sequence itself on a tie.

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

#include "runtime/spec/proposer.h"

namespace pagedserve::spec {

struct suffix_options {
  std::uint32_t max_depth = 24;              // suffix_decoding_max_tree_depth
  std::uint32_t max_cached_requests = 1000;  // suffix_decoding_max_cached_requests
  float min_token_prob = 0.1f;               // suffix_decoding_min_token_prob
};

inline constexpr std::size_t k_max_cached_tokens_per_output = 1024;
inline constexpr std::size_t k_max_candidates = 256;

class suffix_proposer final : public proposer {
 public:
  explicit suffix_proposer(suffix_options options) : options_(options) {}

  void propose(std::span<const token_id> tokens, std::uint32_t max_tokens,
               std::vector<token_id>& out) override;
  void add_finished(std::span<const token_id> output) override;

  [[nodiscard]] std::size_t num_cached_outputs() const { return lengths_.size(); }
  [[nodiscard]] std::size_t num_cached_tokens() const { return buffer_.size(); }

 private:
  struct match {
    std::uint32_t length = 0;           // tokens matched before the continuation
    std::vector<std::uint64_t> starts;  // absolute positions of the continuations
  };
  // The longest matches of the end of `context` among `positions` (absolute positions in
  // `text` holding its last token), continuations starting after them.
  template <class Text>
  [[nodiscard]] match longest_matches(const Text& text, std::uint64_t base,
                                      std::span<const std::uint64_t> positions,
                                      std::span<const token_id> context) const;
  template <class Text>
  void walk(const Text& text, std::uint64_t base, std::uint64_t end, match& m,
            std::uint32_t max_tokens, std::vector<token_id>& out) const;
  void evict_oldest();
  void rebuild_index();

  suffix_options options_;
  std::deque<token_id> buffer_;        // outputs, each followed by k_separator
  std::uint64_t base_ = 0;             // absolute position of buffer_.front()
  std::deque<std::uint32_t> lengths_;  // each cached output's length with its separator
  std::unordered_map<token_id, std::vector<std::uint64_t>> index_;  // oldest first
  std::uint64_t evicted_since_rebuild_ = 0;
};

}  // namespace pagedserve::spec
