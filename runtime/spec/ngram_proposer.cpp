#include "runtime/spec/ngram_proposer.h"

#include <algorithm>

namespace pagedserve::spec {
namespace {

// The start of the most recent occurrence of the last n tokens that begins before them, or
// -1. A match may overlap the suffix itself (a repeating run proposes its continuation).
std::ptrdiff_t last_earlier_match(std::span<const token_id> tokens, std::size_t n) {
  const std::size_t length = tokens.size();
  const std::span<const token_id> suffix = tokens.last(n);
  for (std::size_t start = length - n; start-- > 0;) {
    if (tokens[start + n - 1] != suffix[n - 1]) continue;  // cheap test of the last token
    if (std::equal(suffix.begin(), suffix.end(),
                   tokens.begin() + static_cast<std::ptrdiff_t>(start))) {
      return static_cast<std::ptrdiff_t>(start);
    }
  }
  return -1;
}

}  // namespace

void ngram_proposer::propose(std::span<const token_id> tokens, std::uint32_t max_tokens,
                             std::vector<token_id>& out) {
  out.clear();
  if (max_tokens == 0 || tokens.size() < 2) return;
  const std::size_t longest = std::min<std::size_t>(max_n_, tokens.size() - 1);
  for (std::size_t n = longest; n >= min_n_ && n > 0; --n) {
    const std::ptrdiff_t start = last_earlier_match(tokens, n);
    if (start < 0) continue;
    const std::size_t from = static_cast<std::size_t>(start) + n;
    const std::size_t count = std::min<std::size_t>(max_tokens, tokens.size() - from);
    out.assign(tokens.begin() + static_cast<std::ptrdiff_t>(from),
               tokens.begin() + static_cast<std::ptrdiff_t>(from + count));
    return;
  }
}

}  // namespace pagedserve::spec
