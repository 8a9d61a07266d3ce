// request_lifecycle events through the actor layer on the demo model: the CAF-free facade
// (actors/engine.h) and the typed engine actor with a sink of the caller's own.
//
// Expected figures come from the documented rules, not from the code under test: the
// prefix cache gives a prompt of L tokens floor((L - 1) / block_size) * block_size cached
// tokens once its blocks are in the cache (runtime/kv/kv_cache_manager.cpp,
// get_computed_blocks: the last token is always computed); the victim of a preemption is
// the newest running sequence (runtime/sched/scheduler_schedule.cpp, pick_victim).
// Orders are checked as request_lifecycle.h states them.

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "actors/engine.h"
#include "actors/spawn_engine.h"
#include "tests/actors/engine_test_support.h"

namespace pagedserve {
namespace {

using namespace std::chrono_literals;
using testing::event_recorder;
using testing::greedy_request;

constexpr std::uint32_t k_block_size = 16;  // engine_config's default

std::vector<token_id> prompt_of(std::size_t n, token_id first) {
  std::vector<token_id> p(n);
  for (std::size_t i = 0; i < n; ++i) p[i] = 1 + (first + static_cast<token_id>(i)) % 500;
  return p;
}

generation_request lifecycle_request(std::vector<token_id> prompt, std::uint32_t max_tokens) {
  generation_request r = greedy_request(std::move(prompt), max_tokens);
  r.report_lifecycle = true;
  return r;
}

// queued, scheduled, `num_chunks` chunks, finished, final: a run without preemption (one
// chunk per token: no stop strings).
std::vector<std::string> plain_run(std::size_t num_chunks) {
  std::vector<std::string> out = {"queued", "scheduled"};
  out.insert(out.end(), num_chunks, "chunk");
  out.insert(out.end(), {"finished", "final"});
  return out;
}

std::optional<request_lifecycle> first_of(const event_recorder& rec, lifecycle_stage stage,
                                          std::uint32_t index = 0) {
  for (const request_lifecycle& l : rec.lifecycle(index)) {
    if (l.stage == stage) return l;
  }
  return std::nullopt;
}

std::unique_ptr<engine> start_engine(engine_config config = testing::demo_engine_config()) {
  auto e = engine::start(std::move(config));
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.err().message);
  return e.ok() ? std::move(*e) : nullptr;
}

TEST(EngineLifecycleFacade, ReportsTheStagesAroundTheTokensAndTheCachedPrefixOfARepeat) {
  auto e = start_engine();
  ASSERT_NE(e, nullptr);
  const auto prompt = prompt_of(40, 3);
  event_recorder first;
  const auto id = e->submit(lifecycle_request(prompt, 5), first.callback());
  ASSERT_TRUE(id.ok()) << id.err().message;
  ASSERT_TRUE(first.wait_for_finals());
  EXPECT_EQ(first.kinds(), plain_run(5));
  for (const request_lifecycle& l : first.lifecycle()) EXPECT_EQ(l.request, *id);
  const auto lifecycle = first.lifecycle();
  for (std::size_t i = 1; i < lifecycle.size(); ++i) {
    EXPECT_LE(lifecycle[i - 1].step, lifecycle[i].step);
    EXPECT_LE(lifecycle[i - 1].time, lifecycle[i].time);
  }
  ASSERT_TRUE(first_of(first, lifecycle_stage::scheduled));
  EXPECT_EQ(first_of(first, lifecycle_stage::scheduled)->num_cached_tokens, 0u) << "a new engine";

  event_recorder repeat;
  ASSERT_TRUE(e->submit(lifecycle_request(prompt, 5), repeat.callback()).ok());
  ASSERT_TRUE(repeat.wait_for_finals());
  EXPECT_EQ(repeat.kinds(), plain_run(5));
  ASSERT_TRUE(first_of(repeat, lifecycle_stage::scheduled));
  EXPECT_EQ(first_of(repeat, lifecycle_stage::scheduled)->num_cached_tokens,
            (40 - 1) / k_block_size * k_block_size);

  event_recorder plain;  // did not ask: chunks and the final only
  ASSERT_TRUE(e->submit(greedy_request(prompt, 5), plain.callback()).ok());
  ASSERT_TRUE(plain.wait_for_finals());
  EXPECT_EQ(plain.kinds(),
            std::vector<std::string>({"chunk", "chunk", "chunk", "chunk", "chunk", "final"}));
  EXPECT_EQ(e->shutdown(5s).num_leaked_blocks, 0u);
}

TEST(EngineLifecycleFacade, EachOfNCompletionsHasItsOwnStagesAndTheSiblingsHitThePrompt) {
  auto e = start_engine();
  ASSERT_NE(e, nullptr);
  generation_request r = lifecycle_request(prompt_of(40, 9), 4);
  r.sampling.n = 2;
  event_recorder rec(2);
  ASSERT_TRUE(e->submit(r, rec.callback()).ok());
  ASSERT_TRUE(rec.wait_for_finals());
  for (std::uint32_t i = 0; i < 2; ++i) {
    EXPECT_EQ(rec.kinds(i), plain_run(4)) << "completion " << i;
    for (const request_lifecycle& l : rec.lifecycle(i)) EXPECT_EQ(l.index, i);
  }
  // The sibling starts after completion 0's first token: the prompt's full blocks are cached.
  ASSERT_TRUE(first_of(rec, lifecycle_stage::scheduled, 1));
  EXPECT_EQ(first_of(rec, lifecycle_stage::scheduled, 1)->num_cached_tokens,
            (40 - 1) / k_block_size * k_block_size);
}

// 6 blocks of 16 tokens. A and B (20-token prompts, 60 tokens each: 5 blocks of KV each) run
// together; when the pool runs out, the newest running sequence, B, is preempted (A can
// never be: while B waits A has every block it can need). B resumes once there is room.
TEST(EngineLifecycleFacade, APreemptedRequestReportsPreemptedAndResumedWithNoTokenBetween) {
  engine_config config = testing::demo_engine_config();
  config.sched.num_blocks = 6;
  auto e = start_engine(config);
  ASSERT_NE(e, nullptr);
  event_recorder a;
  event_recorder b;
  ASSERT_TRUE(e->submit(lifecycle_request(prompt_of(20, 100), 60), a.callback()).ok());
  ASSERT_TRUE(e->submit(lifecycle_request(prompt_of(20, 300), 60), b.callback()).ok());
  ASSERT_TRUE(a.wait_for_finals());
  ASSERT_TRUE(b.wait_for_finals());
  const std::uint64_t num_preemptions = e->stats().num_preemptions;
  ASSERT_GE(num_preemptions, 1u);
  EXPECT_EQ(a.kinds(), plain_run(60)) << "the older request is never the victim";

  const std::vector<std::string> kinds = b.kinds();
  EXPECT_EQ(kinds.front(), "queued");
  EXPECT_EQ(kinds[1], "scheduled");
  EXPECT_EQ(kinds[kinds.size() - 2], "finished");
  EXPECT_EQ(kinds.back(), "final");
  EXPECT_EQ(std::count(kinds.begin(), kinds.end(), "chunk"), 60);
  const auto num_preempted = std::count(kinds.begin(), kinds.end(), "preempted");
  EXPECT_GE(num_preempted, 1);
  EXPECT_LE(static_cast<std::uint64_t>(num_preempted), num_preemptions);
  bool off = false;
  for (const std::string& k : kinds) {
    if (k == "preempted") off = true;
    if (k == "resumed") off = false;
    EXPECT_FALSE(off && k == "chunk") << "a token between preempted and resumed";
  }
  for (const request_lifecycle& l : b.lifecycle()) {
    if (l.stage == lifecycle_stage::preempted) {
      EXPECT_GT(l.num_computed_tokens_lost, 0u);
    }
    if (l.stage == lifecycle_stage::resumed) {
      EXPECT_EQ(l.num_cached_tokens % k_block_size, 0u) << "whole blocks";
    }
  }
  EXPECT_EQ(e->shutdown(5s).num_leaked_blocks, 0u);
}

// ---- the typed engine actor, with a sink of the caller's own ----

// Hands every event to a recorder's callback; quits after `n` finals.
caf::behavior lifecycle_sink(caf::event_based_actor* self, engine_callback callback,
                             std::uint32_t n) {
  auto num_finals = std::make_shared<std::uint32_t>(0);
  return {
      [callback](const token_chunk& chunk) { callback(chunk); },
      [callback](const request_lifecycle& lifecycle) { callback(lifecycle); },
      [self, callback, n, num_finals](const request_final& final) {
        callback(final);
        if (++*num_finals == n) self->quit();
      },
  };
}

TEST(EngineLifecycleActor, ASinkOfItsOwnReceivesTheStagesInOrderWithTheChunks) {
  caf::actor_system_config cfg;
  actors::add_engine_message_types(cfg);
  cfg.set("scheduler.max-threads", std::size_t{4});
  caf::actor_system system{cfg};
  auto spawned = actors::spawn_engine(system, testing::demo_engine_config());
  ASSERT_TRUE(spawned.ok()) << spawned.err().message;
  const actors::engine_actor eng = *spawned;
  const auto prompt = prompt_of(24, 40);
  event_recorder opted;
  event_recorder plain;
  {
    caf::scoped_actor self{system};
    for (event_recorder* rec : {&opted, &plain}) {
      generation_request r = greedy_request(prompt, 3);
      r.report_lifecycle = rec == &opted;
      const caf::actor sink = system.spawn(lifecycle_sink, rec->callback(), 1u);
      self->request(eng, 60s, actors::submit_atom::value, r, sink)
          .receive([](request_id) {},
                   [&](caf::error& err) {
                     caf::anon_send_exit(sink, caf::exit_reason::kill);
                     ADD_FAILURE() << system.render(err);
                   });
    }
  }
  ASSERT_TRUE(opted.wait_for_finals());
  ASSERT_TRUE(plain.wait_for_finals());
  EXPECT_EQ(opted.kinds(), plain_run(3));
  EXPECT_EQ(plain.kinds(), std::vector<std::string>({"chunk", "chunk", "chunk", "final"}));
  {
    caf::scoped_actor self{system};
    self->request(eng, 60s, actors::shutdown_atom::value, std::uint64_t{5000})
        .receive([](const shutdown_report& r) { EXPECT_EQ(r.num_leaked_blocks, 0u); },
                 [&](caf::error& err) { ADD_FAILURE() << system.render(err); });
  }
}

}  // namespace
}  // namespace pagedserve
