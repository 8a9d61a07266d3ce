#pragma once
// pair_queue: the count of every adjacent pair in the training words, and which pair to merge
// next. Order: the highest count first; among equal counts the smallest pair, comparing the
// left token id and then the right one (so a tie between "e s" and "s t" goes to "e s" when
// id(e) < id(s)). Ids, not strings, decide ties: deterministic and cheap.
//
// A max-heap with lazy invalidation: every change of a pair's count pushes a fresh entry and
// leaves the older ones in the heap; an entry whose count is no longer the pair's count is
// stale and dropped when it reaches the top. So the entry matching the current count of each
// pair is always in the heap, and the top live entry is the best pair.

#include <cstdint>
#include <optional>
#include <queue>
#include <vector>

#include <boost/unordered/unordered_flat_map.hpp>

#include "train/tokenizer/symbol_pair.h"

namespace pagedserve::train {

class pair_queue {
 public:
  // Adds delta (negative to remove occurrences) to the pair's count.
  void add(symbol_pair pair, std::int64_t delta);

  // The best pair with its count; nullopt when no pair occurs any more. Does not remove it:
  // merging it everywhere brings its count to zero.
  [[nodiscard]] std::optional<std::pair<symbol_pair, std::int64_t>> best();

  [[nodiscard]] std::int64_t count(symbol_pair pair) const;

 private:
  struct entry {
    std::int64_t count;
    std::uint64_t key;
    // std::priority_queue keeps the greatest on top: higher count, then smaller key.
    friend bool operator<(const entry& a, const entry& b) {
      return a.count != b.count ? a.count < b.count : a.key > b.key;
    }
  };

  boost::unordered_flat_map<std::uint64_t, std::int64_t> counts_;
  std::priority_queue<entry> heap_;
};

}  // namespace pagedserve::train
