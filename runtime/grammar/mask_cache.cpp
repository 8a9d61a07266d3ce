#include "runtime/grammar/mask_cache.h"

#include <algorithm>

namespace pagedserve::grammar {

bool mask_cache::lookup(std::string_view key, std::span<std::uint32_t> out) {
  const std::lock_guard lock(mutex_);
  const auto it = index_.find(key);
  if (it == index_.end() || it->second->mask.size() != out.size()) return false;
  lru_.splice(lru_.begin(), lru_, it->second);
  std::copy(it->second->mask.begin(), it->second->mask.end(), out.begin());
  return true;
}

void mask_cache::insert(std::string_view key, std::span<const std::uint32_t> mask) {
  entry e{std::string(key), std::vector<std::uint32_t>(mask.begin(), mask.end())};
  const std::size_t size = bytes_of(e);
  if (size > max_bytes_) return;
  const std::lock_guard lock(mutex_);
  if (index_.contains(key)) return;  // another matcher got there first: same mask
  while (num_bytes_ + size > max_bytes_ && !lru_.empty()) {
    num_bytes_ -= bytes_of(lru_.back());
    index_.erase(lru_.back().key);
    lru_.pop_back();
  }
  lru_.push_front(std::move(e));
  index_.emplace(lru_.front().key, lru_.begin());
  num_bytes_ += size;
}

std::size_t mask_cache::num_entries() const {
  const std::lock_guard lock(mutex_);
  return lru_.size();
}

}  // namespace pagedserve::grammar
