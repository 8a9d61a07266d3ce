#pragma once
// token_counts: which tokens one sequence has seen, for the penalties
// (runtime/sampling/logits_processing.h): per token, how often it was generated and whether
// the prompt holds it. Sparse (a sequence sees a few thousand of a vocabulary's ~150k ids);
// kept up to date as tokens are generated, rebuilt when a sequence is (re)loaded.
//
// The packed form is the device's too (kernels/ops.h process_logits_params::counts):
// packed = (times generated << 1) | (in the prompt ? 1 : 0); 0 means never seen.

#include <cstdint>
#include <span>
#include <unordered_map>

#include "common/types.h"

namespace pagedserve {

[[nodiscard]] constexpr std::uint32_t times_generated(std::uint32_t packed) { return packed >> 1; }
[[nodiscard]] constexpr bool in_prompt(std::uint32_t packed) { return (packed & 1U) != 0; }

class token_counts {
 public:
  // Forgets everything, then counts `prompt` and `generated`.
  void reset(std::span<const token_id> prompt, std::span<const token_id> generated);
  void add_generated(token_id token) { packed_[token] += 2U; }

  // token -> packed count, for every token seen (never a 0 entry).
  [[nodiscard]] const std::unordered_map<token_id, std::uint32_t>& packed() const {
    return packed_;
  }
  [[nodiscard]] std::uint32_t packed(token_id token) const;

 private:
  std::unordered_map<token_id, std::uint32_t> packed_;
};

}  // namespace pagedserve
