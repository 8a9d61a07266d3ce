#include "sim/static_kv_allocator.h"

#include <algorithm>
#include <iterator>

#include "runtime/kv/kv_invariant.h"

namespace pagedserve::sim {

using kv::kv_check;

static_kv_allocator::static_kv_allocator(std::uint32_t num_slots)
    : num_slots_(num_slots), num_free_slots_(num_slots) {
  if (num_slots > 0) free_.emplace(0, num_slots);
}

bool static_kv_allocator::can_reserve(std::uint32_t num_slots) const {
  return std::ranges::any_of(free_, [&](const auto& entry) { return entry.second >= num_slots; });
}

std::optional<kv_region> static_kv_allocator::reserve(seq_id seq, std::uint32_t num_slots) {
  kv_check(!reserved_.contains(seq), "static_kv_allocator: sequence already holds a region");
  auto fit =
      std::ranges::find_if(free_, [&](const auto& entry) { return entry.second >= num_slots; });
  if (fit == free_.end()) return std::nullopt;
  const kv_region region{fit->first, num_slots};
  const std::uint32_t left = fit->second - num_slots;
  free_.erase(fit);
  if (left > 0) free_.emplace(region.first_slot + num_slots, left);
  num_free_slots_ -= num_slots;
  reserved_.emplace(seq, reservation{region, 0});
  return region;
}

void static_kv_allocator::release(seq_id seq) {
  auto it = reserved_.find(seq);
  if (it == reserved_.end()) return;
  std::uint32_t first = it->second.region.first_slot;
  std::uint32_t size = it->second.region.num_slots;
  num_free_slots_ += size;
  num_used_slots_ -= it->second.num_used;
  reserved_.erase(it);
  // Merge with the free region that follows, then with the one that precedes.
  auto next = free_.lower_bound(first);
  if (next != free_.end() && next->first == first + size) {
    size += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == first) {
      first = prev->first;
      size += prev->second;
      free_.erase(prev);
    }
  }
  if (size > 0) free_.emplace(first, size);
}

void static_kv_allocator::set_num_used_slots(seq_id seq, std::uint32_t num_used) {
  auto it = reserved_.find(seq);
  kv_check(it != reserved_.end(), "set_num_used_slots for a sequence without a region");
  kv_check(num_used <= it->second.region.num_slots, "more used slots than reserved");
  num_used_slots_ = num_used_slots_ - it->second.num_used + num_used;
  it->second.num_used = num_used;
}

std::optional<kv_region> static_kv_allocator::region(seq_id seq) const {
  auto it = reserved_.find(seq);
  if (it == reserved_.end()) return std::nullopt;
  return it->second.region;
}

std::uint32_t static_kv_allocator::largest_free_region() const {
  std::uint32_t largest = 0;
  for (const auto& [first, size] : free_) largest = std::max(largest, size);
  return largest;
}

void static_kv_allocator::check_invariants() const {
  std::uint64_t num_free = 0;
  std::optional<std::uint32_t> prev_end;
  for (const auto& [first, size] : free_) {
    kv_check(size > 0, "empty free region");
    kv_check(!prev_end || *prev_end < first, "free regions overlap or were not coalesced");
    kv_check(std::uint64_t{first} + size <= num_slots_, "free region beyond the arena");
    prev_end = first + size;
    num_free += size;
  }
  std::uint64_t num_reserved = 0;
  std::uint64_t num_used = 0;
  for (const auto& [seq, r] : reserved_) {
    num_reserved += r.region.num_slots;
    num_used += r.num_used;
  }
  kv_check(num_free == num_free_slots_, "free slot count drifted");
  kv_check(num_free + num_reserved == num_slots_, "slots leaked or double-counted");
  kv_check(num_used == num_used_slots_, "used slot count drifted");
}

}  // namespace pagedserve::sim
