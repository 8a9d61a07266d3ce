// The facade's non-blocking forms on the demo model: submit_async's acceptance comes before
// every event (also under many concurrent submits), a refusal never calls the event
// callback, a submission cancels before and after its acceptance (idempotently, from any
// thread), stats_async answers, model() describes the model; and the new fields (logprobs,
// queue time, the iteration-tokens histogram) reach a facade client; requests that ended leave
// no memory behind.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <future>
#include <memory>
#include <thread>
#include <vector>

#include "actors/engine.h"
#include "runtime/engine/built_in_model.h"
#include "tests/actors/engine_test_support.h"
#include "tests/support/allocated_bytes.h"

namespace pagedserve {
namespace {

using namespace std::chrono_literals;
using testing::event_recorder;
using testing::greedy_request;
using testing::k_wait;
using testing::reference_greedy;

std::unique_ptr<engine> start_demo_engine() {
  auto e = engine::start(testing::demo_engine_config());
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.err().message);
  return e.ok() ? std::move(*e) : nullptr;
}

// One submit_async: the acceptance (once) and whether an event ever came before it.
struct acceptance_probe {
  std::promise<result<request_id>> answer;
  std::atomic<int> num_accepted{0};
  std::atomic<int> num_events_before{0};

  accept_callback on_accepted() {
    return [this](result<request_id> r) {
      ++num_accepted;
      answer.set_value(std::move(r));
    };
  }
  // Wraps a recorder's callback: counts events that overtook the acceptance.
  engine_callback watch(engine_callback inner) {
    return [this, inner = std::move(inner)](const engine_event& ev) {
      if (num_accepted.load() != 1) ++num_events_before;
      inner(ev);
    };
  }
};

TEST(EngineAsync, AcceptanceComesBeforeEveryEventUnderConcurrentSubmits) {
  auto e = start_demo_engine();
  ASSERT_NE(e, nullptr);
  constexpr int num_threads = 8;
  constexpr int per_thread = 12;
  constexpr int num = num_threads * per_thread;
  constexpr std::uint32_t max_tokens = 4;
  const std::vector<std::vector<token_id>> prompts = {{1, 5, 9}, {1, 77}, {1, 300, 301, 302}};
  std::vector<acceptance_probe> probes(num);
  std::vector<event_recorder> recs(num);
  // Every 5th request is invalid (max_tokens 0): refused, its callback never called.
  auto request_of = [&](int i) {
    return greedy_request(prompts[static_cast<std::size_t>(i) % prompts.size()],
                          i % 5 == 4 ? 0 : max_tokens);
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < num_threads; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < per_thread; ++k) {
        const int i = t * per_thread + k;
        (void)e->submit_async(request_of(i), probes[i].watch(recs[i].callback()),
                              probes[i].on_accepted());
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int i = 0; i < num; ++i) {
    auto answer = probes[i].answer.get_future();
    ASSERT_EQ(answer.wait_for(k_wait), std::future_status::ready) << "request " << i;
    const result<request_id> id = answer.get();
    if (i % 5 == 4) {
      ASSERT_FALSE(id.ok()) << "request " << i;
      EXPECT_EQ(id.err().code, error_code::invalid_argument);
      continue;
    }
    ASSERT_TRUE(id.ok()) << id.err().message;
    ASSERT_TRUE(recs[i].wait_for_finals()) << "request " << i;
  }
  EXPECT_EQ(e->shutdown(5s).num_leaked_blocks, 0u);
  std::vector<std::vector<token_id>> want;
  for (const auto& p : prompts) want.push_back(reference_greedy(p, max_tokens));
  for (int i = 0; i < num; ++i) {
    EXPECT_EQ(probes[i].num_accepted.load(), 1) << "request " << i;
    EXPECT_EQ(probes[i].num_events_before.load(), 0) << "request " << i;
    if (i % 5 == 4) {
      EXPECT_EQ(recs[i].num_events(), 0u) << "refused request " << i << " got events";
    } else {
      EXPECT_EQ(recs[i].tokens(), want[static_cast<std::size_t>(i) % want.size()]);
      EXPECT_EQ(recs[i].finals().size(), 1u);
    }
  }
}

TEST(EngineAsync, CancelRightAfterSubmitEndsWithOneCancelledFinal) {
  auto e = start_demo_engine();
  ASSERT_NE(e, nullptr);
  acceptance_probe probe;
  event_recorder rec;
  const submission s =
      e->submit_async(greedy_request({1, 2, 3}, 1000), rec.callback(), probe.on_accepted());
  // Almost always before the acceptance (which takes a round trip through three actors);
  // either way the request must end cancelled, once.
  s.cancel();
  s.cancel();
  const result<request_id> id = probe.answer.get_future().get();
  ASSERT_TRUE(id.ok()) << id.err().message;
  ASSERT_TRUE(rec.wait_for_finals());
  s.cancel();
  EXPECT_EQ(e->shutdown(5s).num_leaked_blocks, 0u);
  const auto finals = rec.finals();
  ASSERT_EQ(finals.size(), 1u);
  EXPECT_EQ(finals[0].reason, finish_reason::cancelled);
  EXPECT_LT(rec.tokens().size(), 1000u);
  EXPECT_EQ(probe.num_accepted.load(), 1);
}

TEST(EngineAsync, CancelFromManyThreadsAfterAcceptanceIsIdempotent) {
  auto e = start_demo_engine();
  ASSERT_NE(e, nullptr);
  acceptance_probe probe;
  event_recorder rec;
  const submission s =
      e->submit_async(greedy_request({1, 4, 6}, 1000), rec.callback(), probe.on_accepted());
  ASSERT_TRUE(probe.answer.get_future().get().ok());
  ASSERT_TRUE(rec.wait_for_first_chunk());
  std::vector<std::thread> cancellers;
  for (int t = 0; t < 4; ++t) cancellers.emplace_back([s] { s.cancel(); });
  for (std::thread& th : cancellers) th.join();
  ASSERT_TRUE(rec.wait_for_finals());
  EXPECT_EQ(e->shutdown(5s).num_leaked_blocks, 0u);
  ASSERT_EQ(rec.finals().size(), 1u);
  EXPECT_EQ(rec.finals()[0].reason, finish_reason::cancelled);
  EXPECT_EQ(rec.num_chunks_after_final(), 0u);
}

TEST(EngineAsync, ASubmissionThatOutlivesItsEngineCancelsNothing) {
  submission s;
  s.cancel();  // an empty handle
  {
    auto e = start_demo_engine();
    ASSERT_NE(e, nullptr);
    acceptance_probe probe;
    event_recorder rec;
    s = e->submit_async(greedy_request({1, 8}, 3), rec.callback(), probe.on_accepted());
    ASSERT_TRUE(probe.answer.get_future().get().ok());
    ASSERT_TRUE(rec.wait_for_finals());
  }
  s.cancel();  // the engine and its actor system are gone
}

TEST(EngineAsync, SubmitAsyncAfterShutdownIsRefusedAsUnavailable) {
  auto e = start_demo_engine();
  ASSERT_NE(e, nullptr);
  (void)e->shutdown(1s);
  acceptance_probe probe;
  event_recorder rec;
  const submission s =
      e->submit_async(greedy_request({1, 2}, 2), rec.callback(), probe.on_accepted());
  const result<request_id> id = probe.answer.get_future().get();
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.err().code, error_code::unavailable) << id.err().message;
  s.cancel();
  EXPECT_EQ(rec.num_events(), 0u);
}

