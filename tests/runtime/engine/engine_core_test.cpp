// engine_core driven without actors: a fake executor (sim/fake_executor.h) stands in
// for the model. It samples token = f(hash of the whole context), so each request's expected
// stream is computed here independently from its prompt, whatever the batching, the two steps
// in flight, the preemptions and the cancellations around it. Logprobs, which the fake
// executor does not make, are attached by the driver as a function of the sampled token.

#include "runtime/engine/engine_core.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <map>
#include <variant>

#include "sim/fake_executor.h"
#include "tests/runtime/engine/engine_core_driver.h"
#include "tests/support/fixtures.h"

namespace pagedserve {
namespace {

using engine_testing::core_type;
using engine_testing::prompt_of;
using engine_testing::sink_id;
using event_type = engine_event;

// The fake executor's stream for `prompt`: what every request must receive.
std::vector<token_id> expected_stream(const std::vector<token_id>& prompt, std::size_t n) {
  std::uint64_t hash = 0;
  for (const token_id t : prompt) hash = sim::fake_executor::extend_hash(hash, t);
  std::vector<token_id> out;
  for (std::size_t i = 0; i < n; ++i) {
    out.push_back(sim::fake_executor::next_token(hash));
    hash = sim::fake_executor::extend_hash(hash, out.back());
  }
  return out;
}

// What the driver attaches to every sampled token when it plays an executor with logprobs.
logprobs_result fake_logprobs(token_id token) {
  logprobs_result r;
  r.chosen_logprob = -0.25f * static_cast<float>(token % 13);
  r.top = {{token, r.chosen_logprob}, {token + 1, r.chosen_logprob - 1.0f}};
  return r;
}

engine_core_setup small_setup(std::uint32_t num_blocks = 64,
                              std::uint32_t max_waiting_requests = 64) {
  engine_plan plan;
  plan.sched.block_size = 4;
  plan.sched.num_blocks = num_blocks;
  plan.sched.max_model_len = 128;
  plan.sched.max_num_seqs = 8;
  plan.sched.max_num_batched_tokens = 32;
  plan.sched.long_prefill_token_threshold = 12;
  engine_core_setup setup;
  plan.max_waiting_requests = max_waiting_requests;
  setup.plan = std::make_shared<const engine_plan>(plan);
  setup.vocab_size = 32000;
  return setup;
}

// Runs the core like the scheduler actor does: plans while it may (two steps in flight),
// otherwise applies the oldest output.
struct driver : engine_testing::core_driver {
  explicit driver(engine_core_setup setup) : core_driver(std::move(setup)) {
    on_output = [](sched::step_output& out) {
      for (sched::sampled_token& t : out.sampled) t.logprobs = fake_logprobs(t.token);
    };
  }

