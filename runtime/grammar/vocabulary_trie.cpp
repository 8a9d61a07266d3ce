#include "runtime/grammar/vocabulary_trie.h"

#include <algorithm>
#include <limits>

namespace pagedserve::grammar {

std::vector<trie_node> build_vocabulary_trie(const std::vector<std::string>& bytes,
                                             const std::vector<token_id>& sorted) {
  constexpr std::size_t max_depth = std::numeric_limits<std::uint16_t>::max();
  std::vector<trie_node> nodes(1);
  std::vector<std::uint32_t> path{0};  // path[d]: the open node of depth d
  const auto close_to = [&](std::size_t depth, std::uint32_t sorted_index) {
    while (path.size() > depth + 1) {
      trie_node& node = nodes[path.back()];
      node.subtree_size = static_cast<std::uint32_t>(nodes.size() - path.back());
      node.sorted_end = sorted_index;
      path.pop_back();
    }
  };
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    const auto index = static_cast<std::uint32_t>(i);
    const std::string& token = bytes[sorted[i]];
    const std::size_t length = std::min(token.size(), max_depth);
    // The open path is the previous token's; keep what this one shares with it.
    std::size_t shared = 0;
    while (shared + 1 < path.size() && shared < length &&
           nodes[path[shared + 1]].byte == static_cast<std::uint8_t>(token[shared])) {
      ++shared;
    }
    close_to(shared, index);
    for (std::size_t d = shared; d < length; ++d) {
      trie_node node;
      node.sorted_begin = index;
      node.depth = static_cast<std::uint16_t>(d + 1);
      node.byte = static_cast<std::uint8_t>(token[d]);
      path.push_back(static_cast<std::uint32_t>(nodes.size()));
      nodes.push_back(node);
    }
    ++nodes[path.back()].ends;
  }
  close_to(0, static_cast<std::uint32_t>(sorted.size()));
  nodes[0].subtree_size = static_cast<std::uint32_t>(nodes.size());
  nodes[0].sorted_end = static_cast<std::uint32_t>(sorted.size());
  return nodes;
}

std::vector<byte_set> trie_bytes_below(const std::vector<trie_node>& trie) {
  std::vector<byte_set> below(trie.size());
  // Backwards: a node's children come after it in pre-order, so they are done first.
  for (std::size_t i = trie.size(); i-- > 0;) {
    const std::size_t end = i + trie[i].subtree_size;
    for (std::size_t child = i + 1; child < end; child += trie[child].subtree_size) {
      below[i].set(trie[child].byte);
      below[i] |= below[child];
    }
  }
  return below;
}

}  // namespace pagedserve::grammar
