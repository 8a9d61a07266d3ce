// Randomized test: thousands of random add / step / cancel operations on a small pool, with
// prefix sharing and preemption. After every step the plan must respect the budget and the
// sequence cap and agree with the fake executor; at the end no block may be held.

#include <gtest/gtest.h>

#include <random>

#include "tests/runtime/sched/sched_harness.h"

namespace pagedserve::sched::testing {
namespace {

struct random_run {
  std::uint64_t seed = 0;
  scheduling_policy policy = scheduling_policy::fcfs;
  bool prefix_caching = true;
};

class SchedulerRandom : public ::testing::TestWithParam<random_run> {};

request_spec random_request(std::mt19937_64& rng, std::uint64_t id, double now) {
  // Prompts from a few shared stems so the prefix cache gets hits (block size 4).
  static const std::vector<token_id> stems[] = {prompt_of(12, 1), prompt_of(8, 50), {}};
  request_spec spec;
  spec.id = seq_id{id};
  spec.prompt_token_ids = stems[rng() % 3];
  const std::size_t num_own = 1 + rng() % 14;
  for (std::size_t i = 0; i < num_own; ++i) {
    spec.prompt_token_ids.push_back(static_cast<token_id>(rng() % 5));
  }
  spec.max_tokens = static_cast<std::uint32_t>(1 + rng() % 24);
  spec.priority = static_cast<std::int32_t>(rng() % 3);
  spec.arrival_time = now;
  return spec;
}

TEST_P(SchedulerRandom, NoLeakAndEveryPlanWithinLimits) {
  const random_run run = GetParam();
  scheduler_config config = tiny_config(24);  // 96 slots: sequences of up to 50 tokens
  config.max_num_seqs = 6;
  config.max_num_batched_tokens = 24;
  config.long_prefill_token_threshold = 10;
  config.max_model_len = 64;
  config.policy = run.policy;
  config.enable_prefix_caching = run.prefix_caching;
  config.watermark = 0.05;
  harness h(config);
  std::mt19937_64 rng(run.seed);
  std::uint64_t next_id = 0;
  std::uint64_t num_steps = 0;
  for (int op = 0; op < 4000; ++op) {
    const std::uint64_t dice = rng() % 10;
    if (dice < 3) {
      ASSERT_TRUE(h.sched.add_request(random_request(rng, next_id++, h.now), h.now).ok());
    } else if (dice < 4 && next_id > 0) {
      (void)h.sched.cancel(seq_id{rng() % next_id}, h.now);
    } else if (h.sched.has_unfinished()) {
      const step_plan plan = h.step();
      ++num_steps;
      ASSERT_LE(plan.num_batched_tokens, config.max_num_batched_tokens);
      ASSERT_LE(plan.scheduled.size(), config.max_num_seqs);
      ASSERT_LE(plan.stats.num_running, config.max_num_seqs);
      std::uint32_t sum = 0;
      for (const scheduled_sequence& s : plan.scheduled) {
        ASSERT_GT(s.num_scheduled_tokens, 0u);
        ASSERT_LE(s.num_scheduled_tokens, config.long_prefill_token_threshold);
        sum += s.num_scheduled_tokens;
      }
      ASSERT_EQ(sum, plan.num_batched_tokens);
      ASSERT_LE(plan.stats.num_kv_tokens_held, plan.stats.num_kv_slots_allocated);
      ASSERT_EQ(h.executor.num_protocol_errors(), 0u);
    }
  }
  run_to_end(h);
  EXPECT_EQ(h.sched.kv().num_blocks_held(), 0u);
  EXPECT_EQ(h.sched.num_running(), 0u);
  EXPECT_EQ(h.sched.num_waiting(), 0u);
  EXPECT_EQ(num_finished(h.sched.take_events()), next_id);
  EXPECT_GT(num_steps, 1000u);
  EXPECT_GT(h.sched.totals().num_preemptions, 0u) << "the pool should be tight enough";
  if (run.prefix_caching) {
    EXPECT_GT(h.sched.kv().stats().hits, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, SchedulerRandom,
                         ::testing::Values(random_run{1, scheduling_policy::fcfs, true},
                                           random_run{2, scheduling_policy::priority, true},
                                           random_run{3, scheduling_policy::fcfs, false},
                                           random_run{4, scheduling_policy::priority, false}));

}  // namespace
}  // namespace pagedserve::sched::testing
