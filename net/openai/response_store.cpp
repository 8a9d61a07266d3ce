#include "net/openai/response_store.h"

#include <utility>

namespace pagedserve::net {

response_store::response_store(std::uint64_t max_count, std::uint64_t max_bytes)
    : max_count_(max_count), max_bytes_(max_bytes) {}

void response_store::put(const std::string& id, stored_response value) {
  const std::uint64_t bytes = id.size() + boost::json::serialize(value.response).size() +
                              boost::json::serialize(value.conversation).size();
  const std::scoped_lock lock(mutex_);
  if (auto it = held_.find(id); it != held_.end()) erase_locked(it);
  if (bytes > max_bytes_ || max_count_ == 0) return;
  while (!oldest_first_.empty() && (held_.size() + 1 > max_count_ || bytes_ + bytes > max_bytes_)) {
    erase_locked(held_.find(oldest_first_.front()));
  }
  oldest_first_.push_back(id);
  held_.emplace(id, held{std::move(value), bytes, std::prev(oldest_first_.end())});
  bytes_ += bytes;
}

std::optional<stored_response> response_store::get(const std::string& id) const {
  const std::scoped_lock lock(mutex_);
  const auto it = held_.find(id);
  if (it == held_.end()) return std::nullopt;
  return it->second.value;
}

bool response_store::erase(const std::string& id) {
  const std::scoped_lock lock(mutex_);
  const auto it = held_.find(id);
  if (it == held_.end()) return false;
  erase_locked(it);
  return true;
}

void response_store::erase_locked(std::unordered_map<std::string, held>::iterator it) {
  bytes_ -= it->second.bytes;
  oldest_first_.erase(it->second.age);
  held_.erase(it);
}

std::uint64_t response_store::size() const {
  const std::scoped_lock lock(mutex_);
  return held_.size();
}

std::uint64_t response_store::bytes() const {
  const std::scoped_lock lock(mutex_);
  return bytes_;
}

}  // namespace pagedserve::net
