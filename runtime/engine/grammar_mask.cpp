// live_sequence's grammar (structured outputs): the matcher follows the generated tokens and
// gives each step its token bitmask (model_step_executor.h).

#include <algorithm>
#include <cstdint>
#include <vector>

#include "runtime/engine/model_step_executor.h"

namespace pagedserve::detail {

namespace {

void allow_only(std::vector<std::uint32_t>& mask, const std::vector<token_id>& tokens) {
  std::fill(mask.begin(), mask.end(), 0U);
  for (const token_id t : tokens) {
    mask[static_cast<std::size_t>(t) / 32] |= 1U << (static_cast<std::uint32_t>(t) % 32);
  }
}

}  // namespace

// Every generated token is known here: the host sampled it, or the device path resolved
// the pending one first (waits_for_samples).
void live_sequence::fill_grammar_mask(std::vector<std::uint32_t>& mask) {
  const grammar::token_vocabulary& vocabulary = matcher->vocabulary();
  mask.assign(vocabulary.bitmask_words(), 0U);
  const std::span<const token_id> sampled = generated();
  bool refused = false;
  while (grammar_accepted < sampled.size() && !refused) {
    refused = !matcher->accept_token(sampled[grammar_accepted]);
    if (!refused) ++grammar_accepted;
  }
  if (!refused) matcher->fill_next_token_bitmask(mask);
  const bool none = std::all_of(mask.begin(), mask.end(), [](std::uint32_t w) { return w == 0; });
  if (refused || none) allow_only(mask, vocabulary.stop_token_ids());
}

}  // namespace pagedserve::detail
