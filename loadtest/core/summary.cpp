#include "loadtest/core/summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <utility>

namespace pagedserve::loadtest {

namespace {

constexpr std::size_t max_first_errors = 5;

double ms(double seconds) { return seconds * 1000.0; }

// vLLM's TPOT: the decode time spread over the tokens after the first.
double tpot_s(const request_record& r) {
  return (r.e2e_s - r.ttft_s) / static_cast<double>(r.output_tokens - 1);
}

// A completed request is good when every given SLO holds (vLLM counts a one-token request's
// TPOT as 0). Without token timing the first token is only known to have come by the end.
bool meets_slo(const request_record& r, const slo_spec& slo) {
  const bool timed = r.num_token_chunks > 0;
  const double tpot = timed && r.output_tokens > 1 ? ms(tpot_s(r)) : 0.0;
  const double ttft = ms(timed ? r.ttft_s : r.e2e_s);
  return (!slo.ttft_ms || ttft <= *slo.ttft_ms) && (!slo.tpot_ms || tpot <= *slo.tpot_ms) &&
         (!slo.e2el_ms || ms(r.e2e_s) <= *slo.e2el_ms);
}

// Most requests in flight at once, from the intervals [start, start + e2e]. At equal times an
// end comes before a start (a driver at its concurrency limit sends the next request as one
// finishes), except the end of a zero-length interval, which comes after its own start.
std::size_t peak_concurrency(const std::vector<request_record>& records) {
  enum order : int { end_before = 0, start = 1, end_after = 2 };
  std::vector<std::pair<double, int>> events;  // (time, order)
  events.reserve(records.size() * 2);
  for (const auto& r : records) {
    events.emplace_back(r.start_s, start);
    events.emplace_back(r.start_s + std::max(r.e2e_s, 0.0), r.e2e_s > 0.0 ? end_before : end_after);
  }
  std::sort(events.begin(), events.end());
  std::size_t open = 0;
  std::size_t peak = 0;
  for (const auto& [time, kind] : events) {
    open = kind == start ? open + 1 : open - 1;
    peak = std::max(peak, open);
  }
  return peak;
}

void count_failures(const std::vector<request_record>& records, run_summary& s) {
  std::vector<const request_record*> failed;
  for (const auto& r : records) {
    if (!r.ok()) {
      failed.push_back(&r);
    }
  }
  std::stable_sort(failed.begin(), failed.end(),
                   [](const auto* a, const auto* b) { return a->index < b->index; });
  s.failed = failed.size();
  for (const auto* r : failed) {
    const std::string kind(to_string(r->failure));
    ++s.failures_by_kind[kind];
    if (s.first_errors.size() < max_first_errors) {
      s.first_errors.push_back("request " + std::to_string(r->index) + ": " + kind + ": " +
                               r->error);
    }
  }
}

}  // namespace

double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty() || !(p >= 0.0 && p <= 100.0)) {
    std::fprintf(stderr, "percentile: p = %g of %zu values\n", p, sorted.size());
    std::abort();
  }
  // numpy's "linear" method: rank (n - 1) * p / 100 between the two nearest order statistics.
  const double rank = p / 100.0 * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(rank));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (rank - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

distribution summarize(std::vector<double> values) {
  distribution d;
  if (values.empty()) {
    return d;
  }
  std::sort(values.begin(), values.end());
  const auto n = static_cast<double>(values.size());
  d.count = values.size();
  d.mean = std::accumulate(values.begin(), values.end(), 0.0) / n;
  double squares = 0.0;
  for (double v : values) {
    squares += (v - d.mean) * (v - d.mean);
  }
  d.std_dev = std::sqrt(squares / n);
  d.median = percentile(values, 50.0);
  d.p90 = percentile(values, 90.0);
  d.p99 = percentile(values, 99.0);
  d.min = values.front();
  d.max = values.back();
  return d;
}

run_summary summarize_run(const std::vector<request_record>& records, double duration_s,
                          const slo_spec& slo) {
  run_summary s;
  s.duration_s = duration_s;
  s.num_requests = records.size();
  std::vector<double> ttft;
  std::vector<double> tpot;
  std::vector<double> itl;
  std::vector<double> e2el;
  for (const auto& r : records) {
    if (!r.ok()) {
      continue;
    }
    ++s.completed;
    if (slo.any() && meets_slo(r, slo)) {
      ++s.num_good_requests;
    }
    s.total_input_tokens += r.prompt_tokens;
    s.total_output_tokens += r.output_tokens;
    s.all_usage_reported = s.all_usage_reported && r.usage_reported;
    e2el.push_back(ms(r.e2e_s));
    if (r.num_token_chunks == 0) {  // no token was seen arriving: no TTFT, TPOT or ITL
      ++s.num_without_token_timing;
      continue;
    }
    ttft.push_back(ms(r.ttft_s));
    if (r.output_tokens > 1) {
      tpot.push_back(ms(tpot_s(r)));
    }
    for (double gap : r.itl_s) {
      itl.push_back(ms(gap));
    }
  }
  count_failures(records, s);
  s.peak_concurrency = peak_concurrency(records);
  // The contract asks for duration_s > 0; a degenerate run without time has no rates.
  if (duration_s > 0.0) {
    s.request_throughput = static_cast<double>(s.completed) / duration_s;
    s.output_throughput = static_cast<double>(s.total_output_tokens) / duration_s;
    s.total_token_throughput =
        static_cast<double>(s.total_input_tokens + s.total_output_tokens) / duration_s;
  }
  if (slo.any()) {
    s.goodput = duration_s > 0.0 ? static_cast<double>(s.num_good_requests) / duration_s : 0.0;
  }
  s.ttft_ms = summarize(std::move(ttft));
  s.tpot_ms = summarize(std::move(tpot));
  s.itl_ms = summarize(std::move(itl));
  s.e2el_ms = summarize(std::move(e2el));
  return s;
}

}  // namespace pagedserve::loadtest
