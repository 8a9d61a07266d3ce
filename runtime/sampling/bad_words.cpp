#include "runtime/sampling/bad_words.h"

#include <algorithm>

namespace pagedserve {

std::vector<token_id> bad_word_bans(const std::vector<std::vector<token_id>>& bad_words,
                                    std::span<const token_id> generated) {
  std::vector<token_id> bans;
  for (const std::vector<token_id>& word : bad_words) {
    if (word.empty()) continue;
    const std::size_t prefix = word.size() - 1;
    if (prefix > generated.size()) continue;
    if (std::equal(word.begin(), word.end() - 1,
                   generated.end() - static_cast<std::ptrdiff_t>(prefix))) {
      bans.push_back(word.back());
    }
  }
  std::sort(bans.begin(), bans.end());
  bans.erase(std::unique(bans.begin(), bans.end()), bans.end());
  return bans;
}

bool has_multi_token_bad_words(const std::vector<std::vector<token_id>>& bad_words) {
  return std::any_of(bad_words.begin(), bad_words.end(),
                     [](const std::vector<token_id>& w) { return w.size() > 1; });
}

}  // namespace pagedserve
