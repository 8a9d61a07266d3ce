// Speculative decoding through the whole engine (facade, actors, scheduler, executor):
// greedy output with n-gram speculation is the output without it, token for token, on the
// shipped demo model and on the HF goldens (against transformers' own greedy continuations),
// with every feature that changes what a position may sample: stop ids and strings,
// max_tokens, min_tokens, penalties, logit bias, bad words, a JSON grammar, logprobs, n > 1,
// and a KV pool small enough to preempt. The engine's spec_decode figures show that
// proposals were made and accepted (the comparison is not vacuous).

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <map>
#include <mutex>

#include "actors/engine.h"
#include "tests/runtime/worker/golden_set.h"
#include "tests/support/test_paths.h"

namespace pagedserve {
namespace {

struct completion {
  std::vector<token_id> ids;
  std::vector<float> logprobs;
  std::string text;
  finish_reason reason = finish_reason::error;
  bool operator==(const completion& o) const {
    return ids == o.ids && text == o.text && reason == o.reason;
  }
};

using completions = std::vector<std::map<std::uint32_t, completion>>;  // per request, by index

// Submits every request at once (they batch) and waits for all their finals.
completions run_all(engine& e, const std::vector<generation_request>& requests) {
  std::mutex mutex;
  std::condition_variable cv;
  completions out(requests.size());
  std::size_t num_finals = 0;
  std::size_t num_expected = 0;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    num_expected += requests[i].sampling.n;
    auto id = e.submit(requests[i], [&, i](const engine_event& event) {
      const std::scoped_lock lock(mutex);
      if (const auto* chunk = std::get_if<token_chunk>(&event)) {
        completion& c = out[i][chunk->index];
        c.ids.insert(c.ids.end(), chunk->token_ids.begin(), chunk->token_ids.end());
        for (const chunk_logprob& lp : chunk->logprobs) c.logprobs.push_back(lp.logprob);
        c.text += chunk->text;
      } else if (const auto* final = std::get_if<request_final>(&event)) {
        out[i][final->index].reason = final->reason;
        ++num_finals;
        cv.notify_all();
      }
    });
    EXPECT_TRUE(id.ok()) << (id.ok() ? "" : id.err().message);
  }
  std::unique_lock lock(mutex);
  EXPECT_TRUE(
      cv.wait_for(lock, std::chrono::seconds(120), [&] { return num_finals == num_expected; }));
  return out;
}

// Fixed depth (not adaptive): every decoding step speculates, whatever the timing says.
speculative_config ngram(std::uint32_t k, std::uint32_t max_n = 3) {
  auto parsed = parse_speculative_config(
      "{\"method\": \"ngram\", \"num_speculative_tokens\": " + std::to_string(k) +
      ", \"prompt_lookup_min\": 1, \"prompt_lookup_max\": " + std::to_string(max_n) +
      ", \"adaptive\": false}");
  EXPECT_TRUE(parsed.ok()) << (parsed.ok() ? "" : parsed.err().message);
  return parsed.ok() ? *parsed : speculative_config{};
}

generation_request greedy(std::string prompt, std::uint32_t max_tokens) {
  generation_request r;
  r.prompt = std::move(prompt);
  r.sampling.temperature = 0.0f;
  r.sampling.max_tokens = max_tokens;
  return r;
}

// The demo model's requests: copy-friendly prompts (repeated phrases the lookup finds) and
// plain ones, each with a feature that changes what a position may sample.
std::vector<generation_request> demo_requests() {
  const std::string repeat =
      "The committee met on Monday. The committee met on Monday and voted. The committee met";
  std::vector<generation_request> r;
  r.push_back(greedy(repeat, 48));
  r.push_back(greedy("It was a cold night in the city, and the", 40));
  generation_request stops = greedy(repeat, 40);
  stops.sampling.stop = {" voted"};
  r.push_back(stops);
  generation_request penalties = greedy(repeat, 40);
  penalties.sampling.repetition_penalty = 1.3f;
  penalties.sampling.frequency_penalty = 0.2f;
  r.push_back(penalties);
  generation_request bias = greedy("The old man said that he", 32);
  bias.sampling.logit_bias = {{262, 5.0f}, {13, -100.0f}};
  bias.sampling.min_tokens = 20;
  r.push_back(bias);
  generation_request logprobs = greedy(repeat, 32);
  logprobs.sampling.logprobs = 3;
  r.push_back(logprobs);
  generation_request json = greedy("Answer in JSON:", 40);
  json.sampling.structured_outputs = structured_outputs_params{};
  r.push_back(json);
  generation_request siblings = greedy(repeat, 24);
  siblings.sampling.n = 3;
  r.push_back(siblings);
  return r;
}

engine_config demo_config() {
  engine_config config;  // the built-in demo model
  config.sched.max_model_len = 256;
  config.sched.num_blocks = 12;  // 192 token slots for 10 sequences: preemptions happen
  config.sched.block_size = 16;
  return config;
}

struct speculative_run {
  completions out;
  engine_stats stats;
};

speculative_run run_on(engine_config config, const std::vector<generation_request>& requests) {
  auto started = engine::start(config);
  EXPECT_TRUE(started.ok()) << (started.ok() ? "" : started.err().message);
  if (!started.ok()) return {};
  speculative_run run{run_all(**started, requests), (*started)->stats()};
  return run;
}

speculative_config parsed(const std::string& json) {
  auto config = parse_speculative_config(json);
  EXPECT_TRUE(config.ok()) << (config.ok() ? "" : config.err().message);
  return config.ok() ? *config : speculative_config{};
}

TEST(SpeculativeDecoding, GreedyDemoOutputIsTheSameWithSpeculation) {
  const std::vector<generation_request> requests = demo_requests();
  const speculative_run plain = run_on(demo_config(), requests);
  EXPECT_GT(plain.stats.num_preemptions, 0u) << "the small pool should preempt";
  struct variant {
    std::string json;
    bool always = true;  // fixed depth: proposals must have been verified
  };
  const variant variants[] = {
      {R"({"method": "ngram", "num_speculative_tokens": 1, "prompt_lookup_min": 1, "adaptive": false})"},
      {R"({"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_max": 3, "prompt_lookup_min": 1, "adaptive": false})"},
      {R"({"method": "ngram", "num_speculative_tokens": 8, "prompt_lookup_max": 3, "prompt_lookup_min": 1, "adaptive": false})"},
      {R"({"method": "suffix", "num_speculative_tokens": 8, "adaptive": false})"},
      {R"({"method": "draft_model", "model": "pagedserve-demo-draft", "num_speculative_tokens": 3, "adaptive": false})"},
      {R"({"method": "ngram", "num_speculative_tokens": 8, "prompt_lookup_max": 4, "prompt_lookup_min": 2})",
       false},
  };
  for (const variant& v : variants) {
    engine_config config = demo_config();
    config.speculative = parsed(v.json);
    const speculative_run fast = run_on(config, requests);
    SCOPED_TRACE(v.json);
    ASSERT_EQ(fast.out.size(), plain.out.size());
    for (std::size_t i = 0; i < requests.size(); ++i) {
      EXPECT_EQ(fast.out[i], plain.out[i])
          << "request " << i << ": " << fast.out[i].at(0).text << " | " << plain.out[i].at(0).text;
      // Logprobs come from each verified position's own logits row.
      const auto& a = fast.out[i].at(0).logprobs;
      const auto& b = plain.out[i].at(0).logprobs;
      ASSERT_EQ(a.size(), b.size());
      for (std::size_t t = 0; t < a.size(); ++t) EXPECT_NEAR(a[t], b[t], 1e-4) << t;
    }
    EXPECT_LE(fast.stats.spec_decode_num_accepted_tokens, fast.stats.spec_decode_num_draft_tokens);
    if (!v.always) continue;
    EXPECT_GT(fast.stats.spec_decode_num_drafts, 0u);
    EXPECT_GT(fast.stats.spec_decode_num_accepted_tokens, 0u);
    EXPECT_LT(fast.stats.num_steps, plain.stats.num_steps) << "accepted tokens save steps";
  }
}

// One request at a time, so each runs in the same batches both times (which step a
// concurrent request joins depends on timing, and with it which path reads its rows).
TEST(SpeculativeDecoding, SeededSamplingIsReproducibleWithSpeculation) {
  std::vector<generation_request> requests = demo_requests();
  for (generation_request& r : requests) {
    r.sampling.temperature = 0.8f;
    r.sampling.top_p = 0.95f;
    r.sampling.seed = 11;
  }
  engine_config config = demo_config();
  config.speculative = parsed(
      R"({"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_min": 1, "adaptive": false})");
  auto first = engine::start(config);
  auto second = engine::start(config);
  ASSERT_TRUE(first.ok() && second.ok());
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const completions a = run_all(**first, {requests[i]});
    const completions b = run_all(**second, {requests[i]});
    EXPECT_EQ(a[0], b[0]) << i;
  }
  EXPECT_GT((*first)->stats().spec_decode_num_drafts, 0u);
}

