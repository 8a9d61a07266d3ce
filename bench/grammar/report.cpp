#include "bench/grammar/report.h"

#include <cmath>
#include <cstdio>

namespace pagedserve::grammar_bench {
namespace {

namespace json = boost::json;

double ratio(double ours, double theirs) { return theirs > 0 ? ours / theirs : 0; }

// The figures a row prints, in column order; the summary's geometric means use the same.
std::vector<double> columns(const grammar_bench_figures& f) {
  return {f.compile_ms,  f.first_request_ms, f.cold.mean_us, f.cold.p50_us,
          f.cold.p99_us, f.warm.mean_us,     f.warm.p50_us,  f.warm.p99_us};
}

const std::vector<const char*> column_names{"compile_ms",  "first_ms",    "cold_mean_us",
                                            "cold_p50_us", "cold_p99_us", "warm_mean_us",
                                            "warm_p50_us", "warm_p99_us"};

std::vector<double> ratios(const grammar_bench_row& row) {
  const std::vector<double> ours = columns(row.ours);
  const std::vector<double> theirs = columns(*row.xgrammar);
  std::vector<double> out;
  for (std::size_t i = 0; i < ours.size(); ++i) out.push_back(ratio(ours[i], theirs[i]));
  return out;
}

// Per column, the geometric mean of the rows' ratios (rows with a zero ratio left out).
std::vector<double> geometric_means(const std::vector<grammar_bench_row>& rows) {
  std::vector<double> log_sum(column_names.size(), 0.0);
  std::vector<int> count(column_names.size(), 0);
  for (const grammar_bench_row& row : rows) {
    if (!row.xgrammar) continue;
    const std::vector<double> r = ratios(row);
    for (std::size_t i = 0; i < r.size(); ++i) {
      if (r[i] <= 0) continue;
      log_sum[i] += std::log(r[i]);
      ++count[i];
    }
  }
  std::vector<double> out;
  for (std::size_t i = 0; i < log_sum.size(); ++i) {
    out.push_back(count[i] > 0 ? std::exp(log_sum[i] / count[i]) : 0.0);
  }
  return out;
}

void print_values(const char* engine, const std::vector<double>& values, const char* format) {
  std::printf("%-41s %-9s", "", engine);
  for (const double v : values) std::printf(format, v);
  std::printf("\n");
}

void print_header(const grammar_bench_report& report) {
  std::printf("grammar bench: tokenizer %s (vocab %zu), workload %s, %d repeats per entry\n",
              report.tokenizer_dir.c_str(), report.vocab_size, report.workload.c_str(),
              report.repeats);
  if (report.xgrammar_version.empty()) {
    std::printf("baseline: %s; printing our figures only\n", report.xgrammar_missing.c_str());
    std::printf("vocabulary ms: ours %.1f\n\n", report.vocabulary_ms);
  } else {
    std::printf(
        "baseline: @mlc-ai/web-xgrammar %s (xgrammar on WASM, Node), compact JSON; "
        "ratio = ours / xgrammar (< 1: ours faster)\n",
        report.xgrammar_version.c_str());
    std::printf("vocabulary ms: ours %.1f, xgrammar %.1f, ratio %.2f\n\n", report.vocabulary_ms,
                *report.xgrammar_vocabulary_ms,
                ratio(report.vocabulary_ms, *report.xgrammar_vocabulary_ms));
  }
  std::printf("%-22s %-11s %5s %-9s", "entry", "kind", "tokens", "engine");
  for (const char* name : column_names) std::printf(" %12s", name);
  std::printf("\n");
}

json::object to_json(const latency_summary& s) {
  return {{"mean_us", s.mean_us}, {"p50_us", s.p50_us}, {"p99_us", s.p99_us}};
}

json::object to_json(const grammar_bench_figures& f) {
  return {{"compile_ms", f.compile_ms},
          {"first_ms", f.first_request_ms},
          {"cold", to_json(f.cold)},
          {"warm", to_json(f.warm)}};
}

json::object ratio_json(const std::vector<double>& r) {
  json::object out;
  for (std::size_t i = 0; i < r.size(); ++i) out[column_names[i]] = r[i];
  return out;
}

}  // namespace

void print_table(const grammar_bench_report& report) {
  print_header(report);
  for (const grammar_bench_row& row : report.rows) {
    std::printf("%-22.22s %-11s %6zu ", row.name.c_str(), row.kind.c_str(), row.num_tokens);
    std::printf("%-9s", "ours");
    for (const double v : columns(row.ours)) std::printf(" %12.2f", v);
    std::printf("\n");
    if (!row.xgrammar) continue;
    print_values("xgrammar", columns(*row.xgrammar), " %12.2f");
    print_values("ratio", ratios(row), " %12.3g");
  }
  if (report.xgrammar_version.empty()) return;
  const std::vector<double> means = geometric_means(report.rows);
  std::printf("\nsummary: geometric mean of ratios (ours / xgrammar) over %zu entries:",
              report.rows.size());
  for (std::size_t i = 0; i < means.size(); ++i) {
    std::printf("%s %s %.3g", i == 0 ? "" : ",", column_names[i], means[i]);
  }
  std::printf("\n");
}

json::object to_json(const grammar_bench_report& report) {
  json::array rows;
  for (const grammar_bench_row& row : report.rows) {
    json::object o{{"name", row.name},
                   {"kind", row.kind},
                   {"num_tokens", row.num_tokens},
                   {"ours", to_json(row.ours)}};
    if (row.xgrammar) {
      o["xgrammar"] = to_json(*row.xgrammar);
      o["ratio"] = ratio_json(ratios(row));
    }
    rows.push_back(std::move(o));
  }
  json::object out{{"tokenizer", report.tokenizer_dir},     {"workload", report.workload},
                   {"vocab_size", report.vocab_size},       {"repeats", report.repeats},
                   {"vocabulary_ms", report.vocabulary_ms}, {"entries", std::move(rows)}};
  if (report.xgrammar_version.empty()) {
    out["xgrammar"] = nullptr;
    out["xgrammar_missing"] = report.xgrammar_missing;
    return out;
  }
  out["xgrammar"] = json::object{{"version", report.xgrammar_version},
                                 {"vocabulary_ms", *report.xgrammar_vocabulary_ms}};
  out["summary"] = json::object{{"geometric_mean_ratio", ratio_json(geometric_means(report.rows))}};
  return out;
}

}  // namespace pagedserve::grammar_bench
