#include "loadtest/core/report.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <string_view>

namespace pagedserve::loadtest {

namespace {

constexpr std::size_t table_width = 50;
constexpr std::size_t label_width = 40;

std::string fixed(double v, int decimals = 2) {
  std::array<char, 64> buf{};
  std::snprintf(buf.data(), buf.size(), "%.*f", decimals, v);
  return buf.data();
}

// Python's '{:c^n}'.format(s): s centred in n characters of c, the odd one on the right.
std::string banner(std::string_view s, char c) {
  const std::size_t pad = table_width > s.size() ? table_width - s.size() : 0;
  return std::string(pad / 2, c) + std::string(s) + std::string(pad - pad / 2, c) + "\n";
}

std::string line(std::string_view label, const std::string& value) {
  std::string out(label);
  out.resize(std::max(label_width, label.size()), ' ');
  return out + " " + value + "\n";
}

void add_distribution(boost::json::object& obj, std::string_view name, const distribution& d) {
  const std::string suffix = std::string(name) + "_ms";
  obj["mean_" + suffix] = d.mean;
  obj["median_" + suffix] = d.median;
  obj["std_" + suffix] = d.std_dev;
  obj["p90_" + suffix] = d.p90;
  obj["p99_" + suffix] = d.p99;
}

std::string distribution_block(std::string_view heading, std::string_view name,
                               const distribution& d) {
  const std::string unit = std::string(name) + " (ms):";
  return banner(heading, '-') + line("Mean " + unit, fixed(d.mean)) +
         line("Median " + unit, fixed(d.median)) + line("P90 " + unit, fixed(d.p90)) +
         line("P99 " + unit, fixed(d.p99));
}

std::string failure_block(const run_summary& s) {
  if (s.failed == 0) {
    return "";
  }
  std::string out = banner("Failed Requests", '-');
  for (const auto& [kind, count] : s.failures_by_kind) {
    out += line(kind + ":", std::to_string(count));
  }
  for (const auto& e : s.first_errors) {
    out += "  " + e + "\n";
  }
  return out;
}

}  // namespace

boost::json::object to_json(const run_summary& s) {
  boost::json::object obj;
  obj["duration"] = s.duration_s;
  obj["num_requests"] = s.num_requests;
  obj["completed"] = s.completed;
  obj["failed"] = s.failed;
  obj["total_input_tokens"] = s.total_input_tokens;
  obj["total_output_tokens"] = s.total_output_tokens;
  obj["request_throughput"] = s.request_throughput;
  obj["output_throughput"] = s.output_throughput;
  obj["total_token_throughput"] = s.total_token_throughput;
  if (s.goodput) {
    obj["request_goodput"] = *s.goodput;
    obj["num_good_requests"] = s.num_good_requests;
  }
  add_distribution(obj, "ttft", s.ttft_ms);
  add_distribution(obj, "tpot", s.tpot_ms);
  add_distribution(obj, "itl", s.itl_ms);
  add_distribution(obj, "e2el", s.e2el_ms);
  boost::json::object by_kind;
  for (const auto& [kind, count] : s.failures_by_kind) {
    by_kind[kind] = count;
  }
  obj["failures_by_kind"] = std::move(by_kind);
  boost::json::array errors;
  for (const auto& e : s.first_errors) {
    errors.emplace_back(e);
  }
  obj["first_errors"] = std::move(errors);
  obj["peak_concurrency"] = s.peak_concurrency;
  obj["all_usage_reported"] = s.all_usage_reported;
  obj["num_without_token_timing"] = s.num_without_token_timing;
  return obj;
}

std::string format_summary_table(const run_summary& s, const std::string& title) {
  std::string out = banner(" " + title + " ", '=');
  out += line("Successful requests:", std::to_string(s.completed));
  out += line("Failed requests:", std::to_string(s.failed));
  out += line("Benchmark duration (s):", fixed(s.duration_s));
  out += line("Total input tokens:", std::to_string(s.total_input_tokens));
  out += line("Total generated tokens:", std::to_string(s.total_output_tokens));
  if (!s.all_usage_reported) {
    out += line("Token counts:", "some from text chunks (no usage)");
  }
  if (s.num_without_token_timing > 0) {
    out += line("Requests without token timing:", std::to_string(s.num_without_token_timing));
  }
  out += line("Request throughput (req/s):", fixed(s.request_throughput));
  if (s.goodput) {
    out += line("Request goodput (req/s):", fixed(*s.goodput));
  }
  out += line("Output token throughput (tok/s):", fixed(s.output_throughput));
  out += line("Total Token throughput (tok/s):", fixed(s.total_token_throughput));
  out += line("Peak concurrent requests:", std::to_string(s.peak_concurrency));
  out += distribution_block("Time to First Token", "TTFT", s.ttft_ms);
  out += distribution_block("Time per Output Token (excl. 1st token)", "TPOT", s.tpot_ms);
  out += distribution_block("Inter-token Latency", "ITL", s.itl_ms);
  out += distribution_block("End-to-end Latency", "E2EL", s.e2el_ms);
  out += failure_block(s);
  out += std::string(table_width, '=') + "\n";
  return out;
}

std::string format_sweep_table(const std::vector<sweep_point>& points) {
  const std::string setting = points.empty() ? "setting" : points.front().x_label;
  std::vector<std::vector<std::string>> rows{{setting, "req/s", "out tok/s", "TTFT med", "TTFT p99",
                                              "TPOT med", "TPOT p99", "ITL med", "ITL p99",
                                              "E2E med", "failed"}};
  for (const auto& p : points) {
    const run_summary& s = p.summary;
    rows.push_back({p.x_value, fixed(s.request_throughput), fixed(s.output_throughput),
                    fixed(s.ttft_ms.median), fixed(s.ttft_ms.p99), fixed(s.tpot_ms.median),
                    fixed(s.tpot_ms.p99), fixed(s.itl_ms.median), fixed(s.itl_ms.p99),
                    fixed(s.e2el_ms.median), std::to_string(s.failed)});
  }
  std::vector<std::size_t> widths(rows.front().size(), 0);
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < row.size(); ++c) {
      widths[c] = std::max(widths[c], row[c].size());
    }
  }
  std::string out;
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < row.size(); ++c) {
      // The setting column reads left to right; figures align on the right.
      const std::string pad(widths[c] - row[c].size(), ' ');
      out += c == 0 ? row[c] + pad : "  " + pad + row[c];
    }
    out += "\n";
  }
  out += "(latencies in ms)\n";
  return out;
}

boost::json::object sweep_to_json(const std::vector<sweep_point>& points) {
  boost::json::object out;
  out["sweep"] = points.empty() ? "" : points.front().x_label;
  boost::json::array arr;
  for (const auto& p : points) {
    boost::json::object point;
    point["x"] = p.x_value;
    for (const auto& [key, value] : to_json(p.summary)) {
      point[key] = value;
    }
    arr.emplace_back(std::move(point));
  }
  out["points"] = std::move(arr);
  return out;
}

}  // namespace pagedserve::loadtest
