#pragma once
// vocabulary_trie: the vocabulary's tokens (token_vocabulary::sorted_ids, sorted by bytes) as
// a trie in depth-first pre-order, so that a walk can skip a whole subtree in one step: node
// i's subtree is nodes [i, i + subtree_size). Node 0 is the root (the empty prefix); node n
// stands for the prefix of its first token of length `depth`, its last byte `byte`.
//
// Tokens are named by their index in sorted order: a subtree holds exactly the tokens
// [sorted_begin, sorted_end), and the first `ends` of them have the node's prefix as their
// whole bytes (shorter bytes sort first; several ids may share bytes).

#include <cstdint>
#include <string>
#include <vector>

#include "common/types.h"
#include "runtime/grammar/byte_set.h"

namespace pagedserve::grammar {

struct trie_node {
  std::uint32_t subtree_size = 1;  // nodes in the subtree, this one included
  std::uint32_t sorted_begin = 0;
  std::uint32_t sorted_end = 0;
  std::uint32_t ends = 0;
  std::uint16_t depth = 0;
  std::uint8_t byte = 0;
};

// A half-open range of sorted token indices.
struct sorted_range {
  std::uint32_t begin = 0;
  std::uint32_t end = 0;
  friend bool operator==(const sorted_range&, const sorted_range&) = default;
};

// Builds the trie of `sorted` (token ids sorted by their bytes, none empty). Tokens longer
// than 65,535 bytes are not expected of any tokenizer; their tails would be cut at that depth.
[[nodiscard]] std::vector<trie_node> build_vocabulary_trie(const std::vector<std::string>& bytes,
                                                           const std::vector<token_id>& sorted);

// For each node of `trie`, the bytes its descendants add (the bytes of its tokens past its
// prefix): a walk may take a whole subtree at once when its state loops on all of them.
[[nodiscard]] std::vector<byte_set> trie_bytes_below(const std::vector<trie_node>& trie);

}  // namespace pagedserve::grammar
