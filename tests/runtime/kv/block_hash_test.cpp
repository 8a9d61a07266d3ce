// block_hash: deterministic, and sensitive to every input that defines a prefix.
#include "runtime/kv/block_hash.h"

#include <gtest/gtest.h>

#include <unordered_set>

#include "tests/runtime/kv/kv_test_util.h"

namespace pagedserve::kv {
namespace {

using testing::token_run;

TEST(BlockHash, IsDeterministic) {
  const auto t = token_run(5, 16);
  EXPECT_EQ(hash_block_tokens(std::nullopt, t, 0), hash_block_tokens(std::nullopt, t, 0));
  EXPECT_EQ(hash_block_tokens(block_hash{7}, t, 3), hash_block_tokens(block_hash{7}, t, 3));
}

TEST(BlockHash, DependsOnParentTokensOrderAndSalt) {
  const auto t = token_run(5, 16);
  const block_hash base = hash_block_tokens(std::nullopt, t, 0);
  EXPECT_NE(base, hash_block_tokens(block_hash{0}, t, 0)) << "no parent differs from parent 0";
  EXPECT_NE(base, hash_block_tokens(std::nullopt, t, 1));
  auto swapped = t;
  std::swap(swapped[0], swapped[1]);
  EXPECT_NE(base, hash_block_tokens(std::nullopt, swapped, 0));
  auto changed = t;
  changed[15] = -1;
  EXPECT_NE(base, hash_block_tokens(std::nullopt, changed, 0));
  EXPECT_NE(base, hash_block_tokens(std::nullopt, token_run(5, 15), 0));
}

// 2^17 distinct blocks in 64 bits: a collision would have probability ~5e-10, so any
// collision here is a defect of the mix, not bad luck.
TEST(BlockHash, DistinctBlocksDoNotCollide) {
  std::unordered_set<std::uint64_t> seen;
  const block_hash parent = hash_block_tokens(std::nullopt, token_run(0, 4), 0);
  for (token_id a = 0; a < 256; ++a) {
    for (token_id b = 0; b < 256; ++b) {
      const std::vector<token_id> t{a, b, 0, 0};
      EXPECT_TRUE(seen.insert(hash_block_tokens(std::nullopt, t, 0).value).second);
      EXPECT_TRUE(seen.insert(hash_block_tokens(parent, t, 0).value).second);
    }
  }
}

}  // namespace
}  // namespace pagedserve::kv
