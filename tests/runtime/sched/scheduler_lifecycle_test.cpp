// Scenario tests: a request's life as events, stop conditions, and cancellation.

#include <gtest/gtest.h>

#include <string>

#include "tests/runtime/sched/sched_harness.h"

namespace pagedserve::sched::testing {
namespace {

// "kind@step" for each event of `request`, e.g. "arrived@0".
std::vector<std::string> story(const std::vector<scheduler_event>& events, std::uint64_t request) {
  std::vector<std::string> out;
  for (const scheduler_event& event : events) {
    const event_stamp& at = stamp_of(event);
    if (at.seq.value() != request) continue;
    const std::string kind = std::visit(
        [](const auto& e) -> std::string {
          using type = std::decay_t<decltype(e)>;
          if constexpr (std::is_same_v<type, request_arrived>) return "arrived";
          if constexpr (std::is_same_v<type, request_scheduled>) return "scheduled";
          if constexpr (std::is_same_v<type, first_token>) return "first_token";
          if constexpr (std::is_same_v<type, request_preempted>) return "preempted";
          if constexpr (std::is_same_v<type, request_resumed>) return "resumed";
          if constexpr (std::is_same_v<type, request_finished>) {
            return "finished:" + std::string(to_string(e.reason));
          }
        },
        event);
    out.push_back(kind + "@" + std::to_string(at.step));
  }
  return out;
}

TEST(SchedulerLifecycle, EventsTellEachRequestsStoryWithStepsAndTimes) {
  harness h(tiny_config(6));
  h.add(0, 4, 20);
  h.add(1, 4, 20);
  h.add(2, 4, 6);
  run_to_end(h);
  const std::vector<scheduler_event> events = h.sched.take_events();
  EXPECT_EQ(story(events, 0), (std::vector<std::string>{"arrived@0", "scheduled@0", "first_token@0",
                                                        "finished:length@19"}));
  const std::vector<std::string> preempted = story(events, 2);
  ASSERT_EQ(preempted.size(), 6u);
  EXPECT_EQ(preempted[0], "arrived@0");
  EXPECT_EQ(preempted[1], "scheduled@0");
  EXPECT_EQ(preempted[2], "first_token@0");
  EXPECT_EQ(preempted[3], "preempted@5");
  EXPECT_EQ(preempted[4].substr(0, 8), "resumed@");
  EXPECT_EQ(preempted[5].substr(0, 16), "finished:length@");
  // Times are the caller's: the harness adds at 0 and ends step k at k + 1.
  for (const scheduler_event& event : events) {
    if (const auto* token = std::get_if<first_token>(&event)) {
      EXPECT_DOUBLE_EQ(token->at.time, static_cast<double>(token->at.step) + 1.0);
    }
  }
  EXPECT_TRUE(h.sched.take_events().empty());
}

TEST(SchedulerLifecycle, EosAndStopTokensEndGenerationUnlessEosIsIgnored) {
  // The fake executor's first token after a context is fixed: use it as EOS / stop token.
  harness probe(tiny_config(16));
  probe.add(0, 4, 8);
  probe.step();
  const token_id first = probe.sched.find(seq_id{0})->output_token_ids()[0];

  for (const int variant : {0, 1, 2}) {
    harness h(tiny_config(16));
    request_spec spec;
    spec.id = seq_id{0};
    spec.prompt_token_ids = prompt_of(4, 1000);
    spec.max_tokens = 8;
    if (variant == 0) spec.eos_token_id = first;
    if (variant == 1) {
      spec.eos_token_id = first;
      spec.ignore_eos = true;
    }
    if (variant == 2) spec.stop_token_ids = {first};
    ASSERT_TRUE(h.sched.add_request(spec, 0.0).ok());
    run_to_end(h);
    const auto events = h.sched.take_events();
    const auto& done = std::get<request_finished>(events.back());
    EXPECT_EQ(done.num_output_tokens, variant == 1 ? 8u : 1u) << "variant " << variant;
    EXPECT_EQ(done.reason, variant == 1 ? finish_reason::length : finish_reason::stop);
  }
}

TEST(SchedulerLifecycle, CancelFreesBlocksAtOnceWhetherRunningOrWaiting) {
  scheduler_config config = tiny_config(8);
  config.max_num_seqs = 1;
  harness h(config);
  h.add(0, 10, 8);  // 3 blocks
  h.add(1, 4, 8);   // waits behind the sequence cap
  h.step();
  EXPECT_EQ(h.sched.kv().num_blocks_held(), 3u);
  EXPECT_TRUE(h.sched.cancel(seq_id{0}, h.now));
  EXPECT_EQ(h.sched.kv().num_blocks_held(), 0u);
  EXPECT_FALSE(h.sched.cancel(seq_id{0}, h.now));  // already finished
  EXPECT_FALSE(h.sched.cancel(seq_id{7}, h.now));  // unknown
  EXPECT_EQ(h.sched.num_running(), 0u);

  const step_plan next = h.step();
  EXPECT_EQ(ids(next.finished), std::vector<std::uint64_t>{0});  // executor drops its state
  EXPECT_EQ(shape(next), (std::vector<std::pair<std::uint64_t, std::uint32_t>>{{1, 4}}));

  h.add(2, 4, 8);
  EXPECT_TRUE(h.sched.cancel(seq_id{2}, h.now));  // still waiting
  EXPECT_EQ(h.sched.num_waiting(), 0u);
  const auto events = h.sched.take_events();
  EXPECT_EQ(std::get<request_finished>(events.back()).reason, finish_reason::cancelled);
  EXPECT_EQ(num_finished(events, finish_reason::cancelled), 2u);
}

TEST(SchedulerLifecycle, CancelWhileTheStepRunsDiscardsItsOutput) {
  harness h(tiny_config(8));
  h.add(0, 4, 8);
  h.add(1, 4, 8);
  h.step();
  const step_plan plan = h.sched.schedule(h.now);
  EXPECT_TRUE(h.sched.cancel(seq_id{0}, h.now));
  EXPECT_EQ(h.sched.kv().num_blocks_held(), 2u);  // only seq 1's
  h.finish(plan);  // the executor still returns seq 0's token: it is ignored
  EXPECT_EQ(h.sched.find(seq_id{1})->num_output_tokens(), 2u);
  EXPECT_EQ(h.sched.find(seq_id{0}), nullptr);
  run_to_end(h);
  EXPECT_EQ(h.sched.kv().num_blocks_held(), 0u);
}

// The storage-reusing overloads (one plan and one event buffer kept across steps, as the
// benchmark and an engine use them) must yield exactly what the by-value calls yield, through
// admission, block growth, preemption and finishing.
TEST(SchedulerLifecycle, ReusedPlanAndEventBufferMatchFreshOnes) {
  harness fresh(tiny_config(10));
  harness reused(tiny_config(10));
  for (harness* h : {&fresh, &reused}) {
    for (std::uint64_t id = 0; id < 4; ++id)
      h->add(id, 5 + id, 6 + 2 * static_cast<std::uint32_t>(id));
  }
  step_plan plan;
  std::vector<scheduler_event> events;
  std::uint64_t num_preempted = 0;
  for (int i = 0; i < 200 && fresh.sched.has_unfinished(); ++i) {
    const step_plan expected = fresh.step();
    reused.sched.schedule(reused.now, plan);
    reused.finish(plan);
    ASSERT_EQ(plan.step, expected.step);
    ASSERT_EQ(plan.scheduled.size(), expected.scheduled.size()) << "step " << i;
    for (std::size_t j = 0; j < plan.scheduled.size(); ++j) {
      const scheduled_sequence& a = plan.scheduled[j];
      const scheduled_sequence& b = expected.scheduled[j];
      EXPECT_EQ(a.seq, b.seq);
      EXPECT_EQ(a.kind, b.kind);
      EXPECT_EQ(a.first_position, b.first_position);
      EXPECT_EQ(a.num_scheduled_tokens, b.num_scheduled_tokens);
      EXPECT_EQ(a.samples, b.samples);
      EXPECT_EQ(a.token_ids, b.token_ids);
      EXPECT_EQ(a.block_ids, b.block_ids);
    }
    EXPECT_EQ(plan.preempted, expected.preempted);
    EXPECT_EQ(plan.finished, expected.finished);
    EXPECT_EQ(plan.num_batched_tokens, expected.num_batched_tokens);
    EXPECT_EQ(plan.stats.num_prefill_tokens, expected.stats.num_prefill_tokens);
    EXPECT_EQ(plan.stats.num_kv_tokens_held, expected.stats.num_kv_tokens_held);
    EXPECT_EQ(plan.stats.num_kv_slots_allocated, expected.stats.num_kv_slots_allocated);
    num_preempted += expected.preempted.size();
    reused.sched.take_events(events);
    EXPECT_EQ(events.size(), fresh.sched.take_events().size());
  }
  EXPECT_FALSE(reused.sched.has_unfinished());
  EXPECT_GT(num_preempted, 0u) << "the scenario should exercise preemption";
  EXPECT_EQ(reused.sched.totals().num_decode_tokens, fresh.sched.totals().num_decode_tokens);
  EXPECT_EQ(reused.sched.totals().num_prefill_tokens, fresh.sched.totals().num_prefill_tokens);
}

}  // namespace
}  // namespace pagedserve::sched::testing
