#include "runtime/sampling/token_counts.h"

namespace pagedserve {

void token_counts::reset(std::span<const token_id> prompt, std::span<const token_id> generated) {
  packed_.clear();
  for (const token_id t : prompt) packed_[t] |= 1U;
  for (const token_id t : generated) add_generated(t);
}

std::uint32_t token_counts::packed(token_id token) const {
  const auto it = packed_.find(token);
  return it == packed_.end() ? 0U : it->second;
}

}  // namespace pagedserve
