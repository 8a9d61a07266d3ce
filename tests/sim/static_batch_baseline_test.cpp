// static_batch_baseline on the demo model shape: the report's counts follow the static
// batching rules (recomputed here from the requests alone), and an unpadded request decodes
// exactly as direct greedy decoding with model_forward does.

#include "sim/static_batch_baseline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "kernels/cpu/cpu_backend.h"
#include "runtime/forward/model_forward.h"
#include "runtime/forward/paged_kv_cache.h"
#include "runtime/model/checkpoint.h"
#include "runtime/model/demo_model.h"
#include "runtime/sampling/sampler.h"

namespace pagedserve::sim {
namespace {

workload_request request(std::vector<token_id> prompt, std::uint32_t max_tokens) {
  workload_request r;
  r.prompt_token_ids = std::move(prompt);
  r.max_tokens = max_tokens;
  return r;
}

// Prompts of 3, 7, 5, 2 and 6 tokens; outputs of 4, 2, 6, 3 and 5.
std::vector<workload_request> five_requests() {
  return {request({11, 12, 13}, 4), request({21, 22, 23, 24, 25, 26, 27}, 2),
          request({31, 32, 33, 34, 35}, 6), request({41, 42}, 3),
          request({51, 52, 53, 54, 55, 56}, 5)};
}

static_baseline_config demo_config(std::uint32_t max_num_seqs, std::uint64_t kv_slots) {
  static_baseline_config c;
  c.model = demo_model_config();
  c.weights = std::make_shared<const checkpoint>(make_dummy_checkpoint(c.model, 0));
  c.max_num_seqs = max_num_seqs;
  c.kv_slots = kv_slots;
  c.block_size = 4;
  return c;
}

struct expected_counts {
  std::uint64_t num_batches = 0;
  std::uint64_t steps = 0;
  std::uint64_t useful = 0;
  std::uint64_t computed = 0;
};

// The rules written out directly: consecutive groups of `b`; a group of n requests with
// longest prompt P and largest output T runs T forward calls over n * (P + T - 1) tokens.
expected_counts expected_for(const std::vector<workload_request>& reqs, std::size_t b) {
  expected_counts e;
  for (std::size_t first = 0; first < reqs.size(); first += b) {
    std::size_t p = 0;
    std::uint64_t t = 0;
    const std::size_t last = std::min(reqs.size(), first + b);
    for (std::size_t i = first; i < last; ++i) {
      p = std::max(p, reqs[i].prompt_token_ids.size());
      t = std::max<std::uint64_t>(t, reqs[i].max_tokens);
      e.useful += reqs[i].max_tokens;
    }
    ++e.num_batches;
    e.steps += t;
    e.computed += (last - first) * (p + t - 1);
  }
  return e;
}

void expect_counts(const static_baseline_report& r, const expected_counts& e) {
  EXPECT_EQ(r.num_batches, e.num_batches);
  EXPECT_EQ(r.steps, e.steps);
  EXPECT_EQ(r.useful_output_tokens, e.useful);
  EXPECT_EQ(r.computed_tokens, e.computed);
}

TEST(StaticBatchBaseline, BatchSizeIsWhatTheWorstCaseReservationAllows) {
  const auto reqs = five_requests();  // longest prompt 7 + largest output 6 = 13 slots each
  EXPECT_EQ(static_batch_size(8, 2 * 13 + 12, reqs), 2u);
  EXPECT_EQ(static_batch_size(8, 3 * 13, reqs), 3u);
  EXPECT_EQ(static_batch_size(2, 100 * 13, reqs), 2u);
  EXPECT_EQ(static_batch_size(8, 12, reqs), 0u);
}

TEST(StaticBatchBaseline, CountsFollowTheStaticRulesInBatchesOfTwo) {
  const auto reqs = five_requests();
  auto r = run_static_baseline(demo_config(8, 2 * 13 + 5), reqs);
  ASSERT_TRUE(r) << r.err().message;
  EXPECT_EQ(r->batch_size, 2u);
  expect_counts(*r, expected_for(reqs, 2));
  EXPECT_EQ(r->computed_tokens, 2u * (7 + 3) + 2u * (5 + 5) + 1u * (6 + 4));
  ASSERT_EQ(r->output_token_ids.size(), reqs.size());
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    EXPECT_EQ(r->output_token_ids[i].size(), reqs[i].max_tokens) << "request " << i;
  }
  EXPECT_GT(r->wall_s, 0.0);
  EXPECT_DOUBLE_EQ(r->output_tokens_per_s, 20.0 / r->wall_s);
}

TEST(StaticBatchBaseline, MaxNumSeqsCapsTheBatch) {
  const auto reqs = five_requests();
  auto r = run_static_baseline(demo_config(3, 1000), reqs);
  ASSERT_TRUE(r) << r.err().message;
  EXPECT_EQ(r->batch_size, 3u);
  expect_counts(*r, expected_for(reqs, 3));
}

// Reference: prefill the whole prompt, then feed back one greedy token at a time.
std::vector<token_id> direct_greedy(const static_baseline_config& c,
                                    const std::vector<token_id>& prompt, std::uint32_t n) {
  auto backend = kernels::make_cpu_backend();
  auto weights = forward::upload_model_weights(*backend, c.model, *c.weights);
  EXPECT_TRUE(weights);
  forward::model_forward fwd(*backend, c.model, std::move(*weights));
  const std::int64_t num_blocks = (static_cast<std::int64_t>(prompt.size()) + n + 3) / 4;
  forward::paged_kv_cache cache(*backend,
                                forward::kv_cache_layout::for_model(c.model, num_blocks, 4));
  std::vector<block_id> table;
  for (std::int64_t b = 0; b < num_blocks; ++b) table.emplace_back(static_cast<std::uint32_t>(b));
  std::vector<token_id> tokens = prompt;
  std::vector<token_id> out;
  std::size_t num_computed = 0;
  while (out.size() < n) {
    forward::forward_batch batch;
    batch.sequences.push_back({std::span<const token_id>(tokens).subspan(num_computed),
                               static_cast<std::int64_t>(num_computed), table});
    const forward::forward_output logits = fwd.run(batch, cache);
    num_computed = tokens.size();
    out.push_back(greedy_sample(logits.last(0)));
    tokens.push_back(out.back());
  }
  return out;
}

TEST(StaticBatchBaseline, UnpaddedRequestDecodesAsDirectGreedy) {
  const std::vector<workload_request> reqs{request({7, 100, 300, 5, 42, 9}, 8)};
  const static_baseline_config c = demo_config(4, 64);
  auto r = run_static_baseline(c, reqs);
  ASSERT_TRUE(r) << r.err().message;
  ASSERT_EQ(r->output_token_ids.size(), 1u);
  EXPECT_EQ(r->output_token_ids[0], direct_greedy(c, reqs[0].prompt_token_ids, 8));
  expect_counts(*r, expected_for(reqs, 1));
}

TEST(StaticBatchBaseline, RejectsWhatCannotRun) {
  const static_baseline_config c = demo_config(4, 64);
  EXPECT_FALSE(run_static_baseline(c, std::vector<workload_request>{}));
  const auto outside = run_static_baseline(c, std::vector{request({1, 512}, 2)});
  ASSERT_FALSE(outside);
  EXPECT_NE(outside.err().message.find("outside the vocabulary"), std::string::npos);
  EXPECT_FALSE(run_static_baseline(c, std::vector{request({1, 2}, 0)}));
  const auto too_long = run_static_baseline(c, std::vector{request({1, 2, 3}, 62)});
  ASSERT_FALSE(too_long);
  EXPECT_EQ(too_long.err().code, error_code::capacity_exceeded);
}

}  // namespace
}  // namespace pagedserve::sim
