#include "bench/grammar/ours.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include "runtime/engine/grammar_compiler.h"
#include "runtime/grammar/compiled_grammar.h"
#include "runtime/grammar/grammar_matcher.h"

namespace pagedserve::grammar_bench {
namespace {

using clock_type = std::chrono::steady_clock;

double micros_since(clock_type::time_point start) {
  return std::chrono::duration<double, std::micro>(clock_type::now() - start).count();
}

bool allows(const std::vector<std::uint32_t>& mask, token_id id) {
  const auto i = static_cast<std::size_t>(id);
  return ((mask[i / 32] >> (i % 32)) & 1u) != 0;
}

// One walk of c.steps with a new matcher; appends each mask's time to `out`.
status walk(const std::shared_ptr<const grammar::compiled_grammar>& compiled,
            const grammar_bench_case& c, std::vector<double>& out) {
  grammar::grammar_matcher matcher(compiled);
  std::vector<std::uint32_t> mask(matcher.vocabulary().bitmask_words());
  for (std::size_t i = 0; i < c.steps.size(); ++i) {
    const auto start = clock_type::now();
    matcher.fill_next_token_bitmask(mask);
    out.push_back(micros_since(start));
    if (!allows(mask, c.steps[i]) || !matcher.accept_token(c.steps[i])) {
      return make_error(error_code::internal, c.name + ": token " + std::to_string(i) + " (id " +
                                                  std::to_string(c.steps[i]) +
                                                  ") is not allowed by our grammar");
    }
  }
  if (!matcher.is_terminated()) {
    return make_error(error_code::internal, c.name + ": our matcher did not terminate");
  }
  return status::success();
}

double percentile(const std::vector<double>& sorted, double q) {
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size())));
  return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

result<grammar_bench_samples> bench_ours(
    const grammar_bench_case& c, const std::shared_ptr<const grammar::token_vocabulary>& vocab,
    int repeats) {
  grammar_bench_samples s;
  for (int r = 0; r < repeats; ++r) {
    // The translation counts, as it does inside xgrammar's compileJSONSchema.
    const auto start = clock_type::now();
    auto compiled = [&]() -> result<std::shared_ptr<const grammar::compiled_grammar>> {
      auto gbnf = grammar_compiler::to_gbnf(c.params);
      if (!gbnf) return gbnf.err();
      return grammar::compile_gbnf(*gbnf, vocab);
    }();
    s.compile_ms.push_back(micros_since(start) / 1e3);
    if (!compiled) return make_error(compiled.err().code, c.name + ": " + compiled.err().message);
    if (status st = walk(*compiled, c, s.cold_us); !st) return st.err();
    if (status st = walk(*compiled, c, s.warm_us); !st) return st.err();
  }
  return s;
}

latency_summary summarize(std::vector<double> samples_us) {
  if (samples_us.empty()) return {};
  std::sort(samples_us.begin(), samples_us.end());
  const double sum = std::accumulate(samples_us.begin(), samples_us.end(), 0.0);
  return {sum / static_cast<double>(samples_us.size()), percentile(samples_us, 0.5),
          percentile(samples_us, 0.99)};
}

grammar_bench_figures summarize(const grammar_bench_samples& samples) {
  grammar_bench_figures f;
  if (samples.compile_ms.empty()) return f;
  const double repeats = static_cast<double>(samples.compile_ms.size());
  const double cold_total_us = std::accumulate(samples.cold_us.begin(), samples.cold_us.end(), 0.0);
  f.compile_ms = median(samples.compile_ms);
  f.first_request_ms = f.compile_ms + cold_total_us / repeats / 1e3;
  f.cold = summarize(samples.cold_us);
  f.warm = summarize(samples.warm_us);
  return f;
}

}  // namespace pagedserve::grammar_bench
