#include "runtime/grammar/token_vocabulary.h"

#include <algorithm>
#include <utility>

namespace pagedserve::grammar {

std::shared_ptr<const token_vocabulary> token_vocabulary::create(
    std::vector<std::string> token_bytes, std::vector<token_id> stop_token_ids) {
  std::shared_ptr<token_vocabulary> vocab(new token_vocabulary());
  std::sort(stop_token_ids.begin(), stop_token_ids.end());
  stop_token_ids.erase(std::unique(stop_token_ids.begin(), stop_token_ids.end()),
                       stop_token_ids.end());
  vocab->token_bytes_ = std::move(token_bytes);
  vocab->stop_token_ids_ = std::move(stop_token_ids);
  auto& sorted = vocab->sorted_ids_;
  const auto& bytes = vocab->token_bytes_;
  for (std::size_t id = 0; id < bytes.size(); ++id) {
    if (!bytes[id].empty()) sorted.push_back(static_cast<token_id>(id));
  }
  std::sort(sorted.begin(), sorted.end(), [&](token_id a, token_id b) {
    const int order = bytes[a].compare(bytes[b]);
    return order != 0 ? order < 0 : a < b;
  });
  vocab->trie_ = build_vocabulary_trie(bytes, sorted);
  vocab->trie_bytes_ = trie_bytes_below(vocab->trie_);
  const auto& trie = vocab->trie_;
  for (std::size_t child = 1; child < trie.size(); child += trie[child].subtree_size) {
    vocab->root_children_[trie[child].byte] = static_cast<std::uint32_t>(child);
  }
  for (const trie_node& node : vocab->trie_) {
    vocab->max_token_bytes_ = std::max<std::size_t>(vocab->max_token_bytes_, node.depth);
  }
  return vocab;
}

bool token_vocabulary::is_stop(token_id id) const {
  return std::binary_search(stop_token_ids_.begin(), stop_token_ids_.end(), id);
}

}  // namespace pagedserve::grammar
