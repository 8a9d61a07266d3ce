#pragma once
// prefix_tree: the router's guess of which prompt prefixes one replica holds in its prefix
// cache (SGLang's cache-aware router keeps the same kind of tree). A radix tree over token
// ids: every prompt routed to the replica is inserted; match() tells how many leading tokens
// of a new prompt were seen there. Approximate by design: the replica's own cache evicts on
// its own schedule, so the tree is bounded by a token budget and forgets least recently used
// leaves first, as the cache does.
//
// Invariants: num_tokens() == the sum of every node's edge length <= max_tokens after each
// insert (unless the prompt just inserted alone is longer: it is kept whole until the next);
// no two children of a node start with the same token; a node's last_used is >= each
// child's (a path is touched from the root down), so evicting leaves by last_used is LRU.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <vector>

#include "common/types.h"

namespace pagedserve::routing {

class prefix_tree {
 public:
  explicit prefix_tree(std::size_t max_tokens) : max_tokens_(max_tokens) {}

  // How many leading tokens of `tokens` the tree holds. Does not count as a use.
  [[nodiscard]] std::size_t match(std::span<const token_id> tokens) const;
  // Adds `tokens` as used at `tick` (a clock that only grows); past max_tokens, evicts least
  // recently used leaves down to max_tokens - max_tokens / 16.
  void insert(std::span<const token_id> tokens, std::uint64_t tick);
  void clear();

  [[nodiscard]] std::size_t num_tokens() const { return num_tokens_; }
  [[nodiscard]] std::size_t max_tokens() const { return max_tokens_; }

 private:
  struct node {
    std::vector<token_id> edge;  // the tokens from the parent to here
    std::map<token_id, std::unique_ptr<node>> children;
    node* parent = nullptr;
    std::uint64_t last_used = 0;
  };

  node* split(node* child, std::size_t at);
  void evict(const node* keep);

  std::size_t max_tokens_;
  std::size_t num_tokens_ = 0;
  std::unique_ptr<node> root_ = std::make_unique<node>();  // stable address across moves
};

}  // namespace pagedserve::routing
