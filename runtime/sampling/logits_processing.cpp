#include "runtime/sampling/logits_processing.h"

#include <algorithm>
#include <cassert>
#include <limits>

namespace pagedserve {

std::vector<logit_edit> logit_edits(const sampling_params& params,
                                    std::span<const token_id> held_stop_ids,
                                    std::size_t num_generated, std::span<const token_id> banned) {
  std::vector<logit_edit> edits;
  edits.reserve(params.logit_bias.size() + held_stop_ids.size() + banned.size());
  for (const auto& [token, bias] : params.logit_bias) edits.push_back({token, bias});
  for (const token_id t : banned) edits.push_back({t, k_ban_bias});
  if (num_generated < params.min_tokens) {
    for (const token_id t : held_stop_ids) edits.push_back({t, k_ban_bias});
  }
  // Bans first among equal ids, so the kept edit of a token is its ban when it has one.
  std::sort(edits.begin(), edits.end(), [](const logit_edit& a, const logit_edit& b) {
    return a.token != b.token ? a.token < b.token : a.bias < b.bias;
  });
  edits.erase(
      std::unique(edits.begin(), edits.end(),
                  [](const logit_edit& a, const logit_edit& b) { return a.token == b.token; }),
      edits.end());
  return edits;
}

void apply_token_bitmask(std::span<float> logits, std::span<const std::uint32_t> bitmask) {
  for (std::size_t t = 0; t < logits.size(); ++t) {
    if (((bitmask[t / 32] >> (t % 32)) & 1U) == 0U)
      logits[t] = -std::numeric_limits<float>::infinity();
  }
}

void apply_allowed_token_ids(std::span<float> logits, std::span<const token_id> allowed) {
  std::size_t next = 0;  // the first allowed id not below i
  for (std::size_t i = 0; i < logits.size(); ++i) {
    while (next < allowed.size() && static_cast<std::size_t>(allowed[next]) < i) ++next;
    if (next == allowed.size() || static_cast<std::size_t>(allowed[next]) != i) {
      logits[i] = k_ban_bias;
    }
  }
}

void process_logits(std::span<float> logits, const sampling_params& params,
                    std::span<const logit_edit> edits, const token_counts* counts) {
  if (!params.allowed_token_ids.empty()) apply_allowed_token_ids(logits, params.allowed_token_ids);
  for (const logit_edit& e : edits) {
    assert(e.token >= 0 && static_cast<std::size_t>(e.token) < logits.size());
    float& logit = logits[static_cast<std::size_t>(e.token)];
    logit = edited_logit(logit, e.bias);
  }
  if (!params.has_penalties()) return;
  assert(counts != nullptr);
  for (const auto& [token, packed] : counts->packed()) {
    if (token < 0 || static_cast<std::size_t>(token) >= logits.size()) continue;
    float& logit = logits[static_cast<std::size_t>(token)];
    logit = penalized_logit(logit, packed, params.presence_penalty, params.frequency_penalty,
                            params.repetition_penalty);
  }
}

}  // namespace pagedserve
