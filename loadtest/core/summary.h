#pragma once
// run_summary: the figures of one load-test run with vLLM `bench serve`'s definitions:
//   TTFT  first text-carrying chunk - request start;
//   TPOT  (E2E - TTFT) / (output tokens - 1), per request with more than one output token;
//   ITL   every gap between successive text-carrying chunks, pooled over requests;
//   E2E   [DONE] - request start;
//   throughputs = completed requests, output tokens, input + output tokens per second of the
//   run's duration (first send to last completion); goodput = requests meeting every given
//   SLO per second. Percentiles interpolate linearly between order statistics (numpy's
//   default). Failed requests are never mixed into the latency figures, never dropped: they
//   are counted by kind, with their first messages, and their tokens are not counted.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "loadtest/core/request_record.h"

namespace pagedserve::loadtest {

struct distribution {
  std::size_t count = 0;
  double mean = 0.0;
  double median = 0.0;
  double p90 = 0.0;
  double p99 = 0.0;
  double std_dev = 0.0;  // population standard deviation (numpy's default)
  double min = 0.0;
  double max = 0.0;
};

// p in [0, 100]; `sorted` ascending and not empty.
[[nodiscard]] double percentile(const std::vector<double>& sorted, double p);
// All zeros with count 0 for an empty input.
[[nodiscard]] distribution summarize(std::vector<double> values);

// Service-level objectives in milliseconds, as vLLM's --goodput ttft:MS tpot:MS e2el:MS.
struct slo_spec {
  std::optional<double> ttft_ms;
  std::optional<double> tpot_ms;
  std::optional<double> e2el_ms;
  [[nodiscard]] bool any() const { return ttft_ms || tpot_ms || e2el_ms; }
};

struct run_summary {
  double duration_s = 0.0;
  std::size_t num_requests = 0;
  std::size_t completed = 0;
  std::size_t failed = 0;
  std::map<std::string, std::size_t> failures_by_kind;  // to_string(failure_kind) -> count
  std::vector<std::string> first_errors;                // up to 5 messages, in workload order
  std::uint64_t total_input_tokens = 0;                 // of completed requests
  std::uint64_t total_output_tokens = 0;                // of completed requests
  bool all_usage_reported = true;  // false: some counts are text chunks, not tokens
  // Completed requests whose stream carried no token chunk before the end (the whole output in
  // the final chunk): they count in E2E and throughput but have no TTFT, TPOT or ITL.
  std::size_t num_without_token_timing = 0;
  double request_throughput = 0.0;
  double output_throughput = 0.0;
  double total_token_throughput = 0.0;
  std::optional<double> goodput;  // set when an SLO was given
  std::size_t num_good_requests = 0;
  std::size_t peak_concurrency = 0;  // most requests in flight at once, from start/e2e times
  distribution ttft_ms;
  distribution tpot_ms;
  distribution itl_ms;
  distribution e2el_ms;
};

// `duration_s` > 0 is the run's wall time as the driver measured it.
[[nodiscard]] run_summary summarize_run(const std::vector<request_record>& records,
                                        double duration_s, const slo_spec& slo);

}  // namespace pagedserve::loadtest
