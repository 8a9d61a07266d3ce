// sum_engine_stats over two hand-made replicas' figures.
#include "api/engine_stats.h"

#include <gtest/gtest.h>

#include <vector>

namespace pagedserve {
namespace {

TEST(EngineStatsSum, AddsCountsAndHistogramsAndWeighsKvUsageByBlocks) {
  engine_stats a;
  a.num_running = 2;
  a.num_waiting = 1;
  a.num_total_blocks = 100;
  a.num_free_blocks = 50;
  a.kv_usage = 0.5;
  a.num_finished_stop = 3;
  a.num_cancelled = 1;
  a.prefix_cache_queries = 64;
  a.prefix_cache_hits = 32;
  a.executor_busy_s = 1.5;
  a.iteration_tokens.observe(3.0);
  engine_stats b;
  b.num_running = 1;
  b.num_total_blocks = 300;
  b.num_free_blocks = 225;
  b.kv_usage = 0.25;
  b.num_finished_length = 4;
  b.prefix_cache_queries = 16;
  b.executor_busy_s = 0.5;
  b.iteration_tokens.observe(3.0);
  b.iteration_tokens.observe(5000.0);

  const std::vector<engine_stats> parts{a, b};
  const engine_stats sum = sum_engine_stats(parts);
  EXPECT_EQ(sum.num_running, 3u);
  EXPECT_EQ(sum.num_waiting, 1u);
  EXPECT_EQ(sum.num_total_blocks, 400u);
  EXPECT_EQ(sum.num_free_blocks, 275u);
  // (0.5 x 100 + 0.25 x 300) / 400 blocks = 125 / 400, = (400 - 275) / 400 here too.
  EXPECT_DOUBLE_EQ(sum.kv_usage, 0.3125);
  EXPECT_EQ(sum.num_finished(), 8u);
  EXPECT_EQ(sum.prefix_cache_queries, 80u);
  EXPECT_EQ(sum.prefix_cache_hits, 32u);
  EXPECT_DOUBLE_EQ(sum.executor_busy_s, 2.0);
  EXPECT_EQ(sum.iteration_tokens.count, 3u);
  EXPECT_DOUBLE_EQ(sum.iteration_tokens.sum, 5006.0);
}

TEST(EngineStatsSum, NoPartsIsAnIdleEngineWithoutBlocks) {
  const engine_stats sum = sum_engine_stats({});
  EXPECT_EQ(sum.num_total_blocks, 0u);
  EXPECT_DOUBLE_EQ(sum.kv_usage, 0.0);
}

}  // namespace
}  // namespace pagedserve
