// The forward pass against the HF goldens: every prompt position's logits, and 24 greedy
// tokens (ids exactly, logits within tolerance), for every golden model.

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "tests/runtime/forward/golden_checks.h"

namespace pagedserve::forward::testing {
namespace {

class golden_forward : public ::testing::TestWithParam<std::string> {};

TEST_P(golden_forward, each_prompt_alone_matches_logits_and_greedy_tokens) {
  golden_model m = golden_model::load(GetParam());
  expect_each_prompt_alone_matches(m);
}

TEST_P(golden_forward, four_prompts_in_one_mixed_batch_match_each_alone) {
  golden_model m = golden_model::load(GetParam());
  expect_mixed_batch_matches(m);
}

INSTANTIATE_TEST_SUITE_P(models, golden_forward,
                         ::testing::Values("tiny-llama", "tiny-llama-bf16", "tiny-qwen2",
                                           "tiny-qwen3", "tiny-qwen3-moe", "tiny-mixtral",
                                           "tiny-qwen2-moe"),
                         model_test_name);

}  // namespace
}  // namespace pagedserve::forward::testing
