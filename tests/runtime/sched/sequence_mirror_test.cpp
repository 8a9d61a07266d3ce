// sequence_mirror: an executor's copy of a sequence from the plans' deltas (step_plan.h's
// protocol, written out here entry by entry): a new entry loads everything, continuing
// entries append blocks, and every contradiction is named instead of taken.

#include "runtime/sched/sequence_mirror.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace pagedserve::sched {
namespace {

constexpr std::uint32_t block_size = 4;

scheduled_sequence new_entry(std::vector<token_id> tokens, std::vector<block_id> blocks,
                             std::uint32_t first, std::uint32_t count) {
  scheduled_sequence e;
  e.seq = seq_id{1};
  e.kind = schedule_kind::new_sequence;
  e.first_position = first;
  e.num_scheduled_tokens = count;
  e.samples = first + count == tokens.size();
  e.token_ids = std::move(tokens);
  e.block_ids = std::move(blocks);
  return e;
}

scheduled_sequence continuing(std::uint32_t first, std::uint32_t count, bool samples,
                              std::vector<block_id> new_blocks = {}) {
  scheduled_sequence e;
  e.seq = seq_id{1};
  e.kind = schedule_kind::continuing;
  e.first_position = first;
  e.num_scheduled_tokens = count;
  e.samples = samples;
  e.block_ids = std::move(new_blocks);
  return e;
}

void expect_refused(const std::optional<std::string>& why, const std::string& says) {
  ASSERT_TRUE(why.has_value()) << "taken; expected: " << says;
  EXPECT_NE(why->find(says), std::string::npos) << *why;
}

TEST(sequence_mirror, follows_a_chunked_prefill_then_decode) {
  sequence_mirror s;
  // Six prompt tokens in two blocks; the first chunk computes four of them.
  ASSERT_FALSE(
      s.apply(new_entry({1, 2, 3, 4, 5, 6}, {block_id{7}, block_id{9}}, 0, 4), block_size));
  EXPECT_TRUE(s.loaded);
  EXPECT_EQ(s.num_computed, 4U);
  ASSERT_FALSE(s.apply(continuing(4, 2, true), block_size));
  EXPECT_EQ(s.num_computed, 6U);
  s.tokens.push_back(42);  // what the executor sampled
  ASSERT_FALSE(s.apply(continuing(6, 1, true), block_size));
  s.tokens.push_back(43);
  // Position 8 needs a third block: the plan sends it.
  ASSERT_FALSE(s.apply(continuing(7, 1, true, {block_id{3}}), block_size));
  EXPECT_EQ(s.block_table, (std::vector<block_id>{block_id{7}, block_id{9}, block_id{3}}));
  EXPECT_EQ(s.num_computed, 8U);
}

TEST(sequence_mirror, a_prefix_cache_hit_starts_past_position_zero) {
  sequence_mirror s;
  ASSERT_FALSE(s.apply(new_entry({1, 2, 3, 4, 5}, {block_id{0}, block_id{1}}, 4, 1), block_size));
  EXPECT_EQ(s.num_computed, 5U);
}

TEST(sequence_mirror, contradictions_are_named) {
  sequence_mirror fresh;
  expect_refused(fresh.apply(continuing(0, 1, true), block_size), "no data");

  sequence_mirror s;
  ASSERT_FALSE(s.apply(new_entry({1, 2, 3}, {block_id{0}}, 0, 3), block_size));
  expect_refused(s.apply(new_entry({1, 2, 3}, {block_id{0}}, 0, 3), block_size), "already loaded");
  expect_refused(s.apply(continuing(2, 1, true), block_size), "gap or overlap");
  expect_refused(s.apply(continuing(3, 1, true), block_size), "tokens not known yet");
  expect_refused(s.apply(continuing(3, 0, false), block_size), "no tokens scheduled");

  sequence_mirror short_table;
  expect_refused(short_table.apply(new_entry({1, 2, 3, 4, 5}, {block_id{0}}, 0, 5), block_size),
                 "block table of 1 blocks too short");
  sequence_mirror early;
  scheduled_sequence e = new_entry({1, 2, 3, 4}, {block_id{0}}, 0, 2);
  e.samples = true;
  expect_refused(early.apply(e, block_size), "samples before the last known token");
}

TEST(sequence_mirror, unload_forgets_tokens_and_table_for_the_resume) {
  sequence_mirror s;
  ASSERT_FALSE(s.apply(new_entry({1, 2, 3}, {block_id{0}}, 0, 3), block_size));
  s.unload();
  EXPECT_FALSE(s.loaded);
  EXPECT_TRUE(s.tokens.empty());
  EXPECT_TRUE(s.block_table.empty());
  scheduled_sequence resumed = new_entry({1, 2, 3, 9}, {block_id{5}}, 0, 4);
  resumed.kind = schedule_kind::resumed;
  ASSERT_FALSE(s.apply(resumed, block_size));
  EXPECT_EQ(s.num_computed, 4U);
}

}  // namespace
}  // namespace pagedserve::sched
