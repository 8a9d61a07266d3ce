// The paging knobs change nothing: a prefill cut into chunks of any size, and any block
// size, give the reference logits at every prompt position and the same greedy tokens.

#include <gtest/gtest.h>

#include <string>

#include "tests/runtime/forward/golden_model.h"
#include "tests/runtime/forward/logits_match.h"
#include "tests/runtime/forward/schedule_runner.h"

namespace pagedserve::forward::testing {
namespace {

constexpr std::size_t long_prompt = 3;  // 100 tokens

class paging_invariance : public ::testing::TestWithParam<std::string> {};

TEST_P(paging_invariance, any_prefill_chunk_size_gives_the_reference_logits) {
  golden_model m = golden_model::load(GetParam());
  const golden_prompt& p = m.prompts[long_prompt];
  for (std::int64_t chunk : {1, 3, 7, 16, 99, 100}) {
    const auto records = run_schedule(*m.forward, {{p.ids, chunk, 0, 4}}, 16);
    EXPECT_TRUE(logits_match(records[0].prompt_logits, p.logits)) << "chunk " << chunk;
    EXPECT_EQ(records[0].generated, std::vector<token_id>(p.greedy.begin(), p.greedy.begin() + 4))
        << "chunk " << chunk;
  }
}

TEST_P(paging_invariance, block_sizes_1_16_32_agree_with_the_reference) {
  golden_model m = golden_model::load(GetParam());
  const golden_prompt& p = m.prompts[long_prompt];
  for (std::int64_t block_size : {1, 16, 32}) {
    const std::int64_t num_blocks = (128 + block_size - 1) / block_size * 2;
    const auto records =
        run_schedule(*m.forward, {{p.ids, 40, 0, num_greedy_tokens}}, block_size, num_blocks);
    EXPECT_TRUE(logits_match(records[0].prompt_logits, p.logits)) << "block size " << block_size;
    EXPECT_EQ(records[0].generated, p.greedy) << "block size " << block_size;
    EXPECT_TRUE(logits_match(records[0].generated_logits, p.greedy_logits))
        << "block size " << block_size;
  }
}

INSTANTIATE_TEST_SUITE_P(models, paging_invariance, ::testing::Values("tiny-llama", "tiny-qwen3"),
                         model_test_name);

}  // namespace
}  // namespace pagedserve::forward::testing
