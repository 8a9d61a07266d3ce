#pragma once
// merge_table: (left id, right id) -> (rank, merged id) for BPE. Open addressing with linear
// probing over 16-byte slots, at most ~70% full; prefetch() lets the loader overlap the cache
// misses of a batch of inserts.

#include <bit>
#include <cstdint>
#include <vector>

#include "common/types.h"

namespace pagedserve {

class merge_table {
 public:
  struct merge {
    std::uint32_t rank;
    token_id new_id;
  };

  [[nodiscard]] static std::uint64_t key_of(token_id a, token_id b) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) |
           static_cast<std::uint32_t>(b);
  }

  void reserve(std::size_t num_entries) {
    const std::size_t capacity = std::bit_ceil(std::max<std::size_t>(16, num_entries * 10 / 7));
    slots_.assign(capacity, slot{empty_key, {0, 0}});
    shift_ = 64 - static_cast<unsigned>(std::countr_zero(capacity));
    mask_ = capacity - 1;
  }

  void prefetch(std::uint64_t key) const { __builtin_prefetch(&slots_[index_of(key)]); }

  // Inserts or overwrites (a repeated pair keeps its last value). reserve() must allow room.
  void insert_or_assign(std::uint64_t key, merge value) {
    std::size_t i = index_of(key);
    while (slots_[i].key != empty_key && slots_[i].key != key) i = (i + 1) & mask_;
    num_entries_ += slots_[i].key == empty_key ? 1 : 0;
    slots_[i] = slot{key, value};
  }

  [[nodiscard]] const merge* find(std::uint64_t key) const {
    for (std::size_t i = index_of(key);; i = (i + 1) & mask_) {
      const slot& s = slots_[i];
      if (s.key == key) return &s.value;
      if (s.key == empty_key) return nullptr;
    }
  }

  [[nodiscard]] std::size_t size() const { return num_entries_; }

 private:
  // Ids are non-negative, so no real pair has both halves 0xFFFFFFFF.
  static constexpr std::uint64_t empty_key = ~std::uint64_t{0};
  struct slot {
    std::uint64_t key;
    merge value;
  };
  [[nodiscard]] std::size_t index_of(std::uint64_t key) const {
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_);
  }

  std::vector<slot> slots_;
  unsigned shift_ = 64;
  std::size_t mask_ = 0;
  std::size_t num_entries_ = 0;
};

}  // namespace pagedserve
