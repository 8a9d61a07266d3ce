#pragma once
// vocab_table: string -> token id for a vocabulary whose strings live elsewhere (an arena
// indexed by id). Open addressing with linear probing over 8-byte slots {hash tag, id}: the
// whole table of a 128k vocabulary is 2 MiB, so lookups mostly hit cache, and prefetch() lets
// a loader overlap the misses of many lookups (building the merge table does ~1M lookups).

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "common/types.h"

namespace pagedserve {

class vocab_table {
 public:
  // strings[id] is the token of id (holes are nullopt); the vector must outlive the table.
  void build(const std::vector<std::optional<std::string_view>>& strings);

  [[nodiscard]] static std::uint64_t hash(std::string_view s) {
    return std::hash<std::string_view>{}(s);
  }
  void prefetch(std::uint64_t h) const { __builtin_prefetch(&slots_[h & mask_]); }

  [[nodiscard]] std::optional<token_id> find(std::string_view s) const { return find(s, hash(s)); }
  [[nodiscard]] std::optional<token_id> find(std::string_view s, std::uint64_t h) const {
    const std::uint32_t want = tag_of(h);
    for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
      const slot& e = slots_[i];
      if (e.tag == 0) return std::nullopt;
      if (e.tag == want && *(*strings_)[static_cast<std::size_t>(e.id)] == s) return e.id;
    }
  }
  [[nodiscard]] std::size_t size() const { return num_entries_; }

 private:
  struct slot {
    std::uint32_t tag;  // 0: empty
    token_id id;
  };
  static std::uint32_t tag_of(std::uint64_t h) {
    return static_cast<std::uint32_t>(h >> 32) | 1u;  // never 0
  }

  std::vector<slot> slots_;
  std::size_t mask_ = 0;
  std::size_t num_entries_ = 0;
  const std::vector<std::optional<std::string_view>>* strings_ = nullptr;
};

}  // namespace pagedserve
