// Pipelined scheduling: step N+1 is planned before step N's output is applied (two steps in
// flight), as the engine runs. The fake executor samples from a hash of the whole context,
// so every request must produce exactly the tokens it produces when steps strictly
// alternate — whatever the preemptions, prefix hits and cancellations in between.

#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <random>

#include "tests/runtime/sched/sched_harness.h"

namespace pagedserve::sched::testing {
namespace {

// Keeps up to two steps in flight: plans while it can, applies the oldest output otherwise.
struct pipeline {
  explicit pipeline(scheduler_config config) : h(config) {}

  // Plans one more step if allowed and useful; false otherwise.
  bool plan() {
    if (h.sched.num_steps_in_flight() >= k_max_steps_in_flight) return false;
    if (!h.sched.can_plan()) return false;
    plans.push_back(h.sched.schedule(h.now));
    outputs.push_back(h.executor.run(plans.back()));
    return true;
  }
  void apply_oldest() {
    h.now += 1.0;
    h.sched.update_from_output(outputs.front(), h.now);
    outputs.pop_front();
    record_outputs();
  }
  void step() {
    if (!plan() && !outputs.empty()) apply_oldest();
  }
  void run_to_end() {
    for (int i = 0; i < 100000 && (h.sched.has_unfinished() || !outputs.empty()); ++i) step();
    ASSERT_FALSE(h.sched.has_unfinished());
  }
  void record_outputs() {
    for (const scheduler_event& e : h.sched.take_events()) {
      if (const auto* f = std::get_if<request_finished>(&e)) finished[f->at.seq.value()] = *f;
    }
  }

