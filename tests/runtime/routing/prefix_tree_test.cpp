// prefix_tree against prompts whose shared prefixes are worked out by hand.
#include "runtime/routing/prefix_tree.h"

#include <gtest/gtest.h>

#include <vector>

namespace pagedserve::routing {
namespace {

using tokens = std::vector<token_id>;

TEST(PrefixTree, EmptyTreeMatchesNothing) {
  const prefix_tree tree(100);
  EXPECT_EQ(tree.match(tokens{1, 2, 3}), 0u);
  EXPECT_EQ(tree.num_tokens(), 0u);
}

TEST(PrefixTree, MatchesTheLongestStoredPrefixAcrossSplitEdges) {
  prefix_tree tree(100);
  tree.insert(tokens{1, 2, 3, 4, 5}, 1);
  EXPECT_EQ(tree.num_tokens(), 5u);
  EXPECT_EQ(tree.match(tokens{1, 2, 3, 4, 5, 6}), 5u);
  EXPECT_EQ(tree.match(tokens{1, 2, 9}), 2u);  // diverges inside the one edge
  EXPECT_EQ(tree.match(tokens{2, 3}), 0u);     // a prefix, not a substring
  // Shares 1 2 3: the edge splits into [1 2 3] -> {[4 5], [7 8]}; 5 + 2 tokens stored.
  tree.insert(tokens{1, 2, 3, 7, 8}, 2);
  EXPECT_EQ(tree.num_tokens(), 7u);
  EXPECT_EQ(tree.match(tokens{1, 2, 3, 7, 8, 9}), 5u);
  EXPECT_EQ(tree.match(tokens{1, 2, 3, 4, 5}), 5u);
  EXPECT_EQ(tree.match(tokens{1, 2, 3, 6}), 3u);
  // A prompt that ends inside an existing edge adds nothing.
  tree.insert(tokens{1, 2}, 3);
  EXPECT_EQ(tree.num_tokens(), 7u);
  EXPECT_EQ(tree.match(tokens{1, 2, 3, 4}), 4u);
}

TEST(PrefixTree, EvictsLeastRecentlyUsedLeavesToItsBudget) {
  prefix_tree tree(8);
  tree.insert(tokens{1, 2, 3, 4}, 1);  // a: 4 tokens
  tree.insert(tokens{5, 6, 7}, 2);     // b: 3 tokens, 7 in all
  tree.insert(tokens{1, 2, 3, 4}, 3);  // a used again: now b is the oldest
  tree.insert(tokens{8, 9}, 4);        // 9 > 8: b (3 tokens) goes, 6 left
  EXPECT_EQ(tree.num_tokens(), 6u);
  EXPECT_EQ(tree.match(tokens{5, 6, 7}), 0u);
  EXPECT_EQ(tree.match(tokens{1, 2, 3, 4}), 4u);
  EXPECT_EQ(tree.match(tokens{8, 9}), 2u);
}

TEST(PrefixTree, EvictionRemovesAParentLeftWithoutChildren) {
  prefix_tree tree(6);
  tree.insert(tokens{1, 2, 3}, 1);
  tree.insert(tokens{1, 2, 4}, 2);  // [1 2] -> {[3], [4]}: 4 tokens
  tree.insert(tokens{7, 7, 7}, 3);  // 7 > 6: the oldest leaf [3] goes, 6 left
  EXPECT_EQ(tree.num_tokens(), 6u);
  EXPECT_EQ(tree.match(tokens{1, 2, 3}), 2u);
  EXPECT_EQ(tree.match(tokens{1, 2, 4}), 3u);
  tree.insert(tokens{9, 9}, 4);  // 8 > 6: [4] then its parent [1 2] (now a leaf) go
  EXPECT_EQ(tree.num_tokens(), 5u);
  EXPECT_EQ(tree.match(tokens{1, 2, 4}), 0u);
  EXPECT_EQ(tree.match(tokens{7, 7, 7}), 3u);
}

TEST(PrefixTree, KeepsAPromptLongerThanTheBudgetUntilTheNextInsert) {
  prefix_tree tree(4);
  tree.insert(tokens{1, 2}, 1);
  tree.insert(tokens{3, 4, 5, 6, 7, 8}, 2);  // alone over budget: [1 2] goes, it stays
  EXPECT_EQ(tree.num_tokens(), 6u);
  EXPECT_EQ(tree.match(tokens{3, 4, 5, 6, 7, 8}), 6u);
  tree.insert(tokens{1}, 3);  // now the long one is the oldest leaf
  EXPECT_EQ(tree.num_tokens(), 1u);
}

TEST(PrefixTree, ClearForgetsEverything) {
  prefix_tree tree(100);
  tree.insert(tokens{1, 2, 3}, 1);
  tree.clear();
  EXPECT_EQ(tree.num_tokens(), 0u);
  EXPECT_EQ(tree.match(tokens{1, 2, 3}), 0u);
}

}  // namespace
}  // namespace pagedserve::routing
