// Hash collisions forced through the test hook: every block hashes to the same value, so the
// hash map is useless and only the pool's confirmation (tokens, salt, parent registration)
// decides hits. Different content must never share a block; equal content still hits.
#include <gtest/gtest.h>

#include "runtime/kv/kv_cache_manager.h"
#include "tests/runtime/kv/kv_test_util.h"

namespace pagedserve::kv {
namespace {

using testing::concat;
using testing::is_cached;
using testing::table;
using testing::token_run;
using v = std::vector<std::uint32_t>;

block_hash constant_hash(std::optional<block_hash>, std::span<const token_id>, std::uint64_t) {
  return block_hash{1};
}

kv_cache_manager colliding_pool(std::uint32_t num_blocks) {
  return kv_cache_manager(kv_cache_config{num_blocks, 4, true}, constant_hash);
}

void run_and_cache(kv_cache_manager& m, std::uint64_t seq, const std::vector<token_id>& tokens) {
  computed_blocks match = m.get_computed_blocks(tokens);
  ASSERT_TRUE(m.allocate_slots(seq_id{seq}, static_cast<std::uint32_t>(tokens.size()), &match));
  m.cache_blocks(seq_id{seq}, tokens, static_cast<std::uint32_t>(tokens.size()));
}

TEST(PrefixCollision, DifferentTokensMissDespiteEqualHashes) {
  auto m = colliding_pool(10);
  const auto a = token_run(100, 4);
  const auto b = token_run(200, 4);
  run_and_cache(m, 1, concat(a, b));
  EXPECT_TRUE(m.get_computed_blocks(concat(b, {1})).blocks.empty());
  EXPECT_EQ(testing::ids(m.get_computed_blocks(concat(a, {1})).blocks), (v{0}));
  EXPECT_EQ(testing::ids(m.get_computed_blocks(concat(concat(a, b), {1})).blocks), (v{0, 1}));
  EXPECT_EQ(testing::ids(m.get_computed_blocks(concat(concat(a, a), {1})).blocks), (v{0}));
  m.check_invariants();
}

TEST(PrefixCollision, EqualBlocksUnderDifferentParentsStayApart) {
  auto m = colliding_pool(10);
  const auto a = token_run(100, 4);
  const auto b = token_run(200, 4);
  const auto c = token_run(300, 4);
  run_and_cache(m, 1, concat(a, b));
  run_and_cache(m, 2, concat(c, b));
  EXPECT_EQ(table(m, 2), (v{2, 3})) << "[c][b] shares nothing with [a][b]";
  EXPECT_TRUE(is_cached(m, 3));
  EXPECT_EQ(testing::ids(m.get_computed_blocks(concat(concat(a, b), {1})).blocks), (v{0, 1}));
  EXPECT_EQ(testing::ids(m.get_computed_blocks(concat(concat(c, b), {1})).blocks), (v{2, 3}));
  m.check_invariants();
}

TEST(PrefixCollision, SaltIsPartOfTheIdentity) {
  auto m = colliding_pool(10);
  const auto a = concat(token_run(100, 4), {1});
  ASSERT_TRUE(m.allocate_slots(seq_id{1}, 5));
  m.cache_blocks(seq_id{1}, a, 5, 7);
  EXPECT_TRUE(m.get_computed_blocks(a, 8).blocks.empty());
  EXPECT_EQ(testing::ids(m.get_computed_blocks(a, 7).blocks), (v{0}));
}

// The parent of a cached block is evicted and its block id reused for other content; the
// child is still cached (it belonged to a sequence whose own parent block was a duplicate).
// A prompt that starts with the new content and continues with the child's tokens must not
// reach the child: parent identity is the registration, not the block id.
TEST(PrefixCollision, ReusedParentBlockIdDoesNotResurrectTheOldChain) {
  auto m = colliding_pool(3);
  const auto a = token_run(100, 4);
  const auto b = token_run(200, 4);
  const auto z = token_run(900, 4);
  ASSERT_TRUE(m.allocate_slots(seq_id{1}, 4));
  m.cache_blocks(seq_id{1}, a, 4);              // block 0 = [a]
  ASSERT_TRUE(m.allocate_slots(seq_id{2}, 8));  // blocks 1, 2
  m.cache_blocks(seq_id{2}, concat(a, b), 8);
  EXPECT_FALSE(is_cached(m, 1)) << "duplicate of block 0";
  EXPECT_TRUE(is_cached(m, 2)) << "[b] after block 0's registration";
  m.free(seq_id{1});

  ASSERT_TRUE(m.allocate_slots(seq_id{3}, 4));  // pops block 0, evicting [a]
  EXPECT_EQ(table(m, 3), (v{0}));
  m.cache_blocks(seq_id{3}, z, 4);  // block 0 = [z] now
  EXPECT_EQ(m.stats().evictions, 1u);

  EXPECT_EQ(testing::ids(m.get_computed_blocks(concat(concat(z, b), {1})).blocks), (v{0}));
  EXPECT_TRUE(m.get_computed_blocks(concat(concat(a, b), {1})).blocks.empty());
  m.check_invariants();
}

}  // namespace
}  // namespace pagedserve::kv
