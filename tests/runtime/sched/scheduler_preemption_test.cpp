// Scenario tests: what happens when KV blocks run out (preemption), the watermark, and
// requests that can never fit.

#include <gtest/gtest.h>

#include "tests/runtime/sched/sched_harness.h"

namespace pagedserve::sched::testing {
namespace {

using shape_t = std::vector<std::pair<std::uint64_t, std::uint32_t>>;

// Steps until a plan preempts something (or `limit` steps pass); returns that plan.
step_plan step_until_preemption(harness& h, int limit = 64) {
  for (int i = 0; i < limit; ++i) {
    step_plan plan = h.step();
    if (!plan.preempted.empty()) return plan;
  }
  ADD_FAILURE() << "no preemption within " << limit << " steps";
  return {};
}

// Three 4-token prompts in 6 blocks of 4: each grows to 2 blocks (6 used) after step 1;
// at 9 tokens (step 5) seq 0 needs a third block and none is free.
TEST(SchedulerPreemption, FcfsPreemptsTheNewestRunningSequence) {
  harness h(tiny_config(6));
  h.add(0, 4, 20);
  h.add(1, 4, 20);
  h.add(2, 4, 20);
  const step_plan plan = step_until_preemption(h);
  EXPECT_EQ(plan.step, 5u);
  EXPECT_EQ(ids(plan.preempted), std::vector<std::uint64_t>{2});
  // Seq 2's two blocks went to seqs 0 and 1, which continue.
  EXPECT_EQ(shape(plan), (shape_t{{0, 1}, {1, 1}}));
  EXPECT_EQ(entry_for(plan, seq_id{0})->block_ids.size(), 1u);
  EXPECT_EQ(h.sched.num_waiting(), 1u);
  EXPECT_EQ(h.sched.kv().num_blocks_held(), 6u);
  EXPECT_EQ(h.sched.find(seq_id{2})->status(), sequence_status::preempted);
  EXPECT_EQ(h.sched.find(seq_id{2})->num_computed_tokens(), 0u);
  EXPECT_EQ(h.sched.find(seq_id{2})->num_output_tokens(), 5u);  // kept for the resume
}

TEST(SchedulerPreemption, PriorityPolicyPreemptsTheLowestPriorityFirst) {
  scheduler_config config = tiny_config(6);
  config.policy = scheduling_policy::priority;
  harness h(config);
  h.add(0, 4, 20, /*priority=*/0);
  h.add(1, 4, 20, /*priority=*/5);
  h.add(2, 4, 20, /*priority=*/0);  // newest, but more important than seq 1
  const step_plan plan = step_until_preemption(h);
  EXPECT_EQ(ids(plan.preempted), std::vector<std::uint64_t>{1});
  EXPECT_EQ(shape(plan), (shape_t{{0, 1}, {2, 1}}));
}

// Seq 0 (priority 5) runs first; seq 1 (priority 0) joins with two blocks. When seq 1 needs
// a third block, the victim is seq 0, already in this step's plan: it is taken back out.
TEST(SchedulerPreemption, AnAlreadyScheduledVictimLeavesThePlan) {
  scheduler_config config = tiny_config(4);
  config.policy = scheduling_policy::priority;
  harness h(config);
  h.add(0, 4, 8, /*priority=*/5);
  EXPECT_EQ(shape(h.step()), (shape_t{{0, 4}}));
  h.add(1, 8, 8, /*priority=*/0);
  EXPECT_EQ(shape(h.step()), (shape_t{{0, 1}, {1, 8}}));
  const step_plan plan = h.step();
  EXPECT_EQ(ids(plan.preempted), std::vector<std::uint64_t>{0});
  EXPECT_EQ(shape(plan), (shape_t{{1, 1}}));
  EXPECT_EQ(plan.num_batched_tokens, 1u);
}

// Under fcfs the newest sequence is its own victim when it is the one that needs a block:
// it leaves the step, and resumes (recomputing) once the older one has finished.
TEST(SchedulerPreemption, ASequenceThatIsItselfTheVictimIsPreempted) {
  harness h(tiny_config(4));
  h.add(0, 4, 4);
  h.add(1, 8, 8);
  EXPECT_EQ(shape(h.step()), (shape_t{{0, 4}, {1, 8}}));  // 1 + 2 blocks
  const step_plan plan = h.step();                        // 0 takes the last block
  EXPECT_EQ(ids(plan.preempted), std::vector<std::uint64_t>{1});
  EXPECT_EQ(shape(plan), (shape_t{{0, 1}}));
  run_to_end(h);
  EXPECT_EQ(h.sched.kv().num_blocks_held(), 0u);
  EXPECT_EQ(num_finished(h.sched.take_events()), 2u);
  EXPECT_EQ(h.sched.totals().num_preemptions, 1u);
}

// With 7 blocks, step 5 gives seq 0 the free block and preempts seq 2 for seq 1, leaving one
// block free: seq 3 would fit, but a step that preempted admits nothing.
TEST(SchedulerPreemption, NoAdmissionInAStepThatPreempted) {
  harness h(tiny_config(7));
  h.add(0, 4, 20);
  h.add(1, 4, 20);
  h.add(2, 4, 20);
  for (int i = 0; i < 5; ++i) h.step();
  h.add(3, 1, 1);
  const step_plan plan = h.sched.schedule(h.now);
  EXPECT_EQ(ids(plan.preempted), std::vector<std::uint64_t>{2});
  EXPECT_EQ(shape(plan), (shape_t{{0, 1}, {1, 1}}));
  EXPECT_EQ(h.sched.kv().num_blocks_held(), 6u);
  h.finish(plan);
}

TEST(SchedulerPreemption, ResumedSequenceIsSentWithPromptAndOutputsAgain) {
  harness h(tiny_config(6));
  h.add(0, 4, 20);
  h.add(1, 4, 20);
  h.add(2, 4, 6);
  step_until_preemption(h);
  std::optional<scheduled_sequence> resumed;
  while (h.sched.has_unfinished() && !resumed) {
    const step_plan plan = h.step();
    if (const scheduled_sequence* s = entry_for(plan, seq_id{2})) resumed = *s;
  }
  ASSERT_TRUE(resumed.has_value());
  EXPECT_EQ(resumed->kind, schedule_kind::resumed);
  EXPECT_EQ(resumed->first_position, 0u);    // prefix caching off: everything is recomputed
  EXPECT_EQ(resumed->token_ids.size(), 9u);  // 4 prompt + 5 outputs
  EXPECT_EQ(resumed->num_scheduled_tokens, 9u);
  EXPECT_TRUE(resumed->samples);
}

// 100 blocks of 4, watermark 10%: admissions must leave 10 blocks free while others run.
TEST(SchedulerPreemption, WatermarkKeepsBlocksFreeForRunningSequences) {
  for (const double watermark : {0.1, 0.0}) {
    scheduler_config config = tiny_config(100);
    config.max_num_batched_tokens = 1024;
    config.max_model_len = 400;
    config.watermark = watermark;
    harness h(config);
    h.add(0, 40, 4);   // 10 blocks
    h.add(1, 200, 4);  // 50 blocks: 40 left
    h.add(2, 150, 4);  // 38 blocks: would leave 2 < 10
    const step_plan plan = h.step();
    if (watermark > 0) {
      EXPECT_EQ(shape(plan), (shape_t{{0, 40}, {1, 200}}));
    } else {
      EXPECT_EQ(shape(plan), (shape_t{{0, 40}, {1, 200}, {2, 150}}));
    }
  }
}

TEST(SchedulerPreemption, WatermarkDoesNotBlockASequenceWhenNothingRuns) {
  scheduler_config config = tiny_config(100);
  config.max_num_batched_tokens = 1024;
  config.max_model_len = 400;
  config.watermark = 0.1;
  harness h(config);
  h.add(0, 396, 4);  // 99 blocks: more than the 90 the watermark would allow
  EXPECT_EQ(shape(h.step()), (shape_t{{0, 396}}));
}

TEST(SchedulerPreemption, RequestsThatCanNeverFitAreRejectedAsValues) {
  scheduler_config config = tiny_config(8);  // 32 slots
  config.max_model_len = 64;
  harness h(config);
  auto add = [&h](std::uint64_t id, std::size_t prompt_len, std::uint32_t max_tokens) {
    request_spec spec;
    spec.id = seq_id{id};
    spec.prompt_token_ids = prompt_of(prompt_len);
    spec.max_tokens = max_tokens;
    return h.sched.add_request(std::move(spec), 0.0);
  };
  const result<seq_id> too_long = add(0, 60, 10);  // > max_model_len
  ASSERT_FALSE(too_long.ok());
  EXPECT_EQ(too_long.err().code, error_code::capacity_exceeded);
  EXPECT_NE(too_long.err().message.find("max_model_len"), std::string::npos);
  const result<seq_id> too_big = add(1, 30, 10);  // 40 tokens > 32 slots of KV
  ASSERT_FALSE(too_big.ok());
  EXPECT_EQ(too_big.err().code, error_code::capacity_exceeded);
  EXPECT_NE(too_big.err().message.find("KV cache"), std::string::npos);
  EXPECT_EQ(add(2, 0, 10).err().code, error_code::invalid_argument);
  EXPECT_TRUE(add(3, 22, 10).ok());                                  // exactly 32 tokens fits
  EXPECT_EQ(add(3, 4, 4).err().code, error_code::invalid_argument);  // id in use
  EXPECT_EQ(h.sched.totals().num_rejected, 4u);
  EXPECT_EQ(h.sched.num_waiting(), 1u);
  run_to_end(h);  // the request that needs the whole pool runs to completion
  EXPECT_EQ(h.sched.kv().num_blocks_held(), 0u);
}

}  // namespace
}  // namespace pagedserve::sched::testing