TEST(SpeculativeDecoding, GreedyGoldensAreTransformersContinuationsWithSpeculation) {
  std::uint64_t num_accepted = 0;
  for (const char* name : {"tiny-llama", "tiny-qwen2", "tiny-qwen3", "tiny-mixtral"}) {
    SCOPED_TRACE(name);
    const engine_testing::golden_set golden = engine_testing::load_golden(name);
    engine_config config;
    config.model_dir = (testing::goldens_dir() / "models" / name).string();
    config.sched.max_model_len = 128;
    config.speculative = ngram(4, 2);
    auto started = engine::start(config);
    ASSERT_TRUE(started.ok()) << started.err().message;
    // HF's prompts and greedy continuations, and prompts that repeat themselves (the lookup
    // proposes much there) against the engine without speculation.
    std::vector<generation_request> requests;
    for (const std::vector<token_id>& prompt : golden.prompts) {
      generation_request r;
      r.prompt_token_ids = prompt;
      r.sampling.temperature = 0.0f;
      r.sampling.max_tokens = static_cast<std::uint32_t>(golden.greedy.front().size());
      r.sampling.ignore_eos = true;
      requests.push_back(r);
    }
    const std::size_t num_golden = requests.size();
    for (int i = 0; i < 3; ++i) {
      generation_request r;
      for (int j = 0; j < 24; ++j) {
        r.prompt_token_ids.push_back(static_cast<token_id>(5 + (j * (i + 2)) % 7));
      }
      r.sampling.temperature = 0.0f;
      r.sampling.max_tokens = 32;
      r.sampling.ignore_eos = true;
      requests.push_back(r);
    }
    const completions fast = run_all(**started, requests);
    for (std::size_t i = 0; i < num_golden; ++i) {
      EXPECT_EQ(fast[i].at(0).ids, golden.greedy[i]) << "golden prompt " << i;
    }
    config.speculative = {};
    auto plain_engine = engine::start(config);
    ASSERT_TRUE(plain_engine.ok());
    const completions plain = run_all(**plain_engine, requests);
    for (std::size_t i = num_golden; i < requests.size(); ++i) {
      EXPECT_EQ(fast[i], plain[i]) << "repeating prompt " << i;
    }
    const engine_stats stats = (*started)->stats();
    EXPECT_GT(stats.spec_decode_num_drafts, 0u);
    num_accepted += stats.spec_decode_num_accepted_tokens;
  }
  EXPECT_GT(num_accepted, 0u);
}

