// static_kv_allocator: the contiguous-reservation baseline. First-fit placement, coalescing of
// released regions, and both kinds of fragmentation, with slot numbers worked out by hand.
#include "sim/static_kv_allocator.h"

#include <gtest/gtest.h>

#include <random>

namespace pagedserve::sim {
namespace {

std::optional<kv_region> at(std::uint32_t first, std::uint32_t n) { return kv_region{first, n}; }

TEST(StaticKvAllocator, ReservesFirstFitInAddressOrder) {
  static_kv_allocator a(100);
  EXPECT_EQ(a.reserve(seq_id{1}, 30), at(0, 30));
  EXPECT_EQ(a.reserve(seq_id{2}, 20), at(30, 20));
  EXPECT_EQ(a.reserve(seq_id{3}, 10), at(50, 10));
  a.release(seq_id{1});  // free: [0,30) [60,100)
  EXPECT_EQ(a.reserve(seq_id{4}, 25), at(0, 25)) << "the lowest region that fits";
  EXPECT_EQ(a.reserve(seq_id{5}, 10), at(60, 10)) << "[25,30) is too small";
  EXPECT_EQ(a.reserve(seq_id{6}, 5), at(25, 5));
  EXPECT_EQ(a.num_free_slots(), 30u);
  EXPECT_EQ(a.num_free_regions(), 1u);
  a.check_invariants();
}

TEST(StaticKvAllocator, ReleasedRegionsCoalesceWithBothNeighbours) {
  static_kv_allocator a(60);
  for (std::uint64_t s = 1; s <= 6; ++s) ASSERT_TRUE(a.reserve(seq_id{s}, 10));
  a.release(seq_id{2});  // [10,20)
  a.release(seq_id{4});  // [30,40)
  EXPECT_EQ(a.num_free_regions(), 2u);
  EXPECT_EQ(a.largest_free_region(), 10u);
  a.release(seq_id{3});  // joins [10,20) and [30,40) into [10,40)
  EXPECT_EQ(a.num_free_regions(), 1u);
  EXPECT_EQ(a.largest_free_region(), 30u);
  a.release(seq_id{1});
  a.release(seq_id{6});
  EXPECT_EQ(a.num_free_regions(), 2u);  // [0,40) and [50,60)
  a.release(seq_id{5});
  EXPECT_EQ(a.num_free_regions(), 1u);
  EXPECT_EQ(a.largest_free_region(), 60u);
  EXPECT_EQ(a.reserve(seq_id{7}, 60), at(0, 60));
  a.check_invariants();
}

TEST(StaticKvAllocator, ExternalFragmentationRefusesDespiteEnoughFreeSlots) {
  static_kv_allocator a(64);
  for (std::uint64_t s = 1; s <= 4; ++s) ASSERT_TRUE(a.reserve(seq_id{s}, 16));
  a.release(seq_id{1});
  a.release(seq_id{3});
  EXPECT_EQ(a.num_free_slots(), 32u);
  EXPECT_EQ(a.largest_free_region(), 16u);
  EXPECT_FALSE(a.can_reserve(24));
  EXPECT_EQ(a.reserve(seq_id{5}, 24), std::nullopt);
  EXPECT_EQ(a.region(seq_id{5}), std::nullopt);
  EXPECT_EQ(a.num_free_slots(), 32u) << "a refused reservation changes nothing";
  EXPECT_TRUE(a.can_reserve(16));
  a.check_invariants();
}

TEST(StaticKvAllocator, InternalFragmentationIsReservedButUnusedSlots) {
  static_kv_allocator a(100);
  ASSERT_TRUE(a.reserve(seq_id{1}, 40));
  ASSERT_TRUE(a.reserve(seq_id{2}, 40));
  a.set_num_used_slots(seq_id{1}, 12);
  a.set_num_used_slots(seq_id{2}, 3);
  a.set_num_used_slots(seq_id{2}, 5);
  EXPECT_EQ(a.num_reserved_slots(), 80u);
  EXPECT_EQ(a.num_used_slots(), 17u);
  EXPECT_EQ(a.num_unused_reserved_slots(), 63u);
  a.release(seq_id{1});
  EXPECT_EQ(a.num_used_slots(), 5u);
  EXPECT_EQ(a.num_unused_reserved_slots(), 35u);
  a.release(seq_id{9});  // never reserved: ignored
  a.check_invariants();
}

// Random reserve/release against a slot-by-slot model: the allocator's answer must be the
// lowest start of a long-enough free run, exactly as a linear scan of the model finds it.
TEST(StaticKvAllocator, MatchesALinearScanModel) {
  constexpr std::uint32_t num_slots = 200;
  static_kv_allocator a(num_slots);
  std::vector<std::optional<std::uint64_t>> owner(num_slots);
  std::vector<std::uint64_t> live;
  std::mt19937 rng(7);
  for (std::uint64_t s = 1; s <= 3000; ++s) {
    if (!live.empty() && rng() % 2 == 0) {
      const std::size_t i = rng() % live.size();
      a.release(seq_id{live[i]});
      for (auto& o : owner) {
        if (o == live[i]) o.reset();
      }
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      const std::uint32_t n = 1 + static_cast<std::uint32_t>(rng() % 40);
      std::optional<std::uint32_t> expected;
      for (std::uint32_t first = 0, run = 0; first < num_slots && !expected; ++first) {
        run = owner[first] ? 0 : run + 1;
        if (run == n) expected = first + 1 - n;
      }
      const auto got = a.reserve(seq_id{s}, n);
      ASSERT_EQ(got.has_value(), expected.has_value()) << "reservation " << s;
      if (!got) continue;
      ASSERT_EQ(got->first_slot, *expected) << "reservation " << s;
      for (std::uint32_t i = 0; i < n; ++i) owner[*expected + i] = s;
      live.push_back(s);
    }
    a.check_invariants();
  }
}

}  // namespace
}  // namespace pagedserve::sim
