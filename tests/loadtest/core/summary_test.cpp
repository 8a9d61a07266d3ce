#include "loadtest/core/summary.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "tests/loadtest/core/summary_records.h"

namespace pagedserve::loadtest {
namespace {

constexpr double eps = 1e-9;

TEST(LoadtestSummary, PercentileInterpolatesLikeNumpy) {
  const std::vector<double> v{1, 2, 3, 4};
  // rank = p/100 * (n - 1): p50 -> 1.5, p90 -> 2.7, p99 -> 2.97.
  EXPECT_NEAR(percentile(v, 50), 2.5, eps);
  EXPECT_NEAR(percentile(v, 90), 3.7, eps);
  EXPECT_NEAR(percentile(v, 99), 3.97, eps);
  EXPECT_EQ(percentile(v, 0), 1.0);
  EXPECT_EQ(percentile(v, 100), 4.0);
  EXPECT_EQ(percentile({5.0}, 0), 5.0);
  EXPECT_EQ(percentile({5.0}, 99), 5.0);
}

TEST(LoadtestSummary, SummarizeSortsAndUsesPopulationStd) {
  const distribution d = summarize({4, 1, 3, 2});
  EXPECT_EQ(d.count, 4U);
  EXPECT_NEAR(d.mean, 2.5, eps);
  EXPECT_NEAR(d.median, 2.5, eps);
  EXPECT_NEAR(d.p90, 3.7, eps);
  EXPECT_NEAR(d.std_dev, std::sqrt(1.25), eps);  // mean of (1.5^2, 0.5^2, 0.5^2, 1.5^2)
  EXPECT_EQ(d.min, 1.0);
  EXPECT_EQ(d.max, 4.0);
  const distribution empty = summarize({});
  EXPECT_EQ(empty.count, 0U);
  EXPECT_EQ(empty.mean, 0.0);
  EXPECT_EQ(empty.p99, 0.0);
}

TEST(LoadtestSummary, RunFiguresFollowVllmDefinitions) {
  const run_summary s = summarize_run(sample_records(), 2.0, {});
  EXPECT_EQ(s.num_requests, 5U);
  EXPECT_EQ(s.completed, 3U);
  EXPECT_EQ(s.failed, 2U);
  EXPECT_EQ(s.total_input_tokens, 60U);  // 10 + 20 + 30; the failed request's 7 not counted
  EXPECT_EQ(s.total_output_tokens, 10U);
  EXPECT_NEAR(s.request_throughput, 1.5, eps);
  EXPECT_NEAR(s.output_throughput, 5.0, eps);
  EXPECT_NEAR(s.total_token_throughput, 35.0, eps);
  EXPECT_FALSE(s.goodput.has_value());
  EXPECT_TRUE(s.all_usage_reported);
  // TTFT 100, 300, 200 ms; the failed request's 5 s TTFT is not among them.
  EXPECT_EQ(s.ttft_ms.count, 3U);
  EXPECT_NEAR(s.ttft_ms.mean, 200.0, eps);
  EXPECT_NEAR(s.ttft_ms.median, 200.0, eps);
  EXPECT_NEAR(s.ttft_ms.max, 300.0, eps);
  // TPOT: (500 - 100) / 4 = 100 and (800 - 200) / 3 = 200; the one-token request has none.
  EXPECT_EQ(s.tpot_ms.count, 2U);
  EXPECT_NEAR(s.tpot_ms.mean, 150.0, eps);
  EXPECT_NEAR(s.tpot_ms.p90, 190.0, eps);  // 100 + 0.9 * 100
  // ITL pooled: 100 100 200 | 200 200 200 -> sorted [100 100 200 200 200 200].
  EXPECT_EQ(s.itl_ms.count, 6U);
  EXPECT_NEAR(s.itl_ms.mean, 1000.0 / 6.0, eps);
  EXPECT_NEAR(s.itl_ms.median, 200.0, eps);
  EXPECT_NEAR(s.itl_ms.p99, 200.0, eps);
  // E2E 500, 300, 800.
  EXPECT_NEAR(s.e2el_ms.mean, 1600.0 / 3.0, eps);
  EXPECT_NEAR(s.e2el_ms.median, 500.0, eps);
  EXPECT_EQ(s.peak_concurrency, 3U);  // at 0.25 s: requests 0, 1 and 2
}

TEST(LoadtestSummary, FailuresAreCountedByKindInWorkloadOrder) {
  const run_summary s = summarize_run(sample_records(), 2.0, {});
  EXPECT_EQ(s.failures_by_kind.size(), 2U);
  EXPECT_EQ(s.failures_by_kind.at("http_status"), 1U);
  EXPECT_EQ(s.failures_by_kind.at("disconnected"), 1U);
  EXPECT_EQ(s.first_errors,
            (std::vector<std::string>{"request 2: http_status: overloaded",
                                      "request 4: disconnected: eof before [DONE]"}));

  std::vector<request_record> many;
  for (std::size_t i = 8; i > 0; --i) {  // completion order is the reverse of workload order
    request_record r;
    r.index = i - 1;
    r.failure = failure_kind::timeout;
    r.error = "slow";
    many.push_back(r);
  }
  const run_summary t = summarize_run(many, 1.0, {});
  EXPECT_EQ(t.failed, 8U);
  EXPECT_EQ(t.completed, 0U);
  EXPECT_EQ(t.failures_by_kind.at("timeout"), 8U);
  ASSERT_EQ(t.first_errors.size(), 5U);
  EXPECT_EQ(t.first_errors.front(), "request 0: timeout: slow");
  EXPECT_EQ(t.first_errors.back(), "request 4: timeout: slow");
  EXPECT_EQ(t.ttft_ms.count, 0U);
  EXPECT_EQ(t.request_throughput, 0.0);
  EXPECT_EQ(t.peak_concurrency, 8U);  // all sent at 0 s, each failing at once
}

TEST(LoadtestSummary, GoodputCountsRequestsMeetingEverySlo) {
  const auto records = sample_records();
  // TTFT <= 250: requests 0 (100) and 3 (200).
  EXPECT_NEAR(*summarize_run(records, 2.0, {.ttft_ms = 250, .tpot_ms = {}, .e2el_ms = {}}).goodput,
              1.0, eps);
  // TPOT <= 150: request 0 (100) and request 1 (one token: TPOT 0), not request 3 (200).
  const run_summary tpot =
      summarize_run(records, 2.0, {.ttft_ms = {}, .tpot_ms = 150, .e2el_ms = {}});
  EXPECT_EQ(tpot.num_good_requests, 2U);
  // E2E <= 500 (inclusive): requests 0 (500) and 1 (300).
  EXPECT_EQ(
      summarize_run(records, 2.0, {.ttft_ms = {}, .tpot_ms = {}, .e2el_ms = 500}).num_good_requests,
      2U);
  // Both TTFT <= 250 and TPOT <= 150: request 0 only.
  const run_summary both =
      summarize_run(records, 2.0, {.ttft_ms = 250, .tpot_ms = 150, .e2el_ms = {}});
  EXPECT_EQ(both.num_good_requests, 1U);
  EXPECT_NEAR(*both.goodput, 0.5, eps);
}

// A stream whose whole output came in its final chunk says nothing about when tokens were made:
// the request counts in E2E, tokens and throughput, not in TTFT, TPOT or ITL.
TEST(LoadtestSummary, RequestsWithoutTokenChunksHaveNoTokenTiming) {
  std::vector<request_record> records = {completed_record(0, 0.0, 0.1, 0.5, {0.2, 0.2}, 4, 3),
                                         completed_record(1, 0.0, 0.0, 0.9, {}, 4, 5)};
  records[1].num_token_chunks = 0;
  const run_summary s = summarize_run(records, 1.0, {.ttft_ms = 500, .tpot_ms = {}, .e2el_ms = {}});
  EXPECT_EQ(s.completed, 2U);
  EXPECT_EQ(s.num_without_token_timing, 1U);
  EXPECT_EQ(s.total_output_tokens, 8U);
  EXPECT_EQ(s.ttft_ms.count, 1U);
  EXPECT_NEAR(s.ttft_ms.mean, 100.0, eps);
  EXPECT_EQ(s.tpot_ms.count, 1U);
  EXPECT_EQ(s.e2el_ms.count, 2U);
  // Its first token is only known to have come by the end (900 ms > 500 ms): not good.
  EXPECT_EQ(s.num_good_requests, 1U);
}

TEST(LoadtestSummary, CountsFromTextChunksAreFlagged) {
  auto records = sample_records();
  records[1].usage_reported = false;
  EXPECT_FALSE(summarize_run(records, 2.0, {}).all_usage_reported);
  records = sample_records();
  records[2].usage_reported = false;  // failed: its counts are not used
  EXPECT_TRUE(summarize_run(records, 2.0, {}).all_usage_reported);
}

TEST(LoadtestSummary, PeakConcurrencyOfBackToBackRequestsIsOne) {
  std::vector<request_record> records(3);
  for (std::size_t i = 0; i < records.size(); ++i) {
    records[i].index = i;
    records[i].start_s = 0.5 * static_cast<double>(i);
    records[i].e2e_s = 0.5;  // each ends as the next starts
  }
  EXPECT_EQ(summarize_run(records, 1.5, {}).peak_concurrency, 1U);
}

}  // namespace
}  // namespace pagedserve::loadtest
