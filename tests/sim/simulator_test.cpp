// Simulator tests: whole workloads through the scheduler, the block pool and the fake
// executor. Expected figures come from independent arithmetic, never from a previous run.

#include <gtest/gtest.h>

#include <random>

#include "sim/fake_executor.h"
#include "sim/simulator.h"
#include "tests/runtime/sched/sched_harness.h"
#include "tests/support/fixtures.h"

namespace pagedserve::sim::testing {
namespace {

std::vector<workload_request> random_workload(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<workload_request> workload(n);
  for (workload_request& request : workload) {
    request.prompt_token_ids.resize(20 + rng() % 41);
    for (token_id& t : request.prompt_token_ids) t = static_cast<token_id>(rng() % 32000);
    request.max_tokens = static_cast<std::uint32_t>(40 + rng() % 41);
  }
  return workload;
}

// What a deterministic model would generate: the fake executor's sampling rule applied to a
// context built token by token, without any scheduler.
std::vector<token_id> reference_stream(const workload_request& request) {
  std::uint64_t hash = 0;
  for (const token_id t : request.prompt_token_ids) hash = fake_executor::extend_hash(hash, t);
  std::vector<token_id> out;
  for (std::uint32_t i = 0; i < request.max_tokens; ++i) {
    out.push_back(fake_executor::next_token(hash));
    hash = fake_executor::extend_hash(hash, out.back());
  }
  return out;
}

simulation_config small_config(std::uint32_t num_blocks, bool prefix_caching) {
  simulation_config config;
  config.sched.block_size = 4;
  config.sched.num_blocks = num_blocks;
  config.sched.max_model_len = 256;
  config.sched.max_num_seqs = 16;
  config.sched.max_num_batched_tokens = 128;
  config.sched.enable_prefix_caching = prefix_caching;
  config.record_outputs = true;
  return config;
}

TEST(Simulator, PreemptedSequencesProduceTheSameTokensAsUndisturbedOnes) {
  const std::vector<workload_request> workload = random_workload(12, 7);
  const auto roomy = simulate(small_config(1000, false), workload);
  ASSERT_TRUE(roomy.ok());
  EXPECT_EQ(roomy->num_preemptions, 0u);
  for (const bool caching : {false, true}) {
    const auto tight = simulate(small_config(40, caching), workload);  // 160 slots
    ASSERT_TRUE(tight.ok());
    EXPECT_GT(tight->num_preemptions, 5u);
    EXPECT_EQ(tight->completed, workload.size());
    EXPECT_EQ(tight->protocol_errors, 0u);
    EXPECT_EQ(tight->leaked_blocks, 0u);
    for (std::size_t i = 0; i < workload.size(); ++i) {
      EXPECT_EQ(tight->outputs[i], roomy->outputs[i]) << "request " << i;
      EXPECT_EQ(tight->outputs[i], reference_stream(workload[i])) << "request " << i;
    }
    // Recomputation costs prefill tokens the undisturbed run did not spend.
    EXPECT_GT(tight->prefill_tokens_computed, roomy->prefill_tokens_computed);
  }
}

// 64 requests share a 1,000-token system prompt and differ in a 40-token tail. Request 0 runs
// alone first; the other 63 arrive later and should each find the system prompt's full
// blocks cached. Ideal: floor(1000 / 16) = 62 blocks = 992 tokens per later request (block 62
// mixes system and own tokens, so it cannot match).
TEST(Simulator, SharedSystemPromptHitsThePrefixCacheNearTheIdeal) {
  constexpr std::size_t num_requests = 64;
  constexpr std::size_t system_len = 1000;
  constexpr std::size_t own_len = 40;
  constexpr std::uint32_t block_size = 16;
  std::mt19937_64 rng(11);
  std::vector<token_id> system(system_len);
  for (token_id& t : system) t = static_cast<token_id>(rng() % 32000);
  std::vector<workload_request> workload(num_requests);
  for (std::size_t i = 0; i < num_requests; ++i) {
    workload[i].prompt_token_ids = system;
    for (std::size_t j = 0; j < own_len; ++j) {
      workload[i].prompt_token_ids.push_back(static_cast<token_id>(rng() % 32000));
    }
    workload[i].max_tokens = 8;
    workload[i].arrival_s = i == 0 ? 0.0 : 1.0;
  }
  simulation_config config;
  config.sched.block_size = block_size;
  config.sched.num_blocks = 8192;
  config.sched.max_model_len = 2048;

  const double prompt_len = system_len + own_len;
  const double hits_per_later = (system_len / block_size) * block_size;  // 992
  const double ideal = (num_requests - 1) * hits_per_later / (num_requests * prompt_len);

  config.sched.enable_prefix_caching = true;
  const auto on = simulate(config, workload);
  ASSERT_TRUE(on.ok());
  EXPECT_NEAR(on->prefix_cache_hit_rate, ideal, 0.01);
  EXPECT_EQ(on->prefix_queries, static_cast<std::uint64_t>(num_requests * prompt_len));

  config.sched.enable_prefix_caching = false;
  const auto off = simulate(config, workload);
  ASSERT_TRUE(off.ok());
  EXPECT_EQ(off->prefix_cache_hit_rate, 0.0);
  EXPECT_EQ(off->prefill_tokens_computed, static_cast<std::uint64_t>(num_requests * prompt_len));
  const double ideal_prefill = num_requests * prompt_len - (num_requests - 1) * hits_per_later;
  EXPECT_NEAR(static_cast<double>(on->prefill_tokens_computed), ideal_prefill,
              0.01 * ideal_prefill);
  EXPECT_LT(on->prefill_tokens_computed * 5, off->prefill_tokens_computed);
  EXPECT_EQ(on->leaked_blocks, 0u);
}

TEST(Simulator, StaticReservationHoldsFewerSequencesThanPaging) {
  const std::vector<workload_request> workload = random_workload(64, 3);
  simulation_config config = small_config(256, false);  // 1,024 slots, 4 static regions
  config.record_outputs = false;
  const auto paged = simulate(config, workload);
  config.allocator = allocator_kind::static_reservation;
  const auto fixed = simulate(config, workload);
  ASSERT_TRUE(paged.ok() && fixed.ok());
  EXPECT_EQ(fixed->peak_running, 4u);  // floor(1024 / 256)
  EXPECT_EQ(fixed->num_preemptions, 0u);
  EXPECT_GT(paged->peak_running, 3 * fixed->peak_running);
  // Static regions of 256 slots hold at most 60 + 80 tokens: utilization below 140 / 256.
  EXPECT_LT(fixed->kv_utilization, 140.0 / 256.0);
  // Paged waste is under one block per sequence.
  EXPECT_GT(paged->kv_utilization, 0.9);
  EXPECT_EQ(paged->completed, 64u);
  EXPECT_EQ(fixed->completed, 64u);
  EXPECT_EQ(fixed->leaked_blocks, 0u);
  EXPECT_EQ(fixed->protocol_errors, 0u);
}

TEST(Simulator, ArrivalRateSpreadsRequestsOverTime) {
  const std::vector<workload_request> workload = random_workload(32, 5);
  simulation_config config = small_config(1000, false);
  config.arrival_rate = 2.0;  // 32 requests over about 16 s
  const auto spread = simulate(config, workload);
  config.arrival_rate.reset();
  const auto burst = simulate(config, workload);
  ASSERT_TRUE(spread.ok() && burst.ok());
  EXPECT_GT(spread->simulated_time_s, 8.0);
  EXPECT_LT(spread->peak_running, burst->peak_running);
  EXPECT_EQ(spread->outputs, burst->outputs);  // timing never changes what is generated
}

TEST(Simulator, NanoWorkloadPagedVersusStatic) {
  const auto workload = load_workload(pagedserve::testing::bench_dir() / "nano-256.jsonl");
  ASSERT_TRUE(workload.ok()) << workload.err().message;
  simulation_config config;
  config.sched.num_blocks = 3125;  // room for 50,000 tokens
  config.sched.block_size = 16;
  config.sched.max_model_len = 2048;
  const auto paged = simulate(config, *workload);
  config.allocator = allocator_kind::static_reservation;
  const auto fixed = simulate(config, *workload);
  ASSERT_TRUE(paged.ok() && fixed.ok());
  EXPECT_EQ(paged->completed, 256u);
  EXPECT_EQ(fixed->completed, 256u);
  EXPECT_EQ(fixed->peak_running, 50000u / 2048u);
  EXPECT_GE(paged->kv_utilization, 0.95);
  EXPECT_GE(paged->peak_running, 3 * fixed->peak_running);
  EXPECT_EQ(paged->leaked_blocks, 0u);
  EXPECT_EQ(paged->protocol_errors, 0u);
}

}  // namespace
}  // namespace pagedserve::sim::testing
