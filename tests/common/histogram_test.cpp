#include "common/histogram.h"

#include <gtest/gtest.h>

namespace pagedserve {
namespace {

TEST(Histogram, BucketsAreLessOrEqualUpperBounds) {
  histogram h = histogram::with_bounds({1.0, 2.0, 4.0});
  for (double v : {0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 4.5, 100.0}) h.observe(v);
  EXPECT_EQ(h.counts, (std::vector<std::uint64_t>{2, 2, 2, 2}));
  EXPECT_EQ(h.count, 8u);
  EXPECT_DOUBLE_EQ(h.sum, 116.5);
}

TEST(Histogram, MergeAddsCountsAndSums) {
  histogram a = histogram::with_bounds({1.0});
  histogram b = histogram::with_bounds({1.0});
  a.observe(0.5);
  b.observe(3.0);
  b.observe(0.25);
  a.merge(b);
  EXPECT_EQ(a.counts, (std::vector<std::uint64_t>{2, 1}));
  EXPECT_EQ(a.count, 3u);
  EXPECT_DOUBLE_EQ(a.sum, 3.75);
}

TEST(Histogram, VllmBucketSetsAreAscending) {
  EXPECT_EQ(histogram::with_bounds(iteration_tokens_buckets()).counts.size(), 14u);
  EXPECT_GT(histogram::with_bounds(latency_buckets_s()).counts.size(), 10u);
  EXPECT_GT(histogram::with_bounds(inter_token_buckets_s()).counts.size(), 10u);
}

TEST(HistogramDeathTest, RejectsUnsortedBounds) {
  EXPECT_DEATH((void)histogram::with_bounds({2.0, 1.0}), "ascending");
}

}  // namespace
}  // namespace pagedserve