// A golden as its own draft: the draft's argmax is the target's, so (up to float ties) every
// proposal is accepted. A draft that read its K/V at the wrong positions or blocks (the
// catch-up, the feeding back of proposals, the clamp after rejections, preemption's reload)
// would propose noise and be rejected; the output is the golden's greedy continuation either
// way, which the test checks too.
TEST(SpeculativeDecoding, AGoldenDraftingForItselfHasEveryProposalAccepted) {
  for (const char* name : {"tiny-llama", "tiny-qwen3"}) {
    SCOPED_TRACE(name);
    const engine_testing::golden_set golden = engine_testing::load_golden(name);
    const std::string dir = (testing::goldens_dir() / "models" / name).string();
    engine_config config;
    config.model_dir = dir;
    config.sched.max_model_len = 160;
    config.sched.num_blocks = 10;  // one 160-token sequence; every prompt thrice: preemptions
    config.speculative = parsed(R"({"method": "draft_model", "model": ")" + dir +
                                R"(", "num_speculative_tokens": 3, "adaptive": false})");
    auto started = engine::start(config);
    ASSERT_TRUE(started.ok()) << started.err().message;
    std::vector<generation_request> requests;  // every prompt three times
    for (int copy = 0; copy < 3; ++copy) {
      for (const std::vector<token_id>& prompt : golden.prompts) {
        generation_request r;
        r.prompt_token_ids = prompt;
        r.sampling.temperature = 0.0f;
        r.sampling.max_tokens = 48;  // past HF's continuation: the pool runs short
        r.sampling.ignore_eos = true;
        requests.push_back(r);
      }
    }
    const completions out = run_all(**started, requests);
    for (std::size_t i = 0; i < requests.size(); ++i) {
      const std::vector<token_id>& hf = golden.greedy[i % golden.prompts.size()];
      ASSERT_GE(out[i].at(0).ids.size(), hf.size());
      EXPECT_EQ(std::vector<token_id>(out[i].at(0).ids.begin(),
                                      out[i].at(0).ids.begin() + std::ssize(hf)),
                hf)
          << "request " << i;
    }
    const engine_stats stats = (*started)->stats();
    EXPECT_GT(stats.num_preemptions, 0u) << "the small pool should preempt";
    EXPECT_GT(stats.spec_decode_num_draft_tokens, 30u);
    EXPECT_GE(static_cast<double>(stats.spec_decode_num_accepted_tokens),
              0.95 * static_cast<double>(stats.spec_decode_num_draft_tokens));
  }
}

// A draft is refused at start-up, with the reason, when it cannot draft for the target.
TEST(SpeculativeDecoding, ADraftThatDoesNotFitTheTargetIsRefused) {
  engine_config config;
  config.model_dir = (testing::goldens_dir() / "models" / "tiny-llama").string();
  config.sched.max_model_len = 128;
  config.speculative = parsed(
      R"({"method": "draft_model", "model": "pagedserve-demo-draft", "num_speculative_tokens": 2})");
  auto vocab = engine::start(config);
  ASSERT_FALSE(vocab.ok());
  EXPECT_NE(vocab.err().message.find("vocab_size 4096 is not the target's"), std::string::npos)
      << vocab.err().message;
  config.speculative.model = (testing::goldens_dir() / "no-such-draft").string();
  auto missing = engine::start(config);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.err().message.find("speculative_config model"), std::string::npos)
      << missing.err().message;
}

}  // namespace
}  // namespace pagedserve
