#include "runtime/grammar/token_classes.h"

#include <utility>

namespace pagedserve::grammar {

token_classes::token_classes(std::span<const std::uint32_t> accepted,
                             std::vector<sorted_range> uncertain, std::size_t vocabulary_size)
    : uncertain_(std::move(uncertain)) {
  const std::size_t words = (vocabulary_size + 31) / 32;
  if (accepted.size() < words) {  // ids take less memory than the mask
    accepted_ids_.assign(accepted.begin(), accepted.end());
    return;
  }
  accepted_mask_.assign(words, 0);
  for (const std::uint32_t id : accepted) accepted_mask_[id / 32] |= std::uint32_t{1} << (id % 32);
}

void token_classes::add_accepted(std::span<std::uint32_t> mask) const {
  for (std::size_t i = 0; i < accepted_mask_.size(); ++i) mask[i] |= accepted_mask_[i];
  for (const std::uint32_t id : accepted_ids_) mask[id / 32] |= std::uint32_t{1} << (id % 32);
}

std::size_t token_classes::memory_bytes() const {
  return sizeof(*this) + (accepted_ids_.size() + accepted_mask_.size()) * sizeof(std::uint32_t) +
         uncertain_.size() * sizeof(sorted_range);
}

void token_classes_key(std::span<const std::uint32_t> top_first, bool rooted, std::string& key) {
  key.clear();
  for (const std::uint32_t pos : top_first) key.append(reinterpret_cast<const char*>(&pos), 4);
  key.push_back(rooted ? 'r' : 'c');
}

std::shared_ptr<const token_classes> token_class_cache::find(std::string_view key) const {
  const std::lock_guard lock(mutex_);
  const auto it = entries_.find(std::string(key));
  return it == entries_.end() ? nullptr : it->second;
}

void token_class_cache::insert(std::string_view key, std::shared_ptr<const token_classes> classes) {
  const std::size_t size = classes->memory_bytes() + key.size() + 64;
  const std::lock_guard lock(mutex_);
  if (num_bytes_ + size > max_bytes_) return;
  if (entries_.emplace(std::string(key), std::move(classes)).second) num_bytes_ += size;
}

}  // namespace pagedserve::grammar
