#pragma once
// mask_cache: token masks of one compiled grammar keyed by the matcher state that produced
// them (grammar_stacks::state_key), shared by every matcher of the grammar. In JSON the state
// inside a string or a number recurs at every step, so most masks are a lookup and a copy.
// Thread-safe; least recently used entries are evicted past max_bytes.

#include <cstddef>
#include <cstdint>
#include <list>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace pagedserve::grammar {

class mask_cache {
 public:
  explicit mask_cache(std::size_t max_bytes) : max_bytes_(max_bytes) {}

  // Copies the mask of `key` into out (same width) and marks it recently used.
  [[nodiscard]] bool lookup(std::string_view key, std::span<std::uint32_t> out);
  void insert(std::string_view key, std::span<const std::uint32_t> mask);

  [[nodiscard]] std::size_t num_entries() const;

 private:
  struct entry {
    std::string key;
    std::vector<std::uint32_t> mask;
  };
  [[nodiscard]] static std::size_t bytes_of(const entry& e) {
    return e.key.size() + e.mask.size() * sizeof(std::uint32_t) + 64;
  }

  const std::size_t max_bytes_;
  mutable std::mutex mutex_;
  std::list<entry> lru_;  // most recently used first
  // Keys view the strings inside lru_'s nodes, which never move.
  std::unordered_map<std::string_view, std::list<entry>::iterator> index_;
  std::size_t num_bytes_ = 0;
};

}  // namespace pagedserve::grammar
