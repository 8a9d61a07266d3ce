#include "loadtest/core/report.h"

#include <gtest/gtest.h>

#include <sstream>

#include "tests/loadtest/core/summary_records.h"

namespace pagedserve::loadtest {
namespace {

constexpr double eps = 1e-9;

run_summary sample_summary(const slo_spec& slo = {}) {
  return summarize_run(sample_records(), 2.0, slo);
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
  }
  return lines;
}

TEST(LoadtestReport, JsonUsesVllmKeys) {
  const boost::json::object j = to_json(sample_summary());
  EXPECT_NEAR(j.at("duration").as_double(), 2.0, eps);
  EXPECT_EQ(j.at("completed").to_number<int>(), 3);
  EXPECT_EQ(j.at("failed").to_number<int>(), 2);
  EXPECT_EQ(j.at("total_input_tokens").to_number<int>(), 60);
  EXPECT_EQ(j.at("total_output_tokens").to_number<int>(), 10);
  EXPECT_NEAR(j.at("request_throughput").as_double(), 1.5, eps);
  EXPECT_NEAR(j.at("output_throughput").as_double(), 5.0, eps);
  EXPECT_NEAR(j.at("total_token_throughput").as_double(), 35.0, eps);
  EXPECT_NEAR(j.at("mean_ttft_ms").as_double(), 200.0, eps);
  EXPECT_NEAR(j.at("median_tpot_ms").as_double(), 150.0, eps);
  EXPECT_NEAR(j.at("p99_itl_ms").as_double(), 200.0, eps);
  EXPECT_NEAR(j.at("median_e2el_ms").as_double(), 500.0, eps);
  for (const char* key : {"std_ttft_ms", "p90_ttft_ms", "p99_ttft_ms", "mean_tpot_ms",
                          "p90_tpot_ms", "mean_itl_ms", "median_itl_ms", "p99_e2el_ms"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_FALSE(j.contains("request_goodput"));
  EXPECT_EQ(j.at("failures_by_kind").at("http_status").to_number<int>(), 1);
  EXPECT_EQ(j.at("failures_by_kind").at("disconnected").to_number<int>(), 1);
  EXPECT_EQ(j.at("first_errors").as_array().at(0).as_string(),
            "request 2: http_status: overloaded");
  EXPECT_EQ(j.at("peak_concurrency").to_number<int>(), 3);
  EXPECT_TRUE(j.at("all_usage_reported").as_bool());
}

TEST(LoadtestReport, JsonHasGoodputWhenAnSloWasGiven) {
  const boost::json::object j =
      to_json(sample_summary({.ttft_ms = 250, .tpot_ms = {}, .e2el_ms = {}}));
  EXPECT_NEAR(j.at("request_goodput").as_double(), 1.0, eps);
}

TEST(LoadtestReport, TableShowsTheFiguresAndFailures) {
  const std::string table = format_summary_table(sample_summary(), "Serving Benchmark Result");
  const auto lines = lines_of(table);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.front(), "============ Serving Benchmark Result ============");
  EXPECT_EQ(lines.back(), std::string(50, '='));
  for (const char* expected :
       {"Successful requests:                     3", "Failed requests:                         2",
        "Benchmark duration (s):                  2.00",
        "Total input tokens:                      60",
        "Request throughput (req/s):              1.50",
        "Output token throughput (tok/s):         5.00",
        "Total Token throughput (tok/s):          35.00",
        "Mean TTFT (ms):                          200.00",
        "Median TPOT (ms):                        150.00",
        "P99 ITL (ms):                            200.00",
        "Median E2EL (ms):                        500.00",
        "http_status:", "disconnected:", "request 4: disconnected: eof before [DONE]"}) {
    EXPECT_NE(table.find(expected), std::string::npos) << expected << "\n" << table;
  }
  EXPECT_EQ(table.find("goodput"), std::string::npos);
}

TEST(LoadtestReport, SweepTableColumnsAlign) {
  std::vector<sweep_point> points(2);
  points[0] = {"request_rate", "1", sample_summary(), {}, {}};
  points[1] = {"request_rate", "inf", summarize_run({}, 1.0, {}), {}, {}};
  const std::string table = format_sweep_table(points);
  const auto lines = lines_of(table);
  ASSERT_GE(lines.size(), 3U);
  EXPECT_EQ(lines[0].rfind("request_rate", 0), 0U);
  EXPECT_EQ(lines[1].rfind("1 ", 0), 0U);
  EXPECT_EQ(lines[2].rfind("inf", 0), 0U);
  EXPECT_EQ(lines[0].size(), lines[1].size());
  EXPECT_EQ(lines[1].size(), lines[2].size());
  // Right-aligned columns: "out tok/s" ends where its figure ends.
  const std::size_t out_end = lines[0].find("out tok/s") + 9;
  EXPECT_EQ(lines[1].substr(out_end - 4, 4), "5.00");
  EXPECT_NE(lines[1].find("1.50"), std::string::npos);
  EXPECT_NE(lines[1].find("200.00"), std::string::npos);
}

TEST(LoadtestReport, SweepJsonHasOnePointPerSetting) {
  std::vector<sweep_point> points(1);
  points[0] = {"max_num_seqs", "16", sample_summary(), {}, {}};
  const boost::json::object j = sweep_to_json(points);
  EXPECT_EQ(j.at("sweep").as_string(), "max_num_seqs");
  const auto& arr = j.at("points").as_array();
  ASSERT_EQ(arr.size(), 1U);
  EXPECT_EQ(arr[0].at("x").as_string(), "16");
  EXPECT_EQ(arr[0].at("completed").to_number<int>(), 3);
  EXPECT_NEAR(arr[0].at("mean_ttft_ms").as_double(), 200.0, eps);
}

}  // namespace
}  // namespace pagedserve::loadtest
