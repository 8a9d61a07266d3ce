#include "train/tokenizer/pair_queue.h"

#include <cstdio>
#include <cstdlib>

namespace pagedserve::train {

void pair_queue::add(symbol_pair pair, std::int64_t delta) {
  if (delta == 0) return;
  const std::uint64_t key = pair.key();
  std::int64_t& count = counts_[key];
  count += delta;
  if (count < 0) {
    std::fprintf(stderr, "pair_queue: count of pair (%d, %d) went negative\n", pair.left,
                 pair.right);
    std::abort();
  }
  if (count == 0) {
    counts_.erase(key);
    return;
  }
  heap_.push({count, key});
}

std::optional<std::pair<symbol_pair, std::int64_t>> pair_queue::best() {
  while (!heap_.empty()) {
    const entry top = heap_.top();
    const auto it = counts_.find(top.key);
    if (it != counts_.end() && it->second == top.count) {
      return std::pair{symbol_pair::of_key(top.key), top.count};
    }
    heap_.pop();  // stale: the pair's count changed since this entry was pushed
  }
  return std::nullopt;
}

std::int64_t pair_queue::count(symbol_pair pair) const {
  const auto it = counts_.find(pair.key());
  return it == counts_.end() ? 0 : it->second;
}

}  // namespace pagedserve::train
