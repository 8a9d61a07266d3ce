// free_block_queue: the LRU list over the block array, with exact orders.
#include "runtime/kv/free_block_queue.h"

#include <gtest/gtest.h>

#include "tests/runtime/kv/kv_test_util.h"

namespace pagedserve::kv {
namespace {

using testing::ids;

std::vector<kv_block> make_blocks(std::uint32_t n) {
  std::vector<kv_block> blocks(n);
  for (std::uint32_t i = 0; i < n; ++i) blocks[i].id = block_id{i};
  return blocks;
}

TEST(FreeBlockQueue, StartsWithEveryBlockInIdOrder) {
  auto blocks = make_blocks(5);
  free_block_queue q(blocks);
  EXPECT_EQ(q.size(), 5u);
  EXPECT_EQ(ids(q.to_vector(blocks)), (std::vector<std::uint32_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(q.front(), block_id{0});
}

TEST(FreeBlockQueue, PopleftTakesTheFront) {
  auto blocks = make_blocks(3);
  free_block_queue q(blocks);
  EXPECT_EQ(q.popleft(blocks), block_id{0});
  EXPECT_EQ(q.popleft(blocks), block_id{1});
  EXPECT_EQ(ids(q.to_vector(blocks)), (std::vector<std::uint32_t>{2}));
  EXPECT_FALSE(q.contains(blocks, block_id{0}));
  EXPECT_TRUE(q.contains(blocks, block_id{2}));
}

TEST(FreeBlockQueue, RemoveFromMiddleHeadAndTail) {
  auto blocks = make_blocks(5);
  free_block_queue q(blocks);
  q.remove(blocks, block_id{2});
  EXPECT_EQ(ids(q.to_vector(blocks)), (std::vector<std::uint32_t>{0, 1, 3, 4}));
  q.remove(blocks, block_id{0});
  q.remove(blocks, block_id{4});
  EXPECT_EQ(ids(q.to_vector(blocks)), (std::vector<std::uint32_t>{1, 3}));
  EXPECT_EQ(q.size(), 2u);
  q.remove(blocks, block_id{1});
  q.remove(blocks, block_id{3});
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.front(), std::nullopt);
  EXPECT_TRUE(q.to_vector(blocks).empty());
}

TEST(FreeBlockQueue, AppendGoesToTheBack) {
  auto blocks = make_blocks(4);
  free_block_queue q(blocks);
  q.remove(blocks, block_id{1});
  q.remove(blocks, block_id{0});
  q.append(blocks, block_id{1});
  q.append(blocks, block_id{0});
  EXPECT_EQ(ids(q.to_vector(blocks)), (std::vector<std::uint32_t>{2, 3, 1, 0}));
  while (!q.empty()) (void)q.popleft(blocks);
  q.append(blocks, block_id{3});
  EXPECT_EQ(ids(q.to_vector(blocks)), (std::vector<std::uint32_t>{3}));
}

TEST(FreeBlockQueueDeathTest, AppendingAQueuedBlockAborts) {
  auto blocks = make_blocks(2);
  free_block_queue q(blocks);
  EXPECT_DEATH(q.append(blocks, block_id{1}), "appended to the free queue twice");
}

}  // namespace
}  // namespace pagedserve::kv