TEST(EngineAsync, StatsAsyncAnswersWithIterationTokens) {
  auto e = start_demo_engine();
  ASSERT_NE(e, nullptr);
  event_recorder rec;
  ASSERT_TRUE(e->submit(greedy_request({1, 2, 3, 4, 5}, 6), rec.callback()).ok());
  ASSERT_TRUE(rec.wait_for_finals());
  std::promise<engine_stats> answer;
  e->stats_async([&](engine_stats s) { answer.set_value(std::move(s)); });
  const engine_stats s = answer.get_future().get();
  EXPECT_EQ(s.num_requests, 1u);
  EXPECT_EQ(s.num_generation_tokens, 6u);
  // A prefill step of 5 tokens samples the first token; 5 decode steps of 1 the others.
  EXPECT_EQ(s.iteration_tokens.count, 6u);
  EXPECT_EQ(s.iteration_tokens.sum, 10.0);
  EXPECT_EQ(s.iteration_tokens.counts[0], 5u) << "le 1";
  EXPECT_EQ(s.iteration_tokens.counts[1], 1u) << "le 8";
  EXPECT_EQ(e->shutdown(5s).num_leaked_blocks, 0u);
  std::promise<engine_stats> late;
  e->stats_async([&](engine_stats st) { late.set_value(std::move(st)); });
  EXPECT_EQ(late.get_future().get().num_requests, 0u) << "defaults once shut down";
}

