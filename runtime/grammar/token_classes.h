#pragma once
// token_classes: xgrammar's adaptive token mask. For the top frames of a stack (the
// positions of its top `context_frames` frames), each token is
//   accepted  when those frames alone take all its bytes: whatever lies below, it is allowed;
//   rejected  when they refuse it before popping: whatever lies below, it is not;
//   uncertain when it pops below them with bytes left (or fails only after such a pop):
//             only the full stack can tell.
// A state's mask is then the union of its stacks' accepted tokens plus those of their
// uncertain tokens that a walk from the full state allows. In JSON the uncertain tokens of a
// string's content are the few with a quote followed by more bytes, so a new state costs a
// copy and a short walk instead of a walk of the whole vocabulary. Classes depend only on
// the frames' positions, so every state and every matcher of a grammar shares them
// (token_class_cache, thread-safe).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "runtime/grammar/vocabulary_trie.h"

namespace pagedserve::grammar {

// Frames of a stack's top that its classes look at. Three cover a JSON string or number
// (the character, the repetition, the closing quote), whatever property holds it.
inline constexpr std::size_t context_frames = 3;

class token_classes {
 public:
  // accepted: token ids, any order; uncertain: ascending, disjoint sorted ranges.
  token_classes(std::span<const std::uint32_t> accepted, std::vector<sorted_range> uncertain,
                std::size_t vocabulary_size);

  // Sets the accepted tokens' bits in mask (bitmask_words() wide).
  void add_accepted(std::span<std::uint32_t> mask) const;
  [[nodiscard]] const std::vector<sorted_range>& uncertain() const { return uncertain_; }
  [[nodiscard]] std::size_t memory_bytes() const;

 private:
  // Few accepted tokens are kept as ids; many as a bitmask, which is faster to merge.
  std::vector<std::uint32_t> accepted_ids_;
  std::vector<std::uint32_t> accepted_mask_;
  std::vector<sorted_range> uncertain_;
};

// A stack top's frames as a key: the positions top first, then whether that is all of it.
void token_classes_key(std::span<const std::uint32_t> top_first, bool rooted, std::string& key);

class token_class_cache {
 public:
  explicit token_class_cache(std::size_t max_bytes) : max_bytes_(max_bytes) {}

  [[nodiscard]] std::shared_ptr<const token_classes> find(std::string_view key) const;
  // Keeps `classes` unless the cache is full (then the next state computes them again).
  void insert(std::string_view key, std::shared_ptr<const token_classes> classes);

 private:
  const std::size_t max_bytes_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const token_classes>> entries_;
  std::size_t num_bytes_ = 0;
};

}  // namespace pagedserve::grammar
