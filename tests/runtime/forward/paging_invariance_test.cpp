// The paging knobs change nothing: a prefill cut into chunks of any size, and any block
// size, give the reference logits at every prompt position and the same greedy tokens.

#include <gtest/gtest.h>

#include <algorithm>
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

// One output-layer pass for every row (forward_batch::only_all_logits, what speculative
// verification uses): every row still gives the reference logits, and each sequence's last
// logits are its last row's.
TEST_P(paging_invariance, one_output_pass_for_every_row_gives_the_reference_logits) {
  golden_model m = golden_model::load(GetParam());
  const golden_prompt& p = m.prompts[long_prompt];
  const std::int64_t block_size = 16;
  paged_kv_cache cache(m.forward->backend(),
                       kv_cache_layout::for_model(m.forward->config(), 32, block_size));
  std::vector<block_id> first;
  std::vector<block_id> second;
  for (std::uint32_t b = 0; b < 8; ++b) first.emplace_back(b);
  for (std::uint32_t b = 8; b < 16; ++b) second.emplace_back(b);
  const std::span<const token_id> ids = p.ids;
  forward_batch batch;
  batch.sequences.push_back({ids, 0, first});
  batch.sequences.push_back({ids.first(50), 0, second});
  batch.return_all_logits = true;
  batch.only_all_logits = true;
  const forward_output out = m.forward->run(batch, cache);
  const auto vocab = static_cast<std::size_t>(m.config.vocab_size);
  ASSERT_EQ(out.all_logits.size(), (ids.size() + 50) * vocab);
  EXPECT_TRUE(
      logits_match(std::span<const float>(out.all_logits).first(ids.size() * vocab), p.logits));
  ASSERT_EQ(out.last_logits.size(), 2 * vocab);
  const std::span<const float> last0 = out.last(0);
  const std::span<const float> row0 = out.row(ids.size() - 1);
  EXPECT_TRUE(std::equal(last0.begin(), last0.end(), row0.begin()));
  const std::span<const float> last1 = out.last(1);
  const std::span<const float> row1 = out.row(ids.size() + 49);
  EXPECT_TRUE(std::equal(last1.begin(), last1.end(), row1.begin()));
  EXPECT_TRUE(logits_match(last1, std::span<const float>(p.logits).subspan(49 * vocab, vocab)));
}

INSTANTIATE_TEST_SUITE_P(models, paging_invariance, ::testing::Values("tiny-llama", "tiny-qwen3"),
                         model_test_name);

}  // namespace
}  // namespace pagedserve::forward::testing
