// Speculative decoding in the scheduler: lookahead slots for decoding sequences, runs of
// several tokens applied at once, and the lookahead blocks that rejected proposals leave
// unused going back to the pool. The fake executor verifies greedily (its proposals are its
// own next tokens for a stretch, then a wrong one), so with speculation every request must
// produce exactly the tokens it produces without, through preemption, prefix hits and two
// steps in flight.

#include <gtest/gtest.h>

#include <deque>
#include <map>

#include "tests/runtime/sched/sched_harness.h"

namespace pagedserve::sched::testing {
namespace {

scheduler_config speculative_config(std::uint32_t num_blocks, std::uint32_t block_size,
                                    std::uint32_t depth) {
  scheduler_config config = tiny_config(num_blocks, block_size);
  config.num_speculative_tokens = depth;
  // The mechanics at fixed depth; the depth policy has its own test (speculation_depth_test,
  // which the adaptive scheduler's first steps, measuring t before any slot, would skip).
  config.adaptive_speculation = false;
  return config;
}

TEST(SchedulerSpeculation, LookaheadSlotsAreAllocatedAndRejectedOnesGoBack) {
  harness h(speculative_config(32, 2, 4));
  const seq_id seq = h.add(0, 5, 20);
  h.step();  // prefill: 5 prompt tokens, samples output 1
  const step_plan plan = h.sched.schedule(h.now);
  ASSERT_EQ(plan.scheduled.size(), 1u);
  const scheduled_sequence& entry = plan.scheduled[0];
  EXPECT_EQ(entry.first_position, 5u);
  EXPECT_EQ(entry.num_scheduled_tokens, 1u);
  // An idle engine's step is memory-bound: every slot pays.
  EXPECT_EQ(entry.num_speculative_tokens, 4u);
  // Positions 5 (the scheduled token) and 6..9 (the slots): 10 tokens, 5 blocks.
  EXPECT_EQ(h.sched.kv().block_table(seq).size(), 5u);
  EXPECT_FALSE(h.sched.can_plan()) << "its step in flight adds an unknown number of tokens";
  // Every proposal rejected: one token (the correction).
  step_output out;
  out.step = plan.step;
  out.sampled.emplace_back(seq, 77);
  out.sampled.back().num_draft_tokens = 4;
  const std::uint32_t free_before = h.sched.kv().num_free_blocks();
  h.sched.update_from_output(out, h.now);
  const sequence& s = *h.sched.find(seq);
  EXPECT_EQ(s.num_tokens(), 7u);
  EXPECT_EQ(s.num_computed_tokens(), 6u);
  EXPECT_EQ(h.sched.kv().block_table(seq).size(), 4u) << "7 tokens need 4 blocks of 2";
  EXPECT_EQ(h.sched.kv().num_free_blocks(), free_before + 1);
  // The next entry tells the executor where the table was cut.
  const step_plan next = h.sched.schedule(h.now);
  ASSERT_EQ(next.scheduled.size(), 1u);
  EXPECT_EQ(next.scheduled[0].first_position, 6u);
  EXPECT_EQ(next.scheduled[0].first_block_index, 4u);
}

TEST(SchedulerSpeculation, AcceptedTokensCountAsComputedAndStopEndsTheRun) {
  scheduler_config config = speculative_config(32, 4, 3);
  harness h(config);
  request_spec spec;
  spec.id = seq_id{1};
  spec.prompt_token_ids = prompt_of(6, 500);
  spec.max_tokens = 30;
  spec.stop_token_ids = {55};
  ASSERT_TRUE(h.sched.add_request(spec, h.now).ok());
  h.step();
  step_plan plan = h.sched.schedule(h.now);
  ASSERT_EQ(plan.scheduled.at(0).num_speculative_tokens, 3u);
  step_output out;
  out.step = plan.step;
  for (token_id t : {11, 12, 13, 14}) out.sampled.emplace_back(seq_id{1}, t);  // all 3 + bonus
  out.sampled[0].num_draft_tokens = 3;
  h.sched.update_from_output(out, h.now);
  const sequence& s = *h.sched.find(seq_id{1});
  EXPECT_EQ(s.num_output_tokens(), 5u);
  EXPECT_EQ(s.num_computed_tokens(), s.num_tokens() - 1);
  plan = h.sched.schedule(h.now);
  EXPECT_EQ(plan.scheduled.at(0).first_position, s.num_tokens() - 1);
  out = {};
  out.step = plan.step;
  out.sampled.emplace_back(seq_id{1}, 21);
  out.sampled.emplace_back(seq_id{1}, 55);  // accepted, and a stop: the run ends here
  out.sampled[0].num_draft_tokens = 3;
  h.sched.update_from_output(out, h.now);
  EXPECT_EQ(h.sched.find(seq_id{1}), nullptr);
  const auto events = h.sched.take_events();
  const auto* finished = std::get_if<request_finished>(&events.back());
  ASSERT_NE(finished, nullptr);
  EXPECT_EQ(finished->reason, finish_reason::stop);
  EXPECT_EQ(finished->num_output_tokens, 7u);
  EXPECT_EQ(h.sched.kv().num_blocks_held(), 0u);
}

TEST(SchedulerSpeculation, SlotsNeverPassMaxTokens) {
  harness h(speculative_config(32, 4, 8));
  const seq_id seq = h.add(0, 4, 3);
  h.step();  // output 1 of 3
  const step_plan plan = h.sched.schedule(h.now);
  // This step samples one token and may add one more: two more outputs in all.
  EXPECT_EQ(plan.scheduled.at(0).num_speculative_tokens, 1u);
  h.finish(plan);
  EXPECT_EQ(h.sched.find(seq), nullptr) << "the fake executor accepts or not; either way";
}

// Two steps in flight when it can, as the engine runs.
struct pipeline {
  explicit pipeline(scheduler_config config) : h(config) {}
  bool plan() {
    if (h.sched.num_steps_in_flight() >= k_max_steps_in_flight || !h.sched.can_plan()) return false;
    outputs.push_back(h.executor.run(h.sched.schedule(h.now)));
    for (const sampled_token& s : outputs.back().sampled) tokens[s.seq.value()].push_back(s.token);
    return true;
  }
  void apply_oldest() {
    h.now += 1.0;
    h.sched.update_from_output(outputs.front(), h.now);
    outputs.pop_front();
  }
  harness h;
  std::deque<step_output> outputs;
  std::map<std::uint64_t, std::vector<token_id>> tokens;
};

request_spec spec_of(std::uint64_t id) {
  request_spec spec;
  spec.id = seq_id{id};
  spec.prompt_token_ids = prompt_of(8, id % 2 == 0 ? 1 : 40);  // shared stems: prefix hits
  for (std::uint64_t i = 0; i < 1 + id % 7; ++i) {
    spec.prompt_token_ids.push_back(static_cast<token_id>(id));
  }
  spec.max_tokens = static_cast<std::uint32_t>(3 + id % 13);
  spec.arrival_time = static_cast<double>(id);
  return spec;
}

std::map<std::uint64_t, std::vector<token_id>> run(std::uint32_t depth, std::uint64_t& accepted,
                                                   std::uint64_t& preemptions) {
  scheduler_config config = speculative_config(18, 4, depth);
  config.max_num_seqs = 5;
  config.max_num_batched_tokens = 24;
  config.long_prefill_token_threshold = 8;
  config.max_model_len = 64;
  config.enable_prefix_caching = true;
  pipeline p(config);
  for (std::uint64_t i = 0; i < 30; ++i) EXPECT_TRUE(p.h.sched.add_request(spec_of(i), 0.0).ok());
  for (int guard = 0; guard < 100000 && (p.h.sched.has_unfinished() || !p.outputs.empty());
       ++guard) {
    if (!p.plan()) p.apply_oldest();
    p.h.sched.kv().check_invariants();
  }
  EXPECT_FALSE(p.h.sched.has_unfinished());
  EXPECT_EQ(p.h.executor.num_protocol_errors(), 0u);
  EXPECT_EQ(p.h.sched.kv().num_blocks_held(), 0u);
  accepted = 0;
  for (const auto& [id, t] : p.tokens) accepted += t.size();
  accepted -= p.tokens.size();
  preemptions = p.h.sched.totals().num_preemptions;
  return p.tokens;
}

TEST(SchedulerSpeculation, SameTokensAsWithoutSpeculationUnderPreemptionAndPipelining) {
  std::uint64_t tokens_without = 0;
  std::uint64_t preemptions = 0;
  const auto without = run(0, tokens_without, preemptions);
  std::uint64_t tokens_with = 0;
  const auto with = run(4, tokens_with, preemptions);
  EXPECT_EQ(with, without);
  EXPECT_GT(preemptions, 0u) << "the pool should force preemptions";
  for (std::uint64_t i = 0; i < 30; ++i) {
    EXPECT_EQ(with.at(i).size(), spec_of(i).max_tokens) << "request " << i;
  }
}

}  // namespace
}  // namespace pagedserve::sched::testing
