// The CAF-free facade (actors/engine.h) on the demo model: streaming and finals, usage,
// concurrent submits from plain threads, cancel, stats, rejection, shutdown and destruction.
// Greedy tokens are checked against an unbatched model_forward reference.

#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "actors/engine.h"
#include "tests/actors/engine_test_support.h"

namespace pagedserve {
namespace {

using testing::event_recorder;
using testing::greedy_request;
using testing::reference_greedy;

std::unique_ptr<engine> start_demo_engine() {
  auto e = engine::start(testing::demo_engine_config());
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.err().message);
  return e.ok() ? std::move(*e) : nullptr;
}

TEST(EngineFacade, StreamsChunksThenOneFinalWithUsage) {
  auto e = start_demo_engine();
  ASSERT_NE(e, nullptr);
  const std::vector<token_id> prompt = {1, 5, 9, 13, 17};
  event_recorder rec;
  auto id = e->submit(greedy_request(prompt, 12), rec.callback());
  ASSERT_TRUE(id.ok()) << id.err().message;
  ASSERT_TRUE(rec.wait_for_finals());

  EXPECT_EQ(rec.tokens(), reference_greedy(prompt, 12));
  for (const token_chunk& c : rec.chunks()) EXPECT_EQ(c.request, *id);
  const auto finals = rec.finals();
  ASSERT_EQ(finals.size(), 1u);
  EXPECT_EQ(finals[0].request, *id);
  EXPECT_EQ(finals[0].reason, finish_reason::length);
  EXPECT_EQ(finals[0].usage.prompt_tokens, 5u);
  EXPECT_EQ(finals[0].usage.completion_tokens, 12u);
  EXPECT_EQ(rec.num_chunks_after_final(), 0u);
  EXPECT_EQ(e->shutdown(std::chrono::seconds(5)).num_leaked_blocks, 0u);
}

TEST(EngineFacade, ConcurrentSubmitsFromThreadsEachMatchTheReference) {
  auto e = start_demo_engine();
  ASSERT_NE(e, nullptr);
  constexpr int num_threads = 4;
  constexpr int per_thread = 3;
  constexpr std::uint32_t max_tokens = 8;
  std::vector<std::vector<token_id>> prompts;
  std::vector<event_recorder> recs(num_threads * per_thread);
  for (int i = 0; i < num_threads * per_thread; ++i) {
    prompts.push_back({1, 30 + i, 60 + 2 * i, 90 + 3 * i});
  }
  std::vector<std::thread> threads;
  std::vector<int> num_accepted(num_threads, 0);
  for (int t = 0; t < num_threads; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < per_thread; ++k) {
        const int i = t * per_thread + k;
        if (e->submit(greedy_request(prompts[i], max_tokens), recs[i].callback()).ok()) {
          ++num_accepted[t];
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int t = 0; t < num_threads; ++t) EXPECT_EQ(num_accepted[t], per_thread);
  for (std::size_t i = 0; i < recs.size(); ++i) {
    ASSERT_TRUE(recs[i].wait_for_finals()) << "request " << i;
    EXPECT_EQ(recs[i].tokens(), reference_greedy(prompts[i], max_tokens)) << "request " << i;
    EXPECT_EQ(recs[i].finals().size(), 1u);
    EXPECT_EQ(recs[i].num_chunks_after_final(), 0u);
  }
}

TEST(EngineFacade, CancelEndsTheStreamWithACancelledFinal) {
  auto e = start_demo_engine();
  ASSERT_NE(e, nullptr);
  event_recorder rec;
  auto id = e->submit(greedy_request({1, 2, 3}, 1000), rec.callback());
  ASSERT_TRUE(id.ok()) << id.err().message;
  ASSERT_TRUE(rec.wait_for_first_chunk());
  e->cancel(*id);
  ASSERT_TRUE(rec.wait_for_finals());
  const auto finals = rec.finals();
  ASSERT_EQ(finals.size(), 1u);
  EXPECT_EQ(finals[0].reason, finish_reason::cancelled);
  EXPECT_LT(finals[0].usage.completion_tokens, 1000u);
  EXPECT_EQ(finals[0].usage.completion_tokens, rec.tokens().size());
  const engine_stats s = e->stats();
  EXPECT_EQ(s.num_cancelled, 1u);
  EXPECT_EQ(s.num_running, 0u);
  EXPECT_EQ(s.num_free_blocks, s.num_total_blocks);
}

TEST(EngineFacade, StatsCountRequestsAndTokens) {
  auto e = start_demo_engine();
  ASSERT_NE(e, nullptr);
  event_recorder a;
  event_recorder b;
  ASSERT_TRUE(e->submit(greedy_request({1, 2, 3, 4}, 5), a.callback()).ok());
  ASSERT_TRUE(e->submit(greedy_request({1, 7, 8}, 6), b.callback()).ok());
  ASSERT_TRUE(a.wait_for_finals());
  ASSERT_TRUE(b.wait_for_finals());
  const engine_stats s = e->stats();
  EXPECT_EQ(s.num_requests, 2u);
  EXPECT_EQ(s.num_finished(), 2u);
  EXPECT_EQ(s.num_prompt_tokens, 7u);
  EXPECT_EQ(s.num_generation_tokens, 11u);
  EXPECT_EQ(s.num_running, 0u);
  EXPECT_EQ(s.num_waiting, 0u);
  EXPECT_GT(s.num_total_blocks, 0u);
  EXPECT_EQ(s.num_free_blocks, s.num_total_blocks);
  EXPECT_GT(s.num_steps, 0u);
}

TEST(EngineFacade, NCompletionsEachEndWithTheirOwnFinal) {
  auto e = start_demo_engine();
  ASSERT_NE(e, nullptr);
  generation_request req = greedy_request({1, 11, 21}, 6);
  req.sampling.n = 2;
  event_recorder rec(2);
  ASSERT_TRUE(e->submit(req, rec.callback()).ok());
  ASSERT_TRUE(rec.wait_for_finals());
  const auto finals = rec.finals();
  ASSERT_EQ(finals.size(), 2u);
  EXPECT_NE(finals[0].index, finals[1].index);
  const auto expected = reference_greedy({1, 11, 21}, 6);
  EXPECT_EQ(rec.tokens(0), expected);
  EXPECT_EQ(rec.tokens(1), expected);
  for (const request_final& f : finals) EXPECT_EQ(f.usage.completion_tokens, 6u);
}

TEST(EngineFacade, InvalidRequestsAreRejectedAndNeverCallBack) {
  auto e = start_demo_engine();
  ASSERT_NE(e, nullptr);
  event_recorder empty_prompt;
  auto r1 = e->submit(generation_request{}, empty_prompt.callback());
  ASSERT_FALSE(r1.ok());
  EXPECT_EQ(r1.err().code, error_code::invalid_argument);
  EXPECT_FALSE(r1.err().message.empty());

  event_recorder outside_vocab;
  auto r2 = e->submit(greedy_request({1, 600}, 4), outside_vocab.callback());  // vocab 512
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(r2.err().code, error_code::invalid_argument);

  // A valid request afterwards completes; by then nothing may have reached the rejected
  // ones (their sinks were killed before the engine could address them).
  event_recorder valid;
  ASSERT_TRUE(e->submit(greedy_request({1, 2}, 3), valid.callback()).ok());
  ASSERT_TRUE(valid.wait_for_finals());
  EXPECT_EQ(empty_prompt.num_events(), 0u);
  EXPECT_EQ(outside_vocab.num_events(), 0u);
  EXPECT_EQ(e->stats().num_requests, 1u);
}

TEST(EngineFacade, AFailedStepEndsItsRequestWithAnErrorFinal) {
  engine_config config = testing::demo_engine_config();
  config.before_step = [](std::uint64_t step) {
    if (step == 2) throw std::runtime_error("injected step failure");
  };
  auto e = engine::start(config);
  ASSERT_TRUE(e.ok()) << e.err().message;
  event_recorder failing;
  ASSERT_TRUE((*e)->submit(greedy_request({1, 2, 3}, 10), failing.callback()).ok());
  ASSERT_TRUE(failing.wait_for_finals());
  ASSERT_EQ(failing.finals().size(), 1u);
  EXPECT_EQ(failing.finals()[0].reason, finish_reason::error);
  EXPECT_FALSE(failing.finals()[0].error_message.empty());

  event_recorder next;  // the engine keeps serving
  ASSERT_TRUE((*e)->submit(greedy_request({1, 4}, 5), next.callback()).ok());
  ASSERT_TRUE(next.wait_for_finals());
  EXPECT_EQ(next.finals()[0].reason, finish_reason::length);
  EXPECT_EQ(next.tokens(), reference_greedy({1, 4}, 5));
  EXPECT_EQ((*e)->stats().num_failed, 1u);
}

TEST(EngineFacade, ACallbackThatThrowsOnlyEndsItsOwnRequest) {
  auto e = start_demo_engine();
  ASSERT_NE(e, nullptr);
  event_recorder seen;
  auto record = seen.callback();
  auto throwing = [record](const engine_event& ev) {
    record(ev);
    throw std::runtime_error("callback failure");
  };
  ASSERT_TRUE(e->submit(greedy_request({1, 6, 7}, 500), throwing).ok());
  event_recorder other;
  ASSERT_TRUE(e->submit(greedy_request({1, 8, 9}, 6), other.callback()).ok());
  ASSERT_TRUE(other.wait_for_finals());
  EXPECT_EQ(other.tokens(), reference_greedy({1, 8, 9}, 6));
  const shutdown_report report = e->shutdown(std::chrono::seconds(5));
  EXPECT_EQ(seen.num_events(), 1u);  // no event after the throw
  EXPECT_EQ(report.num_leaked_blocks, 0u);
}

TEST(EngineFacade, ShutdownWithRequestsInFlightEndsEveryStreamAndLeaksNothing) {
  auto e = start_demo_engine();
  ASSERT_NE(e, nullptr);
  std::vector<event_recorder> recs(4);
  for (std::size_t i = 0; i < recs.size(); ++i) {
    const auto t = static_cast<token_id>(i);
    ASSERT_TRUE(e->submit(greedy_request({1, 40 + t, 80 + t}, 1000), recs[i].callback()).ok());
  }
  for (const event_recorder& r : recs) ASSERT_TRUE(r.wait_for_first_chunk());

  const auto timeout = std::chrono::milliseconds(50);
  const auto start = std::chrono::steady_clock::now();
  const shutdown_report report = e->shutdown(timeout);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_LT(elapsed, timeout + std::chrono::seconds(10));  // slack for ASan on 2 cores
  EXPECT_EQ(report.num_leaked_blocks, 0u);
  EXPECT_EQ(report.num_drained + report.num_cancelled, recs.size());
  for (const event_recorder& r : recs) {
    ASSERT_TRUE(r.wait_for_finals(std::chrono::milliseconds(0)));  // ended before shutdown returned
    const auto finals = r.finals();
    ASSERT_EQ(finals.size(), 1u);
    EXPECT_TRUE(finals[0].reason == finish_reason::cancelled ||
                finals[0].reason == finish_reason::length)
        << to_string(finals[0].reason);
  }
  // Idempotent, and closed for new work.
  EXPECT_EQ(e->shutdown(timeout).num_cancelled, report.num_cancelled);
  event_recorder late;
  EXPECT_FALSE(e->submit(greedy_request({1, 2}, 2), late.callback()).ok());
  EXPECT_EQ(late.num_events(), 0u);
}

TEST(EngineFacade, DestroyingWithoutShutdownDrainsAndReturns) {
  event_recorder rec;
  {
    auto e = start_demo_engine();
    ASSERT_NE(e, nullptr);
    ASSERT_TRUE(e->submit(greedy_request({1, 3, 5}, 64), rec.callback()).ok());
    ASSERT_TRUE(rec.wait_for_first_chunk());
  }  // ~engine: shutdown with a 10 s drain
  ASSERT_TRUE(rec.wait_for_finals(std::chrono::milliseconds(0)));
  EXPECT_EQ(rec.finals().size(), 1u);
}

TEST(EngineFacade, StartWithABadModelFolderIsAnError) {
  engine_config config = testing::demo_engine_config();
  config.model_dir = "/nonexistent/model";
  auto e = engine::start(config);
  ASSERT_FALSE(e.ok());
  EXPECT_FALSE(e.err().message.empty());
}

}  // namespace
}  // namespace pagedserve
