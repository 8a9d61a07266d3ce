#pragma once
// static_kv_allocator: the pre-PagedAttention arena itself, bench_kv's baseline for the cost of
// allocating (the simulator's static baseline is static_reservation.h). The KV arena is one
// linear run of token slots (num_blocks * block_size). Each sequence reserves ONE contiguous
// region up front, sized for the longest it may grow (max_model_len), placed first-fit (lowest
// address that fits). Released regions coalesce with free neighbours.
//
// Both kinds of fragmentation the paged design removes are real here:
//   internal: slots reserved but not (yet) used by their sequence, see num_unused_reserved_slots
//   external: free slots split into pieces too small for a reservation; visible as
//             num_free_slots() > n while largest_free_region() < n, so can_reserve(n) fails.
//
//   arena  [ seq 3 (used|unused) ][ free ][ seq 7 (used|  unused  ) ][   free   ]
//          ^ slot 0                                                             ^ num_slots

#include <cstdint>
#include <map>
#include <optional>
#include <unordered_map>

#include "common/ids.h"

namespace pagedserve::sim {

struct kv_region {
  std::uint32_t first_slot = 0;
  std::uint32_t num_slots = 0;
  friend bool operator==(const kv_region&, const kv_region&) = default;
};

class static_kv_allocator {
 public:
  explicit static_kv_allocator(std::uint32_t num_slots);

  // Whether a region of `num_slots` contiguous slots is free somewhere.
  [[nodiscard]] bool can_reserve(std::uint32_t num_slots) const;
  // Reserves the lowest-addressed free region that fits; nullopt (changing nothing) if none.
  // Aborts if `seq` already holds a region.
  [[nodiscard]] std::optional<kv_region> reserve(seq_id seq, std::uint32_t num_slots);
  // Returns `seq`'s region to the free list, merging it with adjacent free regions. A sequence
  // without a region is ignored (e.g. cancelled before it was admitted).
  void release(seq_id seq);
  // Records how many of `seq`'s reserved slots hold tokens (for internal fragmentation).
  void set_num_used_slots(seq_id seq, std::uint32_t num_used);

  [[nodiscard]] std::optional<kv_region> region(seq_id seq) const;
  [[nodiscard]] std::uint32_t num_slots() const { return num_slots_; }
  [[nodiscard]] std::uint32_t num_free_slots() const { return num_free_slots_; }
  [[nodiscard]] std::uint32_t num_reserved_slots() const { return num_slots_ - num_free_slots_; }
  [[nodiscard]] std::uint32_t num_used_slots() const { return num_used_slots_; }
  [[nodiscard]] std::uint32_t num_unused_reserved_slots() const {
    return num_reserved_slots() - num_used_slots_;
  }
  [[nodiscard]] std::uint32_t largest_free_region() const;
  [[nodiscard]] std::size_t num_free_regions() const { return free_.size(); }
  [[nodiscard]] std::size_t num_sequences() const { return reserved_.size(); }

  // Aborts if free regions overlap, touch without being merged, or miscount.
  void check_invariants() const;

 private:
  struct reservation {
    kv_region region;
    std::uint32_t num_used = 0;
  };

  std::map<std::uint32_t, std::uint32_t> free_;  // first_slot -> num_slots, address order
  std::unordered_map<seq_id, reservation> reserved_;
  std::uint32_t num_slots_ = 0;
  std::uint32_t num_free_slots_ = 0;
  std::uint32_t num_used_slots_ = 0;
};

}  // namespace pagedserve::sim
