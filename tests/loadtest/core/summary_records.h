#pragma once
// Hand-made records shared by the summary and report tests; the expected figures in those
// tests are worked out from these by hand.

#include <vector>

#include "loadtest/core/request_record.h"

namespace pagedserve::loadtest {

inline request_record completed_record(std::size_t index, double start_s, double ttft_s,
                                       double e2e_s, std::vector<double> itl_s,
                                       std::uint64_t prompt_tokens, std::uint64_t output_tokens) {
  request_record r;
  r.index = index;
  r.start_s = start_s;
  r.http_status = 200;
  r.ttft_s = ttft_s;
  r.e2e_s = e2e_s;
  r.itl_s = std::move(itl_s);
  r.prompt_tokens = prompt_tokens;
  r.output_tokens = output_tokens;
  r.usage_reported = true;
  r.num_token_chunks = output_tokens;
  return r;
}

inline request_record failed_record(std::size_t index, double start_s, double e2e_s,
                                    failure_kind kind, std::string error) {
  request_record r;
  r.index = index;
  r.start_s = start_s;
  r.e2e_s = e2e_s;
  r.failure = kind;
  r.error = std::move(error);
  r.ttft_s = 5.0;  // must never reach the latency figures
  r.itl_s = {9.0};
  r.prompt_tokens = 7;
  r.output_tokens = 3;
  return r;
}

// Intervals: 0 [0, 0.5], 1 [0.2, 0.5], 2 [0.25, 0.3], 3 [1.0, 1.8], 4 [1.1, 1.2].
inline std::vector<request_record> sample_records() {
  std::vector<request_record> records;
  records.push_back(completed_record(0, 0.0, 0.1, 0.5, {0.1, 0.1, 0.2}, 10, 5));
  records.push_back(completed_record(1, 0.2, 0.3, 0.3, {}, 20, 1));
  records.push_back(failed_record(2, 0.25, 0.05, failure_kind::http_status, "overloaded"));
  records.back().http_status = 503;
  records.push_back(completed_record(3, 1.0, 0.2, 0.8, {0.2, 0.2, 0.2}, 30, 4));
  records.push_back(failed_record(4, 1.1, 0.1, failure_kind::disconnected, "eof before [DONE]"));
  return records;
}

}  // namespace pagedserve::loadtest
