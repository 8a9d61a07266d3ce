// kv_cache_manager on tiny pools (block_size 4, about ten blocks): exact block ids in block
// tables and exact free-queue order after allocations, frees, prefix hits and evictions.
// Expected values are worked out by hand from the rules in free_block_queue.h.
#include "runtime/kv/kv_cache_manager.h"

#include <gtest/gtest.h>

#include "tests/runtime/kv/kv_test_util.h"

namespace pagedserve::kv {
namespace {

using testing::concat;
using testing::free_queue;
using testing::is_cached;
using testing::table;
using testing::token_run;
using v = std::vector<std::uint32_t>;

kv_cache_manager tiny_pool(std::uint32_t num_blocks = 10, bool caching = true) {
  return kv_cache_manager(kv_cache_config{num_blocks, 4, caching});
}

// Admits `seq` for `num_tokens` tokens of `prompt`, adopting whatever prefix is cached.
computed_blocks admit(kv_cache_manager& m, std::uint64_t seq, const std::vector<token_id>& prompt,
                      std::uint32_t num_tokens) {
  computed_blocks match = m.get_computed_blocks(prompt);
  EXPECT_TRUE(m.allocate_slots(seq_id{seq}, num_tokens, &match));
  return match;
}

TEST(KvCacheManager, AllocationTakesBlocksFromTheFrontInIdOrder) {
  auto m = tiny_pool();
  EXPECT_EQ(free_queue(m), (v{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  ASSERT_TRUE(m.allocate_slots(seq_id{1}, 10));
  ASSERT_TRUE(m.allocate_slots(seq_id{2}, 5));
  EXPECT_EQ(table(m, 1), (v{0, 1, 2}));
  EXPECT_EQ(table(m, 2), (v{3, 4}));
  EXPECT_EQ(free_queue(m), (v{5, 6, 7, 8, 9}));
  EXPECT_EQ(m.num_free_blocks(), 5u);
  EXPECT_DOUBLE_EQ(m.usage(), 0.5);
  m.check_invariants();
}

TEST(KvCacheManager, TablesGrowAppendOnlyAndOnlyWhenABlockFills) {
  auto m = tiny_pool();
  ASSERT_TRUE(m.allocate_slots(seq_id{1}, 4));
  ASSERT_TRUE(m.allocate_slots(seq_id{2}, 1));
  EXPECT_EQ(table(m, 1), (v{0}));
  ASSERT_TRUE(m.allocate_slots(seq_id{1}, 4));  // still fits in block 0
  EXPECT_EQ(table(m, 1), (v{0}));
  ASSERT_TRUE(m.allocate_slots(seq_id{1}, 5));
  ASSERT_TRUE(m.allocate_slots(seq_id{1}, 3));  // fewer tokens never shrinks the table
  EXPECT_EQ(table(m, 1), (v{0, 2}));
  EXPECT_EQ(table(m, 2), (v{1}));
}

TEST(KvCacheManager, FreeAppendsTailFirst) {
  auto m = tiny_pool();
  ASSERT_TRUE(m.allocate_slots(seq_id{1}, 10));
  ASSERT_TRUE(m.allocate_slots(seq_id{2}, 5));
  m.free(seq_id{1});
  EXPECT_EQ(free_queue(m), (v{5, 6, 7, 8, 9, 2, 1, 0}));
  EXPECT_TRUE(m.block_table(seq_id{1}).empty());
  m.free(seq_id{2});
  EXPECT_EQ(free_queue(m), (v{5, 6, 7, 8, 9, 2, 1, 0, 4, 3}));
  EXPECT_DOUBLE_EQ(m.usage(), 0.0);
  m.free(seq_id{2});  // unknown sequence: nothing to release
  m.check_invariants();
}

TEST(KvCacheManager, AllocationFailsWithoutChangingAnything) {
  auto m = tiny_pool(4);
  ASSERT_TRUE(m.allocate_slots(seq_id{1}, 12));
  EXPECT_FALSE(m.can_allocate(seq_id{2}, 5));
  EXPECT_FALSE(m.allocate_slots(seq_id{2}, 5));
  EXPECT_TRUE(m.block_table(seq_id{2}).empty());
  EXPECT_FALSE(m.allocate_slots(seq_id{1}, 21));
  EXPECT_EQ(table(m, 1), (v{0, 1, 2}));
  EXPECT_EQ(free_queue(m), (v{3}));
  EXPECT_TRUE(m.allocate_slots(seq_id{1}, 16));
  EXPECT_EQ(table(m, 1), (v{0, 1, 2, 3}));
  m.check_invariants();
}

TEST(KvCacheManager, PrefixHitTouchesFreedBlocksOutOfTheQueue) {
  auto m = tiny_pool();
  const auto prompt = token_run(100, 10);  // blocks: [100..103] [104..107] [108 109]
  admit(m, 1, prompt, 10);
  m.cache_blocks(seq_id{1}, prompt, 10);
  EXPECT_TRUE(is_cached(m, 0));
  EXPECT_TRUE(is_cached(m, 1));
  EXPECT_FALSE(is_cached(m, 2)) << "only full blocks are hashed";
  m.free(seq_id{1});
  EXPECT_EQ(free_queue(m), (v{3, 4, 5, 6, 7, 8, 9, 2, 1, 0}));

  const computed_blocks match = admit(m, 2, prompt, 10);
  EXPECT_EQ(testing::ids(match.blocks), (v{0, 1}));
  EXPECT_EQ(match.num_computed_tokens, 8u);
  EXPECT_EQ(table(m, 2), (v{0, 1, 3}));
  EXPECT_EQ(free_queue(m), (v{4, 5, 6, 7, 8, 9, 2}));
  EXPECT_EQ(m.pool().block(block_id{0}).ref_cnt, 1u);
  m.check_invariants();
}

TEST(KvCacheManager, SharedBlocksReturnToTheQueueWhenTheLastHolderFrees) {
  auto m = tiny_pool();
  const auto prompt = token_run(100, 10);
  admit(m, 1, prompt, 10);
  m.cache_blocks(seq_id{1}, prompt, 10);
  admit(m, 2, prompt, 10);  // live hit: blocks 0 and 1 now have two holders
  EXPECT_EQ(table(m, 2), (v{0, 1, 3}));
  EXPECT_EQ(m.pool().block(block_id{1}).ref_cnt, 2u);
  EXPECT_EQ(free_queue(m), (v{4, 5, 6, 7, 8, 9}));
  m.free(seq_id{1});
  EXPECT_EQ(free_queue(m), (v{4, 5, 6, 7, 8, 9, 2}));
  m.free(seq_id{2});
  EXPECT_EQ(free_queue(m), (v{4, 5, 6, 7, 8, 9, 2, 3, 1, 0}));
  m.check_invariants();
}

TEST(KvCacheManager, EvictionTakesChainTailsBeforeParents) {
  auto m = tiny_pool(4);
  const auto a = token_run(100, 16);
  admit(m, 1, a, 16);
  m.cache_blocks(seq_id{1}, a, 16);
  m.free(seq_id{1});
  EXPECT_EQ(free_queue(m), (v{3, 2, 1, 0}));

  admit(m, 2, token_run(500, 8), 8);  // misses; pops 3 and 2, evicting their hashes
  EXPECT_EQ(table(m, 2), (v{3, 2}));
  EXPECT_EQ(m.stats().evictions, 2u);
  EXPECT_FALSE(is_cached(m, 3));
  EXPECT_FALSE(is_cached(m, 2));
  EXPECT_EQ(m.pool().num_cached_blocks(), 2u);

  const computed_blocks match = m.get_computed_blocks(a);
  EXPECT_EQ(testing::ids(match.blocks), (v{0, 1})) << "the parents survive their tails";
  m.check_invariants();
}

TEST(KvCacheManager, EvictedBlockIsRehashedWithItsNewContent) {
  auto m = tiny_pool(2);
  const auto a = token_run(100, 4);
  const auto b = token_run(200, 4);
  admit(m, 1, a, 4);
  m.cache_blocks(seq_id{1}, a, 4);
  m.free(seq_id{1});
  EXPECT_EQ(free_queue(m), (v{1, 0}));
  admit(m, 2, b, 8);  // needs both blocks: 1 (never cached), then 0 (evicts a)
  EXPECT_EQ(table(m, 2), (v{1, 0}));
  m.cache_blocks(seq_id{2}, concat(b, token_run(300, 4)), 8);
  m.free(seq_id{2});
  EXPECT_EQ(m.stats().evictions, 1u);
  EXPECT_TRUE(m.get_computed_blocks(concat(a, {1})).blocks.empty());
  EXPECT_EQ(testing::ids(m.get_computed_blocks(concat(b, {1})).blocks), (v{1}));
  m.check_invariants();
}

TEST(KvCacheManager, BlockAlignedFullyCachedPromptRecomputesItsLastBlock) {
  auto m = tiny_pool();
  const auto prompt = token_run(100, 8);
  admit(m, 1, prompt, 8);
  m.cache_blocks(seq_id{1}, prompt, 8);
  EXPECT_TRUE(is_cached(m, 1));
  const computed_blocks match = m.get_computed_blocks(prompt);
  EXPECT_EQ(testing::ids(match.blocks), (v{0}));
  EXPECT_EQ(match.num_computed_tokens, 4u);
  EXPECT_EQ(testing::ids(m.get_computed_blocks(concat(prompt, {7})).blocks), (v{0, 1}));
}

TEST(KvCacheManager, StatsCountTokensLookedUpAndFound) {
  auto m = tiny_pool();
  const auto prompt = token_run(100, 10);
  admit(m, 1, prompt, 10);  // miss: 10 queried, 0 hit
  EXPECT_EQ(m.stats().queries, 10u);
  EXPECT_EQ(m.stats().hits, 0u);
  m.cache_blocks(seq_id{1}, prompt, 10);
  admit(m, 2, prompt, 10);                          // 10 queried, 8 hit
  (void)m.get_computed_blocks(token_run(100, 6));   // 6 queried, 4 hit
  (void)m.get_computed_blocks(token_run(101, 12));  // 12 queried, 0 hit
  (void)m.get_computed_blocks({});                  // nothing to look up
  EXPECT_EQ(m.stats().queries, 38u);
  EXPECT_EQ(m.stats().hits, 12u);
  EXPECT_EQ(m.stats().evictions, 0u);
}

TEST(KvCacheManager, SaltSeparatesOtherwiseEqualPrompts) {
  auto m = tiny_pool();
  const auto prompt = token_run(100, 9);
  ASSERT_TRUE(m.allocate_slots(seq_id{1}, 9));
  m.cache_blocks(seq_id{1}, prompt, 9, 42);
  EXPECT_TRUE(m.get_computed_blocks(prompt).blocks.empty());
  EXPECT_EQ(testing::ids(m.get_computed_blocks(prompt, 42).blocks), (v{0, 1}));
}

TEST(KvCacheManager, CachingIsIncrementalAsTokensAreComputed) {
  auto m = tiny_pool();
  auto tokens = token_run(100, 6);
  admit(m, 1, tokens, 6);
  m.cache_blocks(seq_id{1}, tokens, 3);  // no full block computed yet
  EXPECT_FALSE(is_cached(m, 0));
  m.cache_blocks(seq_id{1}, tokens, 6);
  EXPECT_TRUE(is_cached(m, 0));
  tokens.push_back(106);
  tokens.push_back(107);
  tokens.push_back(108);
  ASSERT_TRUE(m.allocate_slots(seq_id{1}, 9));
  m.cache_blocks(seq_id{1}, tokens, 9);
  EXPECT_EQ(table(m, 1), (v{0, 1, 2}));
  EXPECT_TRUE(is_cached(m, 1));
  EXPECT_FALSE(is_cached(m, 2));
  EXPECT_EQ(testing::ids(m.get_computed_blocks(tokens).blocks), (v{0, 1}));
  m.check_invariants();
}

// Two sequences with the same prompt admitted before either cached it: the second one's full
// blocks are duplicates, kept out of the cache, yet its later blocks chain onto the first's.
TEST(KvCacheManager, DuplicateBlocksKeepTheFirstRegistration) {
  auto m = tiny_pool();
  const auto prompt = token_run(100, 8);
  ASSERT_TRUE(m.allocate_slots(seq_id{1}, 8));
  ASSERT_TRUE(m.allocate_slots(seq_id{2}, 8));
  m.cache_blocks(seq_id{1}, prompt, 8);
  m.cache_blocks(seq_id{2}, prompt, 8);
  EXPECT_EQ(table(m, 2), (v{2, 3}));
  EXPECT_FALSE(is_cached(m, 2));
  EXPECT_FALSE(is_cached(m, 3));
  EXPECT_EQ(m.pool().num_cached_blocks(), 2u);

  const auto longer = concat(prompt, token_run(900, 4));
  ASSERT_TRUE(m.allocate_slots(seq_id{2}, 12));
  m.cache_blocks(seq_id{2}, longer, 12);
  EXPECT_EQ(table(m, 2), (v{2, 3, 4}));
  EXPECT_TRUE(is_cached(m, 4));
  EXPECT_EQ(testing::ids(m.get_computed_blocks(concat(longer, {1})).blocks), (v{0, 1, 4}));
  m.check_invariants();
}

TEST(KvCacheManager, CanAllocateCountsUnreferencedPrefixBlocksAsTaken) {
  auto m = tiny_pool(3);
  const auto prompt = token_run(100, 9);
  admit(m, 1, prompt, 9);
  m.cache_blocks(seq_id{1}, prompt, 9);
  m.free(seq_id{1});
  EXPECT_EQ(m.num_free_blocks(), 3u);
  const computed_blocks match = m.get_computed_blocks(concat(prompt, token_run(0, 7)));
  ASSERT_EQ(match.blocks.size(), 2u);
  // 16 tokens = 4 blocks: 2 cached + 2 new, but the cached ones also leave the free queue.
  EXPECT_FALSE(m.can_allocate(seq_id{2}, 16, &match));
  EXPECT_TRUE(m.can_allocate(seq_id{2}, 12, &match));
  EXPECT_TRUE(m.allocate_slots(seq_id{2}, 12, &match));
  EXPECT_EQ(table(m, 2), (v{0, 1, 2}));
  EXPECT_EQ(m.stats().evictions, 0u) << "block 2 held no full block, so nothing was evicted";
  m.check_invariants();
}

TEST(KvCacheManager, RepassingTheAdoptedPrefixIsHarmless) {
  auto m = tiny_pool();
  const auto prompt = token_run(100, 9);
  admit(m, 1, prompt, 9);
  m.cache_blocks(seq_id{1}, prompt, 9);
  const computed_blocks match = admit(m, 2, prompt, 9);
  EXPECT_TRUE(m.allocate_slots(seq_id{2}, 10, &match));
  EXPECT_EQ(table(m, 2), (v{0, 1, 3}));
  m.check_invariants();
}

TEST(KvCacheManager, DisabledCachingHashesNothingAndNeverHits) {
  auto m = tiny_pool(10, false);
  const auto prompt = token_run(100, 10);
  admit(m, 1, prompt, 10);
  m.cache_blocks(seq_id{1}, prompt, 10);
  EXPECT_EQ(m.pool().num_cached_blocks(), 0u);
  m.free(seq_id{1});
  const computed_blocks match = m.get_computed_blocks(prompt);
  EXPECT_TRUE(match.blocks.empty());
  EXPECT_EQ(match.num_computed_tokens, 0u);
  EXPECT_EQ(m.stats().queries, 0u);
  EXPECT_EQ(m.stats().hits, 0u);
  m.check_invariants();
}

TEST(KvCacheManagerDeathTest, AdoptingAStalePrefixAborts) {
  auto m = tiny_pool(2);
  const auto prompt = token_run(100, 5);
  admit(m, 1, prompt, 5);
  m.cache_blocks(seq_id{1}, prompt, 5);
  m.free(seq_id{1});
  const computed_blocks match = m.get_computed_blocks(prompt);
  ASSERT_EQ(testing::ids(match.blocks), (v{0}));
  ASSERT_TRUE(m.allocate_slots(seq_id{2}, 8));  // pops 1, then 0: evicts the matched block
  m.free(seq_id{2});
  EXPECT_DEATH((void)m.allocate_slots(seq_id{3}, 5, &match), "stale computed_blocks");
}

// The static baseline's reservation: the first allocation takes ceil(10 / 4) = 3 blocks
// whatever it asks for; growing within them takes none; the reservation counts in
// get_num_blocks_to_allocate, and a reservation beyond the pool fits no sequence.
TEST(KvCacheManager, AReservationIsTakenWholeAtTheFirstAllocation) {
  kv_cache_config config{10, 4, false};
  config.reserve_tokens_per_sequence = 10;
  kv_cache_manager m(config);
  EXPECT_EQ(m.get_num_blocks_to_allocate(seq_id{1}, 1), 3u);
  ASSERT_TRUE(m.allocate_slots(seq_id{1}, 1));
  EXPECT_EQ(table(m, 1), (v{0, 1, 2}));
  EXPECT_EQ(m.get_num_blocks_to_allocate(seq_id{1}, 9), 0u);
  ASSERT_TRUE(m.allocate_slots(seq_id{1}, 9));
  EXPECT_EQ(table(m, 1), (v{0, 1, 2}));
  ASSERT_TRUE(m.allocate_slots(seq_id{2}, 4));
  ASSERT_TRUE(m.allocate_slots(seq_id{3}, 4));
  EXPECT_EQ(m.num_blocks_held(), 9u);
  EXPECT_FALSE(m.allocate_slots(seq_id{4}, 1)) << "one block left, three needed";
  EXPECT_EQ(m.max_tokens_per_sequence(), 40u);

  config.reserve_tokens_per_sequence = 41;
  EXPECT_EQ(kv_cache_manager(config).max_tokens_per_sequence(), 0u);
}

}  // namespace
}  // namespace pagedserve::kv