  void step() {
    if (!plan_one()) apply_one();
  }
  void run_to_end() {
    for (int i = 0; i < 100000 && core.has_work(); ++i) {
      if (!plan_one()) {
        ASSERT_FALSE(outputs.empty()) << "work left but nothing to plan or apply";
        apply_one();
      }
    }
    ASSERT_FALSE(core.has_work());
  }
  // Token ids received by `sink` for completion `index`, and its finals.
  std::vector<token_id> tokens(sink_id sink, std::uint32_t index = 0) const {
    std::vector<token_id> ids;
    for (const auto& e : received.at(sink)) {
      if (const auto* c = std::get_if<token_chunk>(&e); c && c->index == index) {
        ids.insert(ids.end(), c->token_ids.begin(), c->token_ids.end());
      }
    }
    return ids;
  }
  std::vector<token_chunk> chunks(sink_id sink) const {
    std::vector<token_chunk> out;
    for (const auto& e : received.at(sink)) {
      if (const auto* c = std::get_if<token_chunk>(&e)) out.push_back(*c);
    }
    return out;
  }
  std::vector<request_final> finals(sink_id sink) const {
    std::vector<request_final> out;
    for (const auto& e : received.at(sink)) {
      if (const auto* f = std::get_if<request_final>(&e)) out.push_back(*f);
    }
    return out;
  }
};

generation_request request_of(std::vector<token_id> prompt, std::uint32_t max_tokens) {
  generation_request r;
  r.prompt_token_ids = std::move(prompt);
  r.sampling.max_tokens = max_tokens;
  r.sampling.temperature = 0.0f;
  return r;
}

TEST(EngineCore, EveryRequestGetsItsOwnStreamInOrderThenOneFinal) {
  driver d(small_setup(24));  // tight: forces preemptions
  std::map<sink_id, std::vector<token_id>> prompts;
  for (int i = 0; i < 12; ++i) {
    prompts[i] = prompt_of(5 + i % 7, static_cast<token_id>(100 * (i + 1)));
    ASSERT_TRUE(d.submit(request_of(prompts[i], 6 + i % 5), i).ok());
  }
  d.run_to_end();
  for (int i = 0; i < 12; ++i) {
    const std::uint32_t max_tokens = 6 + i % 5;
    EXPECT_EQ(d.tokens(i), expected_stream(prompts[i], max_tokens)) << "sink " << i;
    const auto finals = d.finals(i);
    ASSERT_EQ(finals.size(), 1u);
    EXPECT_TRUE(std::holds_alternative<request_final>(d.received[i].back())) << "final is last";
    EXPECT_EQ(finals[0].reason, finish_reason::length);
    EXPECT_EQ(finals[0].usage.completion_tokens, max_tokens);
    EXPECT_EQ(finals[0].usage.prompt_tokens, prompts[i].size());
  }
  EXPECT_GT(d.core.stats().num_preemptions, 0u) << "the pool should be tight enough";
  EXPECT_EQ(d.core.num_blocks_held(), 0u);
  EXPECT_EQ(d.core.num_requests(), 0u);
}

TEST(EngineCore, NCompletionsRunAsSeparateStreamsAndShareThePromptBlocks) {
  driver d(small_setup());
  generation_request r = request_of(prompt_of(16, 7), 5);
  r.sampling.n = 3;
  ASSERT_TRUE(d.submit(r, 1).ok());
  d.run_to_end();
  const auto finals = d.finals(1);
  ASSERT_EQ(finals.size(), 3u);
  for (std::uint32_t i = 0; i < 3; ++i) {
    EXPECT_EQ(d.tokens(1, i), expected_stream(prompt_of(16, 7), 5)) << "completion " << i;
  }
  // Siblings join after completion 0's prefill: 3 of the prompt's 4 blocks come from the
  // cache for each (the last block is recomputed so the sequence has a token to compute).
  EXPECT_EQ(d.core.stats().prefix_cache_hits, 2u * 12u);
  EXPECT_EQ(d.core.num_blocks_held(), 0u);
}

// request_final::finished marks the request's last final, whichever completion ends last
// and however it ends (run to the end; cancelled before the siblings were queued).
TEST(EngineCore, OnlyTheRequestsLastFinalIsMarkedFinished) {
  driver d(small_setup());
  generation_request r = request_of(prompt_of(16, 7), 5);
  r.sampling.n = 3;
  ASSERT_TRUE(d.submit(r, 1).ok());
  const auto cancelled = d.submit(r, 2);
  ASSERT_TRUE(cancelled.ok());
  d.cancel(*cancelled);  // completion 0 waiting, its siblings never queued
  d.run_to_end();
  for (const sink_id sink : {sink_id{1}, sink_id{2}}) {
    const auto finals = d.finals(sink);
    ASSERT_EQ(finals.size(), 3u) << "sink " << sink;
    EXPECT_FALSE(finals[0].finished) << "sink " << sink;
    EXPECT_FALSE(finals[1].finished) << "sink " << sink;
    EXPECT_TRUE(finals[2].finished) << "sink " << sink;
    const auto* last = std::get_if<request_final>(&d.received[sink].back());
    ASSERT_NE(last, nullptr) << "nothing follows the finished final";
    EXPECT_TRUE(last->finished);
  }
}

TEST(EngineCore, EosEndsWithStopUnlessIgnored) {
  const auto prompt = prompt_of(6, 500);
  const auto stream = expected_stream(prompt, 10);
  engine_core_setup setup = small_setup();
  setup.eos_token_ids = {stream[2]};
  driver d(setup);
  ASSERT_TRUE(d.submit(request_of(prompt, 10), 1).ok());
  generation_request ignoring = request_of(prompt, 10);
  ignoring.sampling.ignore_eos = true;
  ASSERT_TRUE(d.submit(ignoring, 2).ok());
  d.run_to_end();
  EXPECT_EQ(d.tokens(1), std::vector<token_id>(stream.begin(), stream.begin() + 3));
  EXPECT_EQ(d.finals(1).at(0).reason, finish_reason::stop);
  EXPECT_EQ(d.tokens(2), stream);
  EXPECT_EQ(d.finals(2).at(0).reason, finish_reason::length);
}

TEST(EngineCore, CancelWithTwoStepsInFlightReturnsEveryBlock) {
  driver d(small_setup());
  const auto id = d.submit(request_of(prompt_of(9, 40), 50), 1);
  ASSERT_TRUE(id.ok());
  ASSERT_TRUE(d.submit(request_of(prompt_of(9, 900), 8), 2).ok());
  ASSERT_TRUE(d.plan_one());
  d.apply_one();
  ASSERT_TRUE(d.plan_one());
  ASSERT_TRUE(d.plan_one());
  ASSERT_EQ(d.core.num_in_flight_steps(), 2u);
  d.cancel(*id);
  const auto finals = d.finals(1);
  ASSERT_EQ(finals.size(), 1u);
  EXPECT_EQ(finals[0].reason, finish_reason::cancelled);
  d.run_to_end();
  EXPECT_EQ(d.finals(1).size(), 1u) << "no second final from the steps in flight";
  EXPECT_EQ(d.tokens(2), expected_stream(prompt_of(9, 900), 8));
  EXPECT_EQ(d.core.num_blocks_held(), 0u);
  EXPECT_EQ(d.core.stats().num_cancelled, 1u);
}

TEST(EngineCore, AFailedStepFailsExactlyItsRequests) {
  driver d(small_setup());
  ASSERT_TRUE(d.submit(request_of(prompt_of(5, 10), 6), 1).ok());
  ASSERT_TRUE(d.submit(request_of(prompt_of(5, 20), 6), 2).ok());
  ASSERT_TRUE(d.plan_one());  // step 0: both prefills
  d.apply_one();
  ASSERT_TRUE(d.plan_one());  // step 1: both decode
  d.fail_oldest("injected fault");
  for (sink_id s : {1, 2}) {
    const auto finals = d.finals(s);
    ASSERT_EQ(finals.size(), 1u);
    EXPECT_EQ(finals[0].reason, finish_reason::error);
    EXPECT_EQ(finals[0].error_message, "injected fault");
  }
  ASSERT_TRUE(d.submit(request_of(prompt_of(5, 30), 4), 3).ok());
  d.run_to_end();
  EXPECT_EQ(d.tokens(3), expected_stream(prompt_of(5, 30), 4));
  EXPECT_EQ(d.finals(3).at(0).reason, finish_reason::length);
  EXPECT_EQ(d.core.num_blocks_held(), 0u);
  EXPECT_EQ(d.core.stats().num_failed, 2u);
}

TEST(EngineCore, BadRequestsAreRejectedAsValues) {
  driver d(small_setup(64, 2));
  auto expect_error = [&](generation_request r, error_code code) {
    const auto id = d.submit(std::move(r), 9);
    ASSERT_FALSE(id.ok());
    EXPECT_EQ(id.err().code, code) << id.err().message;
  };
  expect_error(request_of({}, 4), error_code::invalid_argument);
  expect_error(request_of(prompt_of(3, 1), 0), error_code::invalid_argument);
  expect_error(request_of({1, 2, 40000}, 4), error_code::invalid_argument);
  generation_request text = request_of({}, 4);
  text.prompt = "hello";
  expect_error(text, error_code::invalid_argument);  // no tokenizer
  generation_request stops = request_of(prompt_of(3, 1), 4);
  stops.sampling.stop = {"x"};
  expect_error(stops, error_code::invalid_argument);
  generation_request many = request_of(prompt_of(3, 1), 4);
  many.sampling.n = 0;
  expect_error(many, error_code::invalid_argument);
  expect_error(request_of(prompt_of(100, 1), 40), error_code::capacity_exceeded);
  ASSERT_TRUE(d.submit(request_of(prompt_of(3, 1), 4), 1).ok());
  ASSERT_TRUE(d.submit(request_of(prompt_of(3, 9), 4), 2).ok());
  expect_error(request_of(prompt_of(3, 5), 4), error_code::overloaded);
  EXPECT_EQ(d.core.stats().num_rejected, 8u);
  d.run_to_end();
  EXPECT_EQ(d.core.num_blocks_held(), 0u);
}

TEST(EngineCore, StopStringEndsTheTextBeforeItAndFreesTheSequence) {
  auto tok = tokenizer::load(testing::tokenizers_dir() / "llama3");
  ASSERT_TRUE(tok.ok()) << tok.err().message;
  const auto prompt = prompt_of(6, 1000);
  const auto stream = expected_stream(prompt, 12);
  const std::string full = (*tok)->decode(stream, true);
  // A stop string from the middle of the generated text (skipping leading whitespace).
  const std::string prefix = (*tok)->decode(std::span(stream).first(4), true);
  std::string stop = full.substr(prefix.size(), 3);
  ASSERT_EQ(stop.size(), 3u);
  engine_core_setup setup = small_setup();
  setup.tok = *tok;
  setup.vocab_size = static_cast<std::uint32_t>((*tok)->vocab_size());
  driver d(setup);
  generation_request r = request_of(prompt, 12);
  r.sampling.stop = {stop};
  ASSERT_TRUE(d.submit(r, 1).ok());
  d.run_to_end();
  std::string text;
  for (const auto& e : d.received[1]) {
    if (const auto* c = std::get_if<token_chunk>(&e)) text += c->text;
  }
  const auto finals = d.finals(1);
  ASSERT_EQ(finals.size(), 1u);
  text += finals[0].text;
  EXPECT_EQ(finals[0].reason, finish_reason::stop);
  EXPECT_EQ(finals[0].stop_string, stop);
  EXPECT_EQ(text, full.substr(0, full.find(stop)));
  EXPECT_LT(finals[0].usage.completion_tokens, 12u);
  EXPECT_EQ(d.core.num_blocks_held(), 0u);
}

}  // namespace
}  // namespace pagedserve

