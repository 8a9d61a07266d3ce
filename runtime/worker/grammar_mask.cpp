// live_sequence's grammar (structured outputs): the matcher follows the generated tokens and
// gives each step its token bitmask (model_step_executor.h).

#include <algorithm>
#include <cstdint>
#include <vector>

#include "runtime/worker/model_step_executor.h"

namespace pagedserve::detail {

namespace {

std::uint32_t bit_of(token_id t) { return 1U << (static_cast<std::uint32_t>(t) % 32); }

void allow_only(std::vector<std::uint32_t>& mask, const std::vector<token_id>& tokens) {
  std::fill(mask.begin(), mask.end(), 0U);
  for (const token_id t : tokens) mask[static_cast<std::size_t>(t) / 32] |= bit_of(t);
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

bool live_sequence::yield_to_grammar(std::span<const std::uint32_t> mask,
                                     std::vector<logit_edit>& edits,
                                     std::span<const token_id>& allowed) {
  thread_local std::vector<std::uint32_t> left;
  left.assign(mask.begin(), mask.end());
  for (const logit_edit& e : edits) {
    if (e.bias == k_ban_bias) left[static_cast<std::size_t>(e.token) / 32] &= ~bit_of(e.token);
  }
  const auto leaves = [&](token_id t) {
    return (left[static_cast<std::size_t>(t) / 32] & bit_of(t)) != 0;
  };
  const bool any = allowed.empty()
                       ? std::any_of(left.begin(), left.end(), [](std::uint32_t w) { return w; })
                       : std::any_of(allowed.begin(), allowed.end(), leaves);
  if (any) return false;
  std::erase_if(edits, [](const logit_edit& e) { return e.bias == k_ban_bias; });
  allowed = {};
  return true;
}

}  // namespace pagedserve::detail