  harness h;
  std::vector<step_plan> plans;
  std::deque<step_output> outputs;
  std::map<std::uint64_t, request_finished> finished;
};

scheduler_config tight_config() {
  scheduler_config config = tiny_config(20);
  config.max_num_seqs = 5;
  config.max_num_batched_tokens = 20;
  config.long_prefill_token_threshold = 8;
  config.max_model_len = 64;
  config.enable_prefix_caching = true;
  return config;
}

request_spec spec_of(std::uint64_t id, std::size_t len, std::uint32_t max_tokens) {
  request_spec spec;
  spec.id = seq_id{id};
  // Two shared stems so the prefix cache is exercised.
  spec.prompt_token_ids = prompt_of(8, id % 2 == 0 ? 1 : 40);
  for (std::size_t i = 0; i < len; ++i) spec.prompt_token_ids.push_back(static_cast<token_id>(id));
  spec.max_tokens = max_tokens;
  spec.arrival_time = static_cast<double>(id);
  return spec;
}

// Every sampled token of every sequence, in order. Without EOS and cancellations no sample
// is ever discarded, so these are exactly the requests' outputs.
void collect(const step_output& output, std::map<std::uint64_t, std::vector<token_id>>& into) {
  for (const sampled_token& s : output.sampled) into[s.seq.value()].push_back(s.token);
}

TEST(SchedulerPipeline, SameTokensAsAlternatingStepsUnderPreemption) {
  const int num_requests = 24;
  // Reference: strictly alternating steps.
  harness ref(tight_config());
  std::map<std::uint64_t, std::vector<token_id>> expected;
  for (int i = 0; i < num_requests; ++i) {
    ASSERT_TRUE(ref.sched.add_request(spec_of(i, 3 + i % 9, 4 + i % 11), 0.0).ok());
  }
  while (ref.sched.has_unfinished()) {
    const step_plan plan = ref.sched.schedule(ref.now);
    const step_output out = ref.executor.run(plan);
    collect(out, expected);
    ref.sched.update_from_output(out, ref.now);
  }
  pipeline p(tight_config());
  std::map<std::uint64_t, std::vector<token_id>> got;
  for (int i = 0; i < num_requests; ++i) {
    ASSERT_TRUE(p.h.sched.add_request(spec_of(i, 3 + i % 9, 4 + i % 11), 0.0).ok());
  }
  int num_overlapped = 0;
  for (int guard = 0; guard < 100000 && (p.h.sched.has_unfinished() || !p.outputs.empty());
       ++guard) {
    if (p.plan()) {
      collect(p.outputs.back(), got);
      num_overlapped += p.h.sched.num_steps_in_flight() == 2 ? 1 : 0;
    } else {
      p.apply_oldest();
    }
  }
  EXPECT_FALSE(p.h.sched.has_unfinished());
  EXPECT_EQ(p.h.executor.num_protocol_errors(), 0u);
  EXPECT_GT(num_overlapped, 10) << "steps should overlap";
  EXPECT_GT(p.h.sched.totals().num_preemptions, 0u) << "the pool should force preemptions";
  EXPECT_EQ(p.h.sched.kv().num_blocks_held(), 0u);
  ASSERT_EQ(got.size(), static_cast<std::size_t>(num_requests));
  EXPECT_EQ(got, expected);
  for (int i = 0; i < num_requests; ++i) {
    EXPECT_EQ(got[static_cast<std::uint64_t>(i)].size(), 4u + i % 11) << "request " << i;
  }
  EXPECT_EQ(p.finished.size(), static_cast<std::size_t>(num_requests));
}

TEST(SchedulerPipeline, LastTokenPendingIsNotPlannedAgain) {
  harness h(tiny_config(16));
  const seq_id seq = h.add(0, 4, 2);
  const step_plan first = h.sched.schedule(h.now);  // prefill, samples output 1 of 2
  ASSERT_TRUE(first.scheduled.at(0).samples);
  const step_plan second = h.sched.schedule(h.now);  // decodes the pending token: output 2
  ASSERT_EQ(second.scheduled.size(), 1u);
  EXPECT_EQ(second.scheduled[0].first_position, 4u);
  EXPECT_TRUE(second.scheduled[0].samples);
  h.sched.update_from_output(h.executor.run(first), h.now);
  EXPECT_FALSE(h.sched.can_plan()) << "its last token is pending: nothing to plan";
  const step_plan third = h.sched.schedule(h.now);
  EXPECT_TRUE(third.scheduled.empty());
  h.sched.update_from_output(h.executor.run(second), h.now);
  h.sched.update_from_output(h.executor.run(third), h.now);
  EXPECT_EQ(h.sched.find(seq_id{0}), nullptr);
  EXPECT_EQ(h.sched.kv().num_blocks_held(), 0u);
  (void)seq;
}

TEST(SchedulerPipeline, StopInStepNDiscardsItsWorkInStepNPlusOne) {
  harness h(tiny_config(16));
  request_spec spec;
  spec.id = seq_id{7};
  spec.prompt_token_ids = prompt_of(5, 300);
  spec.max_tokens = 10;
  // The fake executor's first sample for this prompt, made the EOS.
  std::uint64_t hash = 0;
  for (token_id t : spec.prompt_token_ids) hash = sim::fake_executor::extend_hash(hash, t);
  spec.eos_token_id = sim::fake_executor::next_token(hash);
  ASSERT_TRUE(h.sched.add_request(spec, h.now).ok());
  const step_plan first = h.sched.schedule(h.now);
  const step_plan second = h.sched.schedule(h.now);  // planned before the EOS is known
  ASSERT_EQ(second.scheduled.size(), 1u);
  const step_output first_out = h.executor.run(first);
  const step_output second_out = h.executor.run(second);
  h.sched.update_from_output(first_out, h.now);
  EXPECT_EQ(h.sched.find(seq_id{7}), nullptr) << "stopped on EOS";
  EXPECT_EQ(h.sched.kv().num_blocks_held(), 0u) << "blocks back while step N+1 still runs";
  h.sched.update_from_output(second_out, h.now);  // the wasted entry is ignored
  const step_plan third = h.sched.schedule(h.now);
  EXPECT_EQ(ids(third.finished), std::vector<std::uint64_t>{first.scheduled[0].seq.value()});
  const auto events = h.sched.take_events();
  const auto* finished = std::get_if<request_finished>(&events.back());
  ASSERT_NE(finished, nullptr);
  EXPECT_EQ(finished->reason, finish_reason::stop);
  EXPECT_EQ(finished->num_output_tokens, 1u);
}

TEST(SchedulerPipeline, RandomOperationsWithTwoStepsInFlightLeakNothing) {
  scheduler_config config = tight_config();
  pipeline p(config);
  std::mt19937_64 rng(11);
  std::uint64_t next_id = 0;
  for (int op = 0; op < 3000; ++op) {
    const std::uint64_t dice = rng() % 10;
    if (dice < 3) {
      ASSERT_TRUE(p.h.sched
                      .add_request(spec_of(next_id, 1 + rng() % 12,
                                           static_cast<std::uint32_t>(1 + rng() % 20)),
                                   p.h.now)
                      .ok());
      ++next_id;
    } else if (dice < 4 && next_id > 0) {
      (void)p.h.sched.cancel(seq_id{rng() % next_id}, p.h.now);
    } else {
      p.step();
    }
    ASSERT_EQ(p.h.executor.num_protocol_errors(), 0u);
  }
  p.run_to_end();
  EXPECT_EQ(p.h.sched.kv().num_blocks_held(), 0u);
  EXPECT_EQ(p.finished.size(), next_id);
}

}  // namespace
}  // namespace pagedserve::sched::testing