TEST(EngineAsync, ModelDescribesTheDemoModel) {
  auto e = start_demo_engine();
  ASSERT_NE(e, nullptr);
  const engine_model_info& m = e->model();
  const engine_config config = testing::demo_engine_config();
  EXPECT_EQ(m.name, "demo-random");
  EXPECT_EQ(m.vocab_size, 512u);
  EXPECT_EQ(m.max_model_len, config.sched.max_model_len);
  EXPECT_EQ(m.block_size, config.sched.block_size);
  EXPECT_GE(std::uint64_t{m.num_blocks} * m.block_size, config.sched.max_model_len)
      << "resolved: room for one full sequence at least";
  EXPECT_EQ(m.max_n, config.max_n);
  EXPECT_EQ(m.eos_token_ids, std::vector<token_id>{2});
  EXPECT_EQ(e->stats().num_total_blocks, m.num_blocks);
  (void)e->shutdown(5s);
}

TEST(EngineAsync, ModelNamesComeFromTheFolderOrTheConfigFile) {
  engine_config config;
  EXPECT_EQ(engine_model_name(config), "pagedserve-demo");  // the default: the shipped model
  config.model_dir = "demo-random";
  EXPECT_EQ(engine_model_name(config), "demo-random");
  config.model_dir = "/models/Qwen2-0.5B/";
  EXPECT_EQ(engine_model_name(config), "Qwen2-0.5B");
  config.model_dir = "models/tiny-llama";
  EXPECT_EQ(engine_model_name(config), "tiny-llama");
  config.model_dir.clear();
  config.model_config_file = "/configs/small.json";
  EXPECT_EQ(engine_model_name(config), "small");
}

TEST(EngineAsync, LogprobsAndQueueTimeReachTheCallback) {
  auto e = start_demo_engine();
  ASSERT_NE(e, nullptr);
  generation_request req = greedy_request({1, 9, 27}, 10);
  req.sampling.logprobs = 4;
  event_recorder rec;
  ASSERT_TRUE(e->submit(req, rec.callback()).ok());
  ASSERT_TRUE(rec.wait_for_finals());
  (void)e->shutdown(5s);
  std::size_t num_tokens = 0;
  for (const token_chunk& c : rec.chunks()) {
    ASSERT_EQ(c.logprobs.size(), c.token_ids.size());
    for (std::size_t i = 0; i < c.token_ids.size(); ++i) {
      const chunk_logprob& lp = c.logprobs[i];
      EXPECT_EQ(lp.token, c.token_ids[i]);
      ASSERT_EQ(lp.top.size(), 4u);
      EXPECT_EQ(lp.top[0].token, lp.token) << "greedy takes the most likely token";
      EXPECT_EQ(lp.top[0].logprob, lp.logprob);
      double mass = 0.0;
      for (std::size_t j = 0; j < lp.top.size(); ++j) {
        if (j > 0) {
          EXPECT_LE(lp.top[j].logprob, lp.top[j - 1].logprob);
        }
        mass += std::exp(double{lp.top[j].logprob});
      }
      EXPECT_LE(mass, 1.0 + 1e-6);
      EXPECT_LE(lp.logprob, 0.0f);
    }
    num_tokens += c.token_ids.size();
  }
  EXPECT_EQ(num_tokens, 10u);
  ASSERT_EQ(rec.finals().size(), 1u);
  EXPECT_GE(rec.finals()[0].queue_time_s, 0.0);
  EXPECT_LT(rec.finals()[0].queue_time_s, 60.0);
}

// Each request's sink actor monitored the engine; CAF 0.17 keeps a monitor in place after the
// monitoring actor ends, and with it the actor's address: a weak reference that kept the
// whole actor's storage (about 1.1 KB) until the engine ended, one per request served (a
// server grew ~2.6 MB every 2,000 requests). Now the sink demonitors on its way out.
TEST(EngineAsync, FinishedRequestsLeaveNoMemoryBehind) {
  auto e = start_demo_engine();
  ASSERT_NE(e, nullptr);
  const auto run = [&](int num_requests) {
    constexpr int wave = 50;
    for (int done = 0; done < num_requests; done += wave) {
      std::vector<event_recorder> recs(wave);
      for (event_recorder& rec : recs) {
        (void)e->submit_async(greedy_request({1, 5, 9}, 1), rec.callback(),
                              [](result<request_id>) {});
      }
      for (const event_recorder& rec : recs) ASSERT_TRUE(rec.wait_for_finals());
    }
    // The sinks quit right after their finals: let them end before counting.
    std::this_thread::sleep_for(200ms);
  };
  run(200);  // the engine's pools, caches and the threads' arenas reach their size
  const auto before = static_cast<std::int64_t>(testing::allocated_bytes());
  constexpr int num_requests = 600;
  run(num_requests);
  const auto grown = static_cast<std::int64_t>(testing::allocated_bytes()) - before;
  EXPECT_LT(grown, num_requests * 100)
      << grown << " bytes more after " << num_requests << " requests that ended";
}

}  // namespace
}  // namespace pagedserve
