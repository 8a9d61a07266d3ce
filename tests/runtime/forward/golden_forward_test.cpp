// The forward pass against the HF goldens: every prompt position's logits, and 24 greedy
// tokens (ids exactly, logits within tolerance), for every golden model.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "tests/runtime/forward/golden_model.h"
#include "tests/runtime/forward/logits_match.h"
#include "tests/runtime/forward/schedule_runner.h"

namespace pagedserve::forward::testing {
namespace {

class golden_forward : public ::testing::TestWithParam<std::string> {};

TEST_P(golden_forward, each_prompt_alone_matches_logits_and_greedy_tokens) {
  golden_model m = golden_model::load(GetParam());
  for (int i = 0; i < num_golden_prompts; ++i) {
    const golden_prompt& p = m.prompts[static_cast<std::size_t>(i)];
    const auto records = run_schedule(*m.forward, {{p.ids}}, 16);
    EXPECT_TRUE(logits_match(records[0].prompt_logits, p.logits)) << "prompt " << i;
    EXPECT_EQ(records[0].generated, p.greedy) << "prompt " << i;
    EXPECT_TRUE(logits_match(records[0].generated_logits, p.greedy_logits)) << "prompt " << i;
  }
}

TEST_P(golden_forward, four_prompts_in_one_mixed_batch_match_each_alone) {
  golden_model m = golden_model::load(GetParam());
  // Staggered starts and chunked prefills: the short prompts decode while the long ones are
  // still prefilling, so steps mix prefill chunks with decode tokens.
  std::vector<scheduled_sequence> seqs;
  for (int i = 0; i < num_golden_prompts; ++i) {
    seqs.push_back({m.prompts[static_cast<std::size_t>(i)].ids, 13, i, num_greedy_tokens});
  }
  const auto records = run_schedule(*m.forward, seqs, 16);
  for (int i = 0; i < num_golden_prompts; ++i) {
    const golden_prompt& p = m.prompts[static_cast<std::size_t>(i)];
    const sequence_record& r = records[static_cast<std::size_t>(i)];
    EXPECT_TRUE(logits_match(r.prompt_logits, p.logits)) << "prompt " << i;
    EXPECT_EQ(r.generated, p.greedy) << "prompt " << i;
    EXPECT_TRUE(logits_match(r.generated_logits, p.greedy_logits)) << "prompt " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(models, golden_forward,
                         ::testing::Values("tiny-llama", "tiny-llama-bf16", "tiny-qwen2",
                                           "tiny-qwen3"),
                         model_test_name);

}  // namespace
}  // namespace pagedserve::forward::testing
