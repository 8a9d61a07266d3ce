// prompt_logprobs through the CPU step executor, on the HF goldens: every prompt position
// after the first gets the logprob of its token under HF's logits at the position before
// (log_softmax computed here in double), with top alternatives and rank, exactly once,
// whether the prefill ran in one step, in chunks, or was preempted halfway and recomputed.
// The device path is held to these results in device_step_executor_test.cpp.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "runtime/engine/engine_start.h"
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

constexpr std::int32_t k_num_top = 5;
// Our fp32 forward against HF's fp32 logits (the forward tests hold logits to ~1e-4).
constexpr double k_tolerance = 2e-3;

std::unique_ptr<step_executor> make_executor(const golden_set& g) {
  return engine_testing::make_cpu_golden_executor(g);
}

seq_id seq_of(int prompt) { return seq_id{static_cast<std::uint64_t>(prompt) + 1}; }

sampling_params with_prompt_logprobs() {
  sampling_params p = greedy_params();
  p.prompt_logprobs = k_num_top;
  return p;
}

// log_softmax of one row of HF's logits, in double.
std::vector<double> log_softmax(std::span<const float> logits) {
  const double max = *std::max_element(logits.begin(), logits.end());
  double sum = 0.0;
  for (const float x : logits) sum += std::exp(static_cast<double>(x) - max);
  const double log_sum = max + std::log(sum);
  std::vector<double> out;
  for (const float x : logits) out.push_back(static_cast<double>(x) - log_sum);
  return out;
}

// Each reported position against HF's logits at the position before it.
void expect_hfs_prompt_logprobs(const golden_set& g, int prompt,
                                const std::vector<logprobs_result>& got) {
  const std::vector<token_id>& ids = g.prompts[static_cast<std::size_t>(prompt)];
  const auto vocab = static_cast<std::size_t>(g.config.vocab_size);
  ASSERT_EQ(got.size(), ids.size() - 1) << "prompt " << prompt << ": one per position after 0";
  for (std::size_t pos = 1; pos < ids.size(); ++pos) {
    const std::span<const float> row =
        std::span<const float>(g.prompt_logits[static_cast<std::size_t>(prompt)])
            .subspan((pos - 1) * vocab, vocab);
    const std::vector<double> want = log_softmax(row);
    const logprobs_result& lp = got[pos - 1];
    const auto chosen = static_cast<std::size_t>(ids[pos]);
    EXPECT_NEAR(lp.chosen_logprob, want[chosen], k_tolerance) << prompt << "/" << pos;
    // Rank: 1 + tokens with a larger logit, allowing ties within the tolerance either way.
    const auto above = [&](double margin) {
      return std::count_if(want.begin(), want.end(),
                           [&](double w) { return w > want[chosen] + margin; });
    };
    EXPECT_GE(lp.chosen_rank, 1 + above(k_tolerance)) << prompt << "/" << pos;
    EXPECT_LE(lp.chosen_rank, 1 + above(-k_tolerance)) << prompt << "/" << pos;
    ASSERT_EQ(lp.top.size(), static_cast<std::size_t>(k_num_top));
    std::vector<double> sorted = want;
    std::sort(sorted.rbegin(), sorted.rend());
    for (std::size_t k = 0; k < lp.top.size(); ++k) {
      const auto token = static_cast<std::size_t>(lp.top[k].token);
      EXPECT_NEAR(lp.top[k].logprob, want[token], k_tolerance) << prompt << "/" << pos;
      EXPECT_NEAR(lp.top[k].logprob, sorted[k], k_tolerance) << "the k-th most likely";
    }
  }
}

TEST(prompt_logprobs_executor, every_position_is_hfs_log_softmax_in_one_step_and_in_chunks) {
  for (const char* name : {"tiny-llama", "tiny-qwen3"}) {
    SCOPED_TRACE(name);
    const golden_set g = load_golden(name);
    for (const std::uint32_t chunk : {1U << 20, 13U}) {
      SCOPED_TRACE(chunk);
      auto executor = make_executor(g);
      ASSERT_NE(executor, nullptr);
      test_driver driver(*executor, {.chunk = chunk, .params = with_prompt_logprobs()});
      for (int i = 0; i < num_golden_prompts; ++i) driver.add(seq_of(i), g.prompts[i]);
      driver.run_to_end(2);
      for (int i = 0; i < num_golden_prompts; ++i) {
        expect_hfs_prompt_logprobs(g, i, driver.prompt_logprobs(seq_of(i)));
        EXPECT_EQ(driver.generated(seq_of(i)),
                  std::vector<token_id>(g.greedy[i].begin(), g.greedy[i].begin() + 2));
      }
    }
  }
}

// Preempted after three of its eight chunks: the resumed prefill recomputes from position
// 0, and the positions already reported are not reported again.
TEST(prompt_logprobs_executor, a_prefill_preempted_halfway_reports_each_position_once) {
  const golden_set g = load_golden("tiny-llama");
  auto executor = make_executor(g);
  ASSERT_NE(executor, nullptr);
  test_driver driver(*executor, {.chunk = 13, .params = with_prompt_logprobs()});
  const int longest = num_golden_prompts - 1;  // 100 tokens
  driver.add(seq_of(longest), g.prompts[longest]);
  for (int s = 0; s < 3; ++s) ASSERT_TRUE(driver.step().ok());
  driver.preempt_next(seq_of(longest));
  driver.run_to_end(2);
  expect_hfs_prompt_logprobs(g, longest, driver.prompt_logprobs(seq_of(longest)));
}

TEST(prompt_logprobs_executor, none_without_the_field) {
  const golden_set g = load_golden("tiny-llama");
  auto executor = make_executor(g);
  ASSERT_NE(executor, nullptr);
  test_driver driver(*executor, {.chunk = 13});
  driver.add(seq_of(2), g.prompts[2]);
  driver.run_to_end(2);
  EXPECT_TRUE(driver.prompt_logprobs(seq_of(2)).empty());
}

}  // namespace
}  // namespace pagedserve
