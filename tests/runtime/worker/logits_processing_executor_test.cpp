// The logits processing through the CPU step executor (host sampling), on the HF goldens:
// repetition_penalty is HF's RepetitionPenaltyLogitsProcessor on the golden logits, a
// logit_bias of +100 makes greedy pick its token at every step, min_tokens holds the stop
// ids back, and the counts behind the penalties survive a preemption. The device path is
// held to these results in device_step_executor_test.cpp.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "runtime/engine/engine_start.h"
#include "runtime/sampling/logits_processing.h"
#include "runtime/worker/step_executor.h"
#include "tests/runtime/worker/golden_set.h"
#include "tests/runtime/worker/step_executor_test_driver.h"

namespace pagedserve {
namespace {

using engine_testing::golden_set;
using engine_testing::greedy_params;
using engine_testing::load_golden;
using engine_testing::num_golden_prompts;
using engine_testing::test_driver;

std::unique_ptr<step_executor> make_executor(const golden_set& g) {
  return engine_testing::make_cpu_golden_executor(g);
}

seq_id seq_of(int prompt) { return seq_id{static_cast<std::uint64_t>(prompt) + 1}; }

// transformers' RepetitionPenaltyLogitsProcessor.__call__, step for step:
//   score = torch.gather(scores, 1, input_ids)
//   score = torch.where(score < 0, score * penalty, score / penalty)
//   scores.scatter_(1, input_ids, score)
// (every occurrence gathers the original score, so repeats scatter the same value).
std::vector<float> hf_repetition_penalty(std::vector<float> scores,
                                         const std::vector<token_id>& input_ids, float penalty) {
  std::vector<float> gathered;
  for (const token_id id : input_ids) gathered.push_back(scores[static_cast<std::size_t>(id)]);
  for (float& score : gathered) score = score < 0 ? score * penalty : score / penalty;
  for (std::size_t i = 0; i < input_ids.size(); ++i) {
    scores[static_cast<std::size_t>(input_ids[i])] = gathered[i];
  }
  return scores;
}

TEST(logits_processing_golden, repetition_penalty_is_hfs_processor_on_the_golden_logits) {
  for (const char* name : {"tiny-llama", "tiny-qwen3"}) {
    const golden_set g = load_golden(name);
    const auto vocab = static_cast<std::size_t>(g.config.vocab_size);
    for (int i = 0; i < num_golden_prompts; ++i) {
      const auto& prompt = g.prompts[static_cast<std::size_t>(i)];
      const auto& greedy = g.greedy[static_cast<std::size_t>(i)];
      const auto& rows = g.greedy_logits[static_cast<std::size_t>(i)];
      for (std::size_t t = 0; t < greedy.size(); ++t) {
        const std::vector<float> row(rows.begin() + static_cast<std::ptrdiff_t>(t * vocab),
                                     rows.begin() + static_cast<std::ptrdiff_t>((t + 1) * vocab));
        const std::vector<token_id> generated(greedy.begin(),
                                              greedy.begin() + static_cast<std::ptrdiff_t>(t));
        std::vector<token_id> input_ids = prompt;
        input_ids.insert(input_ids.end(), generated.begin(), generated.end());
        for (const float penalty : {1.3f, 0.8f}) {
          sampling_params params;
          params.repetition_penalty = penalty;
          token_counts counts;
          counts.reset(prompt, generated);
          std::vector<float> ours = row;
          process_logits(ours, params, {}, &counts);
          const std::vector<float> want = hf_repetition_penalty(row, input_ids, penalty);
          ASSERT_EQ(std::memcmp(ours.data(), want.data(), vocab * sizeof(float)), 0)
              << name << " prompt " << i << " step " << t << " penalty " << penalty;
        }
      }
    }
  }
}

TEST(logits_processing_executor, logit_bias_of_100_makes_greedy_choose_its_token_every_step) {
  const golden_set g = load_golden("tiny-qwen2");
  sampling_params params = greedy_params();
  params.logit_bias = {{7, 100.0f}};
  auto executor = make_executor(g);
  test_driver driver(*executor, {.chunk = 5, .lookahead = true, .params = params});
  for (int i = 0; i < num_golden_prompts; ++i) driver.add(seq_of(i), g.prompts[i]);
  driver.run_to_end(8);
  for (int i = 0; i < num_golden_prompts; ++i) {
    EXPECT_EQ(driver.generated(seq_of(i)), std::vector<token_id>(8, 7)) << "prompt " << i;
  }
}

// The golden's first greedy step sees HF's logits greedy_logits[i][0]: the pick must be
// their argmax among the allowed tokens, and every later pick an allowed token.
TEST(logits_processing_executor, allowed_token_ids_pick_the_best_allowed_golden_logit) {
  const golden_set g = load_golden("tiny-llama");
  const auto vocab = static_cast<std::size_t>(g.config.vocab_size);
  sampling_params params = greedy_params();
  for (token_id t = 3; t < static_cast<token_id>(vocab); t += 7)
    params.allowed_token_ids.push_back(t);
  auto executor = make_executor(g);
  test_driver driver(*executor, {.chunk = 5, .lookahead = true, .params = params});
  for (int i = 0; i < num_golden_prompts; ++i) driver.add(seq_of(i), g.prompts[i]);
  driver.run_to_end(6);
  for (int i = 0; i < num_golden_prompts; ++i) {
    const std::vector<float>& first = g.greedy_logits[static_cast<std::size_t>(i)];
    token_id best = params.allowed_token_ids.front();
    for (const token_id t : params.allowed_token_ids) {
      if (first[static_cast<std::size_t>(t)] > first[static_cast<std::size_t>(best)]) best = t;
    }
    const std::vector<token_id> out = driver.generated(seq_of(i));
    ASSERT_EQ(out.size(), 6U);
    EXPECT_EQ(out[0], best) << "prompt " << i;
    for (const token_id t : out) EXPECT_EQ((t - 3) % 7, 0) << "prompt " << i;
  }
}

// Bad words against the greedy goldens: banning the first greedy token as a one-token word
// makes the first pick the runner-up of HF's first logits; the two-token word (greedy[0],
// greedy[1]) leaves the first pick and turns the second into the runner-up of HF's second
// logits (the context up to there is the golden's).
TEST(logits_processing_executor, bad_words_turn_greedy_to_the_golden_runner_up) {
  const golden_set g = load_golden("tiny-llama");
  const auto vocab = static_cast<std::size_t>(g.config.vocab_size);
  auto runner_up = [&](int prompt, std::size_t step) {
    const float* row = g.greedy_logits[static_cast<std::size_t>(prompt)].data() + step * vocab;
    const token_id banned = g.greedy[static_cast<std::size_t>(prompt)][step];
    token_id best = banned == 0 ? 1 : 0;
    for (token_id t = 0; t < static_cast<token_id>(vocab); ++t) {
      if (t != banned && row[t] > row[best]) best = t;
    }
    return best;
  };
  for (int i = 0; i < num_golden_prompts; ++i) {
    const std::vector<token_id>& greedy = g.greedy[static_cast<std::size_t>(i)];
    for (const bool two_tokens : {false, true}) {
      sampling_params params = greedy_params();
      params.bad_words_token_ids = {two_tokens ? std::vector<token_id>{greedy[0], greedy[1]}
                                               : std::vector<token_id>{greedy[0]}};
      auto executor = make_executor(g);
      test_driver driver(*executor, {.chunk = 9, .lookahead = true, .params = params});
      driver.add(seq_of(i), g.prompts[i]);
      driver.run_to_end(3);
      const std::vector<token_id> out = driver.generated(seq_of(i));
      if (two_tokens) {
        EXPECT_EQ(out[0], greedy[0]) << "prompt " << i;
        EXPECT_EQ(out[1], runner_up(i, 1)) << "prompt " << i;
      } else {
        EXPECT_EQ(out[0], runner_up(i, 0)) << "prompt " << i;
      }
    }
  }
}

TEST(logits_processing_executor, min_tokens_keeps_the_stop_ids_out_of_the_first_tokens) {
  const golden_set g = load_golden("tiny-llama");
  // Each prompt's first greedy token is a stop id here: min_tokens 3 keeps it out of the
  // first three tokens; the unconstrained run shows it would have come first.
  for (int i = 0; i < num_golden_prompts; ++i) {
    const token_id first = g.greedy[static_cast<std::size_t>(i)][0];
    sampling_params params = greedy_params();
    params.min_tokens = 3;
    auto executor = make_executor(g);
    test_driver driver(*executor, {.params = params, .held_stop_token_ids = {first}});
    driver.add(seq_of(i), g.prompts[i]);
    driver.run_to_end(6);
    const std::vector<token_id> out = driver.generated(seq_of(i));
    ASSERT_EQ(out.size(), 6U);
    EXPECT_EQ(std::count(out.begin(), out.begin() + 3, first), 0) << "prompt " << i;
    EXPECT_NE(out[0], first);
  }
}

TEST(logits_processing_executor, penalties_count_the_same_tokens_across_a_preemption) {
  const golden_set g = load_golden("tiny-qwen3");
  sampling_params params;
  params.temperature = 0.8f;
  params.seed = 99;
  params.presence_penalty = 1.5f;
  params.frequency_penalty = 0.5f;
  params.repetition_penalty = 1.4f;
  auto run = [&](bool preempt) {
    auto executor = make_executor(g);
    test_driver driver(*executor, {.chunk = 7, .lookahead = true, .params = params});
    for (int i = 0; i < num_golden_prompts; ++i) driver.add(seq_of(i), g.prompts[i]);
    for (int guard = 0; preempt && driver.next_step() < 12 && guard < 20; ++guard) {
      if (driver.next_step() == 9) driver.preempt_next(seq_of(1));
      EXPECT_TRUE(driver.step().ok());
    }
    driver.run_to_end(16);
    std::vector<std::vector<token_id>> out;
    for (int i = 0; i < num_golden_prompts; ++i) out.push_back(driver.generated(seq_of(i)));
    return out;
  };
  const auto plain = run(false);
  EXPECT_EQ(run(true), plain);
  // And the penalties act: without them the same seeds sample something else.
  params.presence_penalty = params.frequency_penalty = 0.0f;
  params.repetition_penalty = 1.0f;
  EXPECT_NE(run(false), plain);
}

}  // namespace
}  // namespace pagedserve
