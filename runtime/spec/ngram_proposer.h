#pragma once
// ngram_proposer: prompt lookup (vLLM's "ngram" method, after Saxena's prompt lookup
// decoding). The last n tokens of the sequence, for n from prompt_lookup_max down to
// prompt_lookup_min, are looked for earlier in the same sequence (prompt and output); at the
// first n that occurs, the tokens that followed its most recent earlier occurrence are
// proposed. Answers that copy from their prompts (summaries, edits, code changes) and text
// that repeats itself accept most of them.
//
// Cost: O(length * n) per call in the worst case, a scan from the end that stops at the
// first match; it runs only for sequences given lookahead slots, which a step under load
// does not give (speculation_depth.h).

#include "runtime/spec/proposer.h"

namespace pagedserve::spec {

class ngram_proposer final : public proposer {
 public:
  ngram_proposer(std::uint32_t min_n, std::uint32_t max_n) : min_n_(min_n), max_n_(max_n) {}

  void propose(std::span<const token_id> tokens, std::uint32_t max_tokens,
               std::vector<token_id>& out) override;

 private:
  std::uint32_t min_n_;
  std::uint32_t max_n_;
};

}  // namespace pagedserve::spec