namespace pagedserve {
namespace {

std::shared_ptr<const tokenizer> load_tokenizer(const std::string& name) {
  auto tok = tokenizer::load(testing::tokenizers_dir() / name);
  EXPECT_TRUE(tok.ok()) << (tok.ok() ? "" : tok.err().message);
  return tok.ok() ? *tok : nullptr;
}

TEST(EngineCore, LogprobsLineUpWithTokenIdsWhileStopStringsHoldTextBack) {
  const auto tok = load_tokenizer("llama3");
  ASSERT_NE(tok, nullptr);
  const auto prompt = prompt_of(6, 1000);
  const auto stream = expected_stream(prompt, 12);
  // A stop string that only partly matches keeps text held back on the way.
  const std::string full = tok->decode(stream, true);
  const std::string prefix = tok->decode(std::span(stream).first(4), true);
  const std::string stop = full.substr(prefix.size(), 3);
  engine_core_setup setup = small_setup();
  setup.tok = tok;
  setup.vocab_size = static_cast<std::uint32_t>(tok->vocab_size());
  driver d(setup);
  generation_request with = request_of(prompt, 12);
  with.sampling.stop = {stop, stop + "never-matches"};
  with.sampling.logprobs = 2;
  ASSERT_TRUE(d.submit(with, 1).ok());
  generation_request without = request_of(prompt, 12);
  without.sampling.stop = with.sampling.stop;
  ASSERT_TRUE(d.submit(without, 2).ok());
  d.run_to_end();
  bool some_text_held = false;
  std::size_t num_tokens = 0;
  for (const token_chunk& c : d.chunks(1)) {
    ASSERT_EQ(c.logprobs.size(), c.token_ids.size());
    for (std::size_t i = 0; i < c.token_ids.size(); ++i) {
      const logprobs_result want = fake_logprobs(c.token_ids[i]);
      EXPECT_EQ(c.logprobs[i].token, c.token_ids[i]);
      EXPECT_EQ(c.logprobs[i].logprob, want.chosen_logprob);
      ASSERT_EQ(c.logprobs[i].top.size(), want.top.size());
      EXPECT_EQ(c.logprobs[i].top[1].token, want.top[1].token);
    }
    some_text_held |= c.text.empty() && !c.token_ids.empty();
    num_tokens += c.token_ids.size();
  }
  EXPECT_TRUE(some_text_held) << "the scenario should hold text back at least once";
  EXPECT_EQ(d.finals(1).at(0).reason, finish_reason::stop);
  EXPECT_EQ(num_tokens, d.finals(1).at(0).usage.completion_tokens);
  for (const token_chunk& c : d.chunks(2)) EXPECT_TRUE(c.logprobs.empty()) << "not asked for";
}

TEST(EngineCore, QueueTimeRunsFromArrivalToTheFirstStepOfEachCompletion) {
  driver d(small_setup());
  d.now = 1.0;
  generation_request r = request_of(prompt_of(10, 7), 3);  // one prefill step
  r.sampling.n = 3;
  ASSERT_TRUE(d.submit(r, 1).ok());
  const auto never = d.submit(request_of(prompt_of(5, 50), 3), 2);
  ASSERT_TRUE(never.ok());
  d.cancel(*never);  // before any step: never scheduled
  d.now = 3.5;
  ASSERT_TRUE(d.plan_one());  // completion 0's prefill
  d.apply_one();              // now 3.51: its first token, the siblings join
  d.now = 4.0;
  ASSERT_TRUE(d.plan_one());  // the siblings' first step
  d.run_to_end();
  const auto finals = d.finals(1);
  ASSERT_EQ(finals.size(), 3u);
  for (const request_final& f : finals) {
    EXPECT_DOUBLE_EQ(f.queue_time_s, f.index == 0 ? 2.5 : 3.0) << "completion " << f.index;
  }
  EXPECT_EQ(d.finals(2).at(0).queue_time_s, 0.0);
}

TEST(EngineCore, IterationTokensHistogramObservesEveryStepsBatchedTokens) {
  driver d(small_setup());
  for (int i = 0; i < 6; ++i) {
    ASSERT_TRUE(d.submit(request_of(prompt_of(3 + 7 * i, 100 * (i + 1)), 5), i).ok());
  }
  d.run_to_end();
  const histogram& h = d.core.stats().iteration_tokens;
  ASSERT_EQ(h.upper_bounds, iteration_tokens_buckets());
  // Bucketed here by a linear scan: the first bound >= the value, else the overflow bucket.
  std::vector<std::uint64_t> want(h.upper_bounds.size() + 1, 0);
  double sum = 0.0;
  for (const std::uint32_t n : d.batched_tokens) {
    std::size_t b = 0;
    while (b < h.upper_bounds.size() && static_cast<double>(n) > h.upper_bounds[b]) ++b;
    ++want[b];
    sum += n;
  }
  EXPECT_EQ(h.count, d.batched_tokens.size());
  EXPECT_EQ(h.counts, want);
  EXPECT_DOUBLE_EQ(h.sum, sum);
  EXPECT_GE(std::count_if(want.begin(), want.end(), [](std::uint64_t c) { return c > 0; }), 2)
      << "prefill and decode steps fall in different buckets";
}

TEST(EngineCore, TextPromptsAreEncodedWithOrWithoutSpecialTokensAsAsked) {
  const auto tok = load_tokenizer("llama2");  // its post-processor adds <s>
  ASSERT_NE(tok, nullptr);
  engine_core_setup setup = small_setup();
  setup.tok = tok;
  setup.vocab_size = static_cast<std::uint32_t>(tok->vocab_size());
  driver d(setup);
  for (const bool special : {true, false}) {
    generation_request r = request_of({}, 4);
    r.prompt = "Hello there";
    r.add_special_tokens = special;
    ASSERT_TRUE(d.submit(r, special ? 1 : 2).ok());
  }
  d.run_to_end();
  const auto with = tok->encode("Hello there", true);
  const auto without = tok->encode("Hello there", false);
  ASSERT_EQ(with.size(), without.size() + 1) << "llama2 adds BOS";
  EXPECT_EQ(d.finals(1).at(0).usage.prompt_tokens, with.size());
  EXPECT_EQ(d.finals(2).at(0).usage.prompt_tokens, without.size());
  // The fake model's stream depends on the whole prompt: each saw its own encoding.
  EXPECT_EQ(d.tokens(1), expected_stream(with, 4));
  EXPECT_EQ(d.tokens(2), expected_stream(without, 4));
}

}  // namespace
}  // namespace pagedserve
