// Scenario tests: which sequences a step schedules, how many tokens each, in what order.

#include <gtest/gtest.h>

#include "tests/runtime/sched/sched_harness.h"

namespace pagedserve::sched::testing {
namespace {

using shape_t = std::vector<std::pair<std::uint64_t, std::uint32_t>>;

TEST(SchedulerOrder, RunningSequencesComeFirstThenNewOnes) {
  harness h(tiny_config(64));
  h.add(0, 5, 3);
  h.add(1, 6, 3);
  const step_plan first = h.step();
  EXPECT_EQ(shape(first), (shape_t{{0, 5}, {1, 6}}));
  EXPECT_EQ(first.scheduled[0].kind, schedule_kind::new_sequence);
  EXPECT_EQ(first.scheduled[0].token_ids, prompt_of(5, 1000));
  EXPECT_EQ(first.scheduled[0].block_ids.size(), 2u);  // 5 tokens in blocks of 4
  EXPECT_TRUE(first.scheduled[0].samples);

  h.add(2, 3, 3);
  const step_plan second = h.step();
  EXPECT_EQ(shape(second), (shape_t{{0, 1}, {1, 1}, {2, 3}}));
  EXPECT_EQ(second.scheduled[0].kind, schedule_kind::continuing);
  EXPECT_EQ(second.scheduled[0].first_position, 5u);
  EXPECT_TRUE(second.scheduled[0].token_ids.empty());   // deltas only
  EXPECT_TRUE(second.scheduled[0].block_ids.empty());   // 6 tokens still fit in 2 blocks
  EXPECT_EQ(second.scheduled[1].block_ids.size(), 0u);  // 7 tokens: 2 blocks
  EXPECT_EQ(second.scheduled[2].kind, schedule_kind::new_sequence);
  EXPECT_EQ(second.num_batched_tokens, 5u);
}

TEST(SchedulerOrder, TokenBudgetCapsTheStepAndChunksTheLastPrompt) {
  scheduler_config config = tiny_config(64);
  config.max_num_batched_tokens = 10;
  harness h(config);
  h.add(0, 8, 4);
  h.add(1, 8, 4);
  const step_plan first = h.step();
  EXPECT_EQ(shape(first), (shape_t{{0, 8}, {1, 2}}));
  EXPECT_TRUE(first.scheduled[0].samples);
  EXPECT_FALSE(first.scheduled[1].samples);  // a non-final chunk yields no token
  const step_plan second = h.step();
  EXPECT_EQ(shape(second), (shape_t{{0, 1}, {1, 6}}));
  EXPECT_EQ(second.scheduled[1].first_position, 2u);
  EXPECT_TRUE(second.scheduled[1].samples);
  EXPECT_LE(second.num_batched_tokens, 10u);
}

TEST(SchedulerOrder, SequenceCapHoldsNewOnesBackUntilOneFinishes) {
  scheduler_config config = tiny_config(64);
  config.max_num_seqs = 2;
  harness h(config);
  h.add(0, 4, 1);  // finishes after its first token
  h.add(1, 4, 5);
  h.add(2, 4, 5);
  const step_plan first = h.step();
  EXPECT_EQ(shape(first), (shape_t{{0, 4}, {1, 4}}));
  EXPECT_EQ(first.stats.num_waiting, 1u);
  const step_plan second = h.step();
  EXPECT_EQ(ids(second.finished), std::vector<std::uint64_t>{0});
  EXPECT_EQ(shape(second), (shape_t{{1, 1}, {2, 4}}));
}

TEST(SchedulerOrder, LongPromptIsChunkedWhileDecodesContinue) {
  scheduler_config config = tiny_config(64);
  config.max_num_batched_tokens = 16;
  config.long_prefill_token_threshold = 4;
  harness h(config);
  h.add(0, 2, 10);
  EXPECT_EQ(shape(h.step()), (shape_t{{0, 2}}));
  h.add(1, 13, 2);
  EXPECT_EQ(shape(h.step()), (shape_t{{0, 1}, {1, 4}}));
  EXPECT_EQ(shape(h.step()), (shape_t{{0, 1}, {1, 4}}));
  EXPECT_EQ(shape(h.step()), (shape_t{{0, 1}, {1, 4}}));
  const step_plan last_chunk = h.step();
  EXPECT_EQ(shape(last_chunk), (shape_t{{0, 1}, {1, 1}}));
  EXPECT_EQ(last_chunk.scheduled[1].first_position, 12u);
  EXPECT_TRUE(last_chunk.scheduled[1].samples);
  EXPECT_EQ(last_chunk.stats.num_prefill_tokens, 1u);  // the decode of seq 0 is not prefill
}

TEST(SchedulerOrder, WithoutChunkedPrefillAPromptWaitsForRoomInTheBudget) {
  scheduler_config config = tiny_config(64);
  config.enable_chunked_prefill = false;
  config.max_num_batched_tokens = 16;
  config.max_model_len = 16;
  harness h(config);
  h.add(0, 10, 4);
  h.add(1, 10, 4);
  EXPECT_EQ(shape(h.step()), (shape_t{{0, 10}}));
  EXPECT_EQ(shape(h.step()), (shape_t{{0, 1}, {1, 10}}));
}

TEST(SchedulerOrder, FcfsAdmitsByArrivalTimeNotByCallOrder) {
  scheduler_config config = tiny_config(64);
  config.max_num_seqs = 1;
  harness h(config);
  h.add(0, 4, 1, 0, 2.0);
  h.add(1, 4, 1, 0, 1.0);
  h.add(2, 4, 1, 0, 3.0);
  EXPECT_EQ(shape(h.step()), (shape_t{{1, 4}}));
  EXPECT_EQ(shape(h.step()), (shape_t{{0, 4}}));
  EXPECT_EQ(shape(h.step()), (shape_t{{2, 4}}));
}

TEST(SchedulerOrder, PriorityPolicyAdmitsSmallestPriorityThenEarliest) {
  for (const scheduling_policy policy : {scheduling_policy::fcfs, scheduling_policy::priority}) {
    scheduler_config config = tiny_config(64);
    config.max_num_seqs = 1;
    config.policy = policy;
    harness h(config);
    h.add(0, 4, 1, /*priority=*/5, 0.0);
    h.add(1, 4, 1, /*priority=*/1, 1.0);
    h.add(2, 4, 1, /*priority=*/1, 0.5);
    std::vector<std::uint64_t> order;
    for (int i = 0; i < 3; ++i) order.push_back(h.step().scheduled.at(0).seq.value());
    if (policy == scheduling_policy::priority) {
      EXPECT_EQ(order, (std::vector<std::uint64_t>{2, 1, 0}));
    } else {
      EXPECT_EQ(order, (std::vector<std::uint64_t>{0, 2, 1}));
    }
  }
}

TEST(SchedulerOrder, PrefixHitStartsAfterTheCachedBlocks) {
  scheduler_config config = tiny_config(64);
  config.enable_prefix_caching = true;
  harness h(config);
  request_spec spec;
  spec.id = seq_id{0};
  spec.prompt_token_ids = prompt_of(12);
  spec.max_tokens = 1;
  ASSERT_TRUE(h.sched.add_request(spec, 0.0).ok());
  h.step();
  spec.id = seq_id{1};
  ASSERT_TRUE(h.sched.add_request(spec, 1.0).ok());
  const step_plan plan = h.step();
  // 12 tokens = 3 full blocks, but the last token must be computed: 2 blocks are reused.
  ASSERT_EQ(plan.scheduled.size(), 1u);
  EXPECT_EQ(plan.scheduled[0].first_position, 8u);
  EXPECT_EQ(plan.scheduled[0].num_scheduled_tokens, 4u);
  EXPECT_EQ(plan.stats.prefix_queries, 12u);
  EXPECT_EQ(plan.stats.prefix_hits, 8u);
}

// vLLM's skip_reading_prefix_cache (prompt logprobs need every position's logits): the same
// prompt starts at position 0 although its blocks are cached, and still leaves them cached.
TEST(SchedulerOrder, SkippingPrefixCacheReadsComputesTheWholePrompt) {
  scheduler_config config = tiny_config(64);
  config.enable_prefix_caching = true;
  harness h(config);
  request_spec spec;
  spec.id = seq_id{0};
  spec.prompt_token_ids = prompt_of(12);
  spec.max_tokens = 1;
  ASSERT_TRUE(h.sched.add_request(spec, 0.0).ok());
  h.step();
  spec.id = seq_id{1};
  spec.skip_reading_prefix_cache = true;
  ASSERT_TRUE(h.sched.add_request(spec, 1.0).ok());
  step_plan plan = h.step();
  ASSERT_EQ(plan.scheduled.size(), 1u);
  EXPECT_EQ(plan.scheduled[0].first_position, 0u);
  EXPECT_EQ(plan.scheduled[0].num_scheduled_tokens, 12u);
  EXPECT_EQ(plan.stats.prefix_hits, 0u);
  spec.id = seq_id{2};
  spec.skip_reading_prefix_cache = false;
  ASSERT_TRUE(h.sched.add_request(spec, 2.0).ok());
  plan = h.step();
  ASSERT_EQ(plan.scheduled.size(), 1u);
  EXPECT_EQ(plan.scheduled[0].first_position, 8u);
}

}  // namespace
}  // namespace pagedserve::sched::testing
