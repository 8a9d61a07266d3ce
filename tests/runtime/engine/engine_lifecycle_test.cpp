// request_lifecycle events through engine_core, without actors: the fake executor
// (sim/fake_executor.h) stands in for the model and each test drives the steps itself.
//
// The expected figures come from the scheduler's and the block pool's documented rules,
// worked out by hand in each test, not from running the code:
//  - prefix cache hits: get_computed_blocks (runtime/kv/kv_cache_manager.cpp) matches whole
//    cached blocks of the tokens, at most (num_tokens - 1) / block_size of them, "so the last
//    prompt token is always computed": cached = floor((num_tokens - 1) / block_size) *
//    block_size when every such block is in the cache;
//  - a step's full blocks enter the cache when its output is applied (scheduler_update.cpp);
//  - preemption (scheduler_schedule.cpp): the victim is the newest running sequence, it
//    loses its num_computed_tokens, its blocks go back to the pool tail first (kv free),
//    and an allocation takes the pool's oldest free block, evicting its cache entry.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <variant>
#include <vector>

#include "tests/runtime/engine/lifecycle_driver.h"

namespace pagedserve::lifecycle_test {
namespace {

TEST(EngineLifecycle, QueuedThenScheduledPrecedeTheFirstTokenAndFinishedPrecedesTheFinal) {
  driver d(setup_with(64));
  d.now = 0.5;
  const auto id = d.submit(request_of(prompt_of(10, 7), 4), 1);
  ASSERT_TRUE(id.ok());
  d.now = 0.75;
  d.run_overlapped();
  EXPECT_EQ(d.kinds(1), concat({{"queued", "scheduled"}, chunks(4), {"finished", "final"}}));
  const request_lifecycle& queued = d.first(1, lifecycle_stage::queued);
  EXPECT_EQ(queued.request, *id);
  EXPECT_EQ(queued.step, 0u) << "the step the next plan gets";
  EXPECT_DOUBLE_EQ(queued.time, 0.5);
  const request_lifecycle& scheduled = d.first(1, lifecycle_stage::scheduled);
  EXPECT_EQ(scheduled.step, 0u);
  EXPECT_DOUBLE_EQ(scheduled.time, 0.75);
  EXPECT_EQ(scheduled.num_cached_tokens, 0u) << "an empty prefix cache";
  // Token 4 is sampled by step 3 (prefill samples token 1); the engine stops there.
  EXPECT_EQ(d.first(1, lifecycle_stage::finished).step, 3u);
}

TEST(EngineLifecycle, NothingForARequestThatDidNotAsk) {
  driver d(setup_with(64));
  ASSERT_TRUE(d.submit(request_of(prompt_of(10, 7), 4, false), 1).ok());
  ASSERT_TRUE(d.submit(request_of(prompt_of(9, 70), 3, true), 2).ok());
  d.run_overlapped();
  EXPECT_EQ(d.kinds(1), concat({chunks(4), {"final"}}));
  EXPECT_EQ(d.kinds(2), concat({{"queued", "scheduled"}, chunks(3), {"finished", "final"}}));
}

TEST(EngineLifecycle, ASecondIdenticalPromptFindsItsFullBlocksInThePrefixCache) {
  driver d(setup_with(64));
  // 10 tokens: floor(9 / 4) = 2 blocks = 8 tokens; 12 tokens (block-aligned): floor(11 / 4)
  // = 2 blocks too, the whole last block is recomputed for the last token's logits.
  for (const std::size_t len : {10u, 12u}) {
    const sink_id first = static_cast<sink_id>(len);
    const sink_id second = first + 100;
    const auto prompt = prompt_of(len, static_cast<token_id>(1000 * len));
    ASSERT_TRUE(d.submit(request_of(prompt, 3), first).ok());
    d.run_overlapped();
    ASSERT_TRUE(d.submit(request_of(prompt, 3), second).ok());
    d.run_overlapped();
    EXPECT_EQ(d.first(first, lifecycle_stage::scheduled).num_cached_tokens, 0u) << len;
    EXPECT_EQ(d.first(second, lifecycle_stage::scheduled).num_cached_tokens, 8u) << len;
    EXPECT_EQ(d.final_of(second).usage.cached_prompt_tokens, 8u) << len;
  }
}

TEST(EngineLifecycle, EachOfNCompletionsReportsItsOwnLifecycle) {
  driver d(setup_with(64));
  generation_request r = request_of(prompt_of(10, 7), 3);
  r.sampling.n = 3;
  ASSERT_TRUE(d.submit(r, 1).ok());
  d.run_overlapped();
  const auto whole = concat({{"queued", "scheduled"}, chunks(3), {"finished", "final"}});
  for (std::uint32_t i = 0; i < 3; ++i) {
    EXPECT_EQ(d.kinds(1, i), whole) << "completion " << i;
    for (const request_lifecycle& l : d.lifecycle(1, i)) EXPECT_EQ(l.index, i);
  }
  EXPECT_EQ(d.first(1, lifecycle_stage::scheduled, 0).num_cached_tokens, 0u);
  // The siblings are queued by completion 0's first token (output of step 0, applied while
  // steps 0 and 1 are planned: an arrival names the next plan's step, 2, runtime/sched/
  // events.h) and then find its prompt's full blocks cached: floor(9 / 4) * 4 = 8.
  for (std::uint32_t i = 1; i < 3; ++i) {
    EXPECT_EQ(d.first(1, lifecycle_stage::queued, i).step, 2u);
    EXPECT_EQ(d.first(1, lifecycle_stage::scheduled, i).num_cached_tokens, 8u);
  }
  // Completion 0's first chunk comes before any sibling's queued event.
  const auto& all = d.received.at(1);
  const auto first_chunk = std::find_if(all.begin(), all.end(), [](const engine_event& e) {
    return std::holds_alternative<token_chunk>(e);
  });
  const auto first_sibling = std::find_if(all.begin(), all.end(), [](const engine_event& e) {
    const auto* l = std::get_if<request_lifecycle>(&e);
    return l != nullptr && l->index > 0;
  });
  EXPECT_LT(first_chunk - all.begin(), first_sibling - all.begin());
}

// 6 blocks of 4 tokens. A (prompt 8, 6 tokens) and B (prompt 8, 12 tokens) both prefill in
// step 0 (2 blocks each; B's admission keeps ceil(0.01 * 6) = 1 block free: 4 free >= 2 + 1)
// and take their third block in step 1 (position 8): the pool is full. Steps 2-4 fill
// positions 9-11. Step 5: A needs position 12, a fourth block; none is free, so the newest
// running sequence, B, is preempted with 12 computed tokens (positions 0-11) lost. Its 3
// blocks, all full and cached (steps 0 and 4 filled them), go back tail first: A takes B's
// third block, evicting it. A samples its 6th token in step 5 and finishes; step 6 resumes
// B (13 tokens): blocks 0 and 1 are still cached, block 2 is gone: 8 cached tokens.
TEST(EngineLifecycle, APreemptionReportsTheTokensLostAndTheResumeItsCacheHit) {
  driver d(setup_with(6));
  ASSERT_TRUE(d.submit(request_of(prompt_of(8, 100), 6), 1).ok());
  ASSERT_TRUE(d.submit(request_of(prompt_of(8, 500), 12), 2).ok());
  d.run_one_step_at_a_time();
  ASSERT_EQ(d.core.stats().num_preemptions, 1u);
  EXPECT_EQ(d.kinds(1), concat({{"queued", "scheduled"}, chunks(6), {"finished", "final"}}));
  EXPECT_EQ(d.kinds(2), concat({{"queued", "scheduled"},
                                chunks(5),
                                {"preempted", "resumed"},
                                chunks(7),
                                {"finished", "final"}}));
  const request_lifecycle& preempted = d.first(2, lifecycle_stage::preempted);
  EXPECT_EQ(preempted.step, 5u);
  EXPECT_EQ(preempted.num_computed_tokens_lost, 12u);
  const request_lifecycle& resumed = d.first(2, lifecycle_stage::resumed);
  EXPECT_EQ(resumed.step, 6u);
  EXPECT_EQ(resumed.num_cached_tokens, 8u);
  EXPECT_EQ(d.final_of(2).usage.completion_tokens, 12u);
}

// With two steps in flight a preemption is planned while the step before it still runs;
// whatever the interleaving, each stream keeps the documented order.
TEST(EngineLifecycle, UnderOverlapAndManyPreemptionsEveryStreamKeepsTheOrder) {
  driver d(setup_with(12));  // tight: forces preemptions
  constexpr int num_requests = 10;
  for (int i = 0; i < num_requests; ++i) {
    const auto prompt = prompt_of(5 + i % 7, static_cast<token_id>(100 * (i + 1)));
    ASSERT_TRUE(d.submit(request_of(prompt, 8 + i % 5), i).ok());
  }
  d.run_overlapped();
  ASSERT_GT(d.core.stats().num_preemptions, 0u) << "the pool should be tight enough";
  std::uint64_t num_preempted = 0;
  for (int i = 0; i < num_requests; ++i) {
    const std::vector<std::string> kinds = d.kinds(i);
    ASSERT_GE(kinds.size(), 4u);
    EXPECT_EQ(kinds[0], "queued") << "sink " << i;
    EXPECT_EQ(kinds[1], "scheduled") << "sink " << i;
    EXPECT_EQ(kinds[kinds.size() - 2], "finished") << "sink " << i;
    EXPECT_EQ(kinds.back(), "final") << "sink " << i;
    bool off = false;  // between preempted and resumed: no token may arrive
    for (const std::string& k : kinds) {
      if (k == "preempted") ++num_preempted;
      if (k == "preempted") off = true;
      if (k == "resumed") off = false;
      EXPECT_FALSE(off && k == "chunk") << "a token while preempted, sink " << i;
    }
    std::uint64_t step = 0;
    for (const request_lifecycle& l : d.lifecycle(i)) {
      EXPECT_GE(l.step, step) << "sink " << i;
      step = l.step;
      if (l.stage == lifecycle_stage::resumed) {
        EXPECT_EQ(l.num_cached_tokens % 4, 0u) << "whole blocks";
      }
      if (l.stage == lifecycle_stage::preempted) {
        EXPECT_GT(l.num_computed_tokens_lost, 0u);
      }
    }
  }
  // A preemption planned after the step that ended its sequence is not reported.
  EXPECT_LE(num_preempted, d.core.stats().num_preemptions);
  EXPECT_GT(num_preempted, 0u);
}

TEST(EngineLifecycle, CancelEndsWithFinishedThenTheCancelledFinal) {
  driver d(setup_with(64));
  const auto running = d.submit(request_of(prompt_of(9, 40), 50), 1);
  ASSERT_TRUE(running.ok());
  ASSERT_TRUE(d.plan_one());
  d.apply_one();
  ASSERT_TRUE(d.plan_one());  // steps 1 and 2 in flight
  ASSERT_TRUE(d.plan_one());
  d.cancel(*running);
  EXPECT_EQ(d.kinds(1), concat({{"queued", "scheduled"}, chunks(1), {"finished", "final"}}));
  EXPECT_EQ(d.first(1, lifecycle_stage::finished).step, 3u) << "the next plan's step";
  EXPECT_EQ(d.final_of(1).reason, finish_reason::cancelled);
  // Cancelled while waiting: it was queued, never scheduled.
  const auto waiting = d.submit(request_of(prompt_of(9, 900), 8), 2);
  ASSERT_TRUE(waiting.ok());
  d.cancel(*waiting);
  EXPECT_EQ(d.kinds(2), (std::vector<std::string>{"queued", "finished", "final"}));
  d.run_overlapped();
  EXPECT_EQ(d.kinds(1).back(), "final") << "nothing after the final";
}

TEST(EngineLifecycle, AFailedStepEndsWithFinishedThenTheErrorFinal) {
  driver d(setup_with(64));
  ASSERT_TRUE(d.submit(request_of(prompt_of(5, 10), 6), 1).ok());
  ASSERT_TRUE(d.plan_one());  // step 0: prefill
  d.apply_one();
  ASSERT_TRUE(d.plan_one());  // step 1: decode, fails
  d.fail_oldest();
  EXPECT_EQ(d.kinds(1), concat({{"queued", "scheduled"}, chunks(1), {"finished", "final"}}));
  EXPECT_EQ(d.first(1, lifecycle_stage::finished).step, 1u);
  EXPECT_EQ(d.final_of(1).reason, finish_reason::error);
}

// The scheduler's events of a planned step wait for its output; a submit in between must not
// drop them (it once did: the admission's cached-token count was lost).
TEST(EngineLifecycle, ASubmitBetweenPlanAndApplyLosesNoEvent) {
  driver d(setup_with(64));
  const auto prompt = prompt_of(10, 7);
  ASSERT_TRUE(d.submit(request_of(prompt, 2), 1).ok());
  d.run_overlapped();
  ASSERT_TRUE(d.submit(request_of(prompt, 2), 2).ok());
  ASSERT_TRUE(d.plan_one());  // admits sink 2 with 8 cached tokens
  ASSERT_TRUE(d.submit(request_of(prompt_of(6, 300), 2), 3).ok());
  d.run_overlapped();
  EXPECT_EQ(d.first(2, lifecycle_stage::scheduled).num_cached_tokens, 8u);
  EXPECT_EQ(d.final_of(2).usage.cached_prompt_tokens, 8u);
  EXPECT_EQ(d.kinds(3), concat({{"queued", "scheduled"}, chunks(2), {"finished", "final"}}));
}

}  // namespace
}  // namespace pagedserve::lifecycle_test
