#pragma once
// The results of a run or a sweep as JSON (for machines) and as a text table (for people).

#include <boost/json.hpp>
#include <string>
#include <vector>

#include "loadtest/core/summary.h"

namespace pagedserve::loadtest {

// Keys follow vLLM's result JSON where they exist (completed, request_throughput,
// output_throughput, total_token_throughput, mean_ttft_ms, median_ttft_ms, p90_ttft_ms,
// p99_ttft_ms, ... for ttft, tpot, itl, e2el), plus failed, failures_by_kind, first_errors,
// goodput, peak_concurrency.
[[nodiscard]] boost::json::object to_json(const run_summary& summary);

// vLLM-style "Serving Benchmark Result" block; `title` heads it.
[[nodiscard]] std::string format_summary_table(const run_summary& summary,
                                               const std::string& title);

// One point of a sweep: the swept setting (a request rate, or a server config value) and the
// run's summary. x_label names what was swept ("request_rate", "max_num_seqs", ...).
struct sweep_point {
  std::string x_label;
  std::string x_value;  // as given ("inf", "16", "0.9")
  run_summary summary;
  std::vector<double> ttft_ms;  // every completed request's TTFT, for the distribution plots
  std::vector<double> itl_ms;   // every ITL of completed requests
};

// One row per point: setting, req/s, output tok/s, TTFT median/p99, TPOT median/p99,
// ITL median/p99, E2E median, failed.
[[nodiscard]] std::string format_sweep_table(const std::vector<sweep_point>& points);
// {"sweep": x_label, "points": [{"x": value, ...to_json(summary)}]}.
[[nodiscard]] boost::json::object sweep_to_json(const std::vector<sweep_point>& points);

}  // namespace pagedserve::loadtest
