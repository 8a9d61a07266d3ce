// bench_sched: one full scheduling step (schedule: plan + block allocation; then
// update_from_output: append tokens, commit full blocks, stop checks, release of finished
// sequences) with N sequences in steady decode. A finished sequence is replaced at once by a
// new request (32-token prompt), so every step also carries a little admission and release.
// Baseline in the same run: the same loop with every sequence's blocks reserved for
// max_model_len at admission (sim/static_reservation.h: tables never grow afterwards): the
// ratio is what growing block tables on demand costs per step.
// Goals on the development machine: < 20 us at 256 sequences, < 80 us at 1,024.
//
// Steady state: outputs run 128..255 tokens, so the first finishes come only after 128
// steps; the warm-up runs past the longest output, after which ~1.3 sequences per 256 finish
// and are replaced every step and positions are spread, so 1 in 16 crosses a block boundary.
//
// `bench_sched --steps=N --seqs=M [--static]` runs exactly N steps after the warm-up and
// exits: for instruction counts that are repeatable on a loaded machine, e.g.
//   valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*measured_steps*'
//       bench_sched --steps=2000 --seqs=256
// then Ir / N is the cost of one step.

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <numeric>
#include <string>
#include <utility>
#include <variant>

#include "runtime/sched/scheduler.h"
#include "sim/static_reservation.h"

namespace pagedserve::sched {
namespace {

constexpr std::uint32_t prompt_len = 32;
constexpr std::uint32_t min_output = 128;

class steady_decode {
 public:
  steady_decode(std::uint32_t num_seqs, bool paged)
      : sched_(pool(num_seqs, paged).sched, pool(num_seqs, paged).kv) {
    for (std::uint32_t i = 0; i < num_seqs; ++i) add();
    // Warm up past the longest output: admission done, finishes and admissions under way.
    for (std::uint32_t i = 0; i < 2 * min_output + 64; ++i) step();
  }

  [[gnu::noinline]] void measured_steps(std::uint64_t n) {
    for (std::uint64_t i = 0; i < n; ++i) step();
  }

  void step() {
    sched_.schedule(now_, plan_);  // one plan reused across steps, as an engine would
    output_.step = plan_.step;
    output_.sampled.clear();
    for (const scheduled_sequence& s : plan_.scheduled) {
      if (s.samples) output_.sampled.push_back({s.seq, static_cast<token_id>(s.first_position)});
    }
    now_ += 0.01;
    sched_.update_from_output(output_, now_);
    sched_.take_events(events_);
    for (const scheduler_event& event : events_) {
      if (std::holds_alternative<request_finished>(event)) add();
    }
  }

  [[nodiscard]] std::uint32_t num_running() const { return sched_.num_running(); }

 private:
  static scheduler_config config(std::uint32_t num_seqs, bool paged) {
    scheduler_config c;
    c.max_num_seqs = num_seqs;
    c.max_num_batched_tokens = 8192;
    c.max_model_len = 2048;
    c.block_size = 16;
    // Room for every sequence at its longest (prompt + 2 * min_output), plus slack.
    c.num_blocks = num_seqs * ((prompt_len + 2 * min_output) / 16 + 2);
    if (!paged) c.num_blocks = num_seqs * (c.max_model_len / c.block_size);  // one each
    return c;
  }

  static sim::static_baseline pool(std::uint32_t num_seqs, bool paged) {
    const scheduler_config c = config(num_seqs, paged);
    return paged ? sim::static_baseline{c, kv_cache_config_of(c)} : sim::static_reservation(c);
  }

  void add() {
    request_spec spec;
    spec.id = seq_id{next_id_};
    spec.prompt_token_ids.resize(prompt_len);
    std::iota(spec.prompt_token_ids.begin(), spec.prompt_token_ids.end(),
              static_cast<token_id>(next_id_ * prompt_len));
    // Staggered lengths, so sequences finish (and new ones join) a few at a time.
    spec.max_tokens = min_output + static_cast<std::uint32_t>((next_id_ * 37) % min_output);
    spec.arrival_time = now_;
    ++next_id_;
    if (!sched_.add_request(std::move(spec), now_).ok()) std::abort();
  }

  scheduler sched_;
  step_plan plan_;
  step_output output_;
  std::vector<scheduler_event> events_;
  std::uint64_t next_id_ = 0;
  double now_ = 0.0;
};

void run_steps(benchmark::State& state, bool paged) {
  const auto num_seqs = static_cast<std::uint32_t>(state.range(0));
  steady_decode world(num_seqs, paged);
  for (auto _ : state) world.step();
  state.counters["running"] = world.num_running();
}

void BM_step_paged(benchmark::State& state) { run_steps(state, true); }
void BM_step_static(benchmark::State& state) { run_steps(state, false); }

BENCHMARK(BM_step_paged)->Arg(256)->Arg(1024)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_step_static)->Arg(256)->Arg(1024)->Unit(benchmark::kMicrosecond);

// Prints the console table, then paged-over-static ratios from the same run (medians when
// --benchmark_repetitions is given). CPU time is shown too: on a shared, loaded machine it
// is the steadier of the two.
class ratio_reporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.run_type == Run::RT_Aggregate && run.aggregate_name != "median") continue;
      times_[run.run_name.str()] = {run.GetAdjustedRealTime(), run.GetAdjustedCPUTime()};
    }
  }

  void print_ratios() const {
    for (const char* n : {"256", "1024"}) {
      const auto paged = times_.find(std::string("BM_step_paged/") + n);
      const auto fixed = times_.find(std::string("BM_step_static/") + n);
      if (paged == times_.end() || fixed == times_.end()) continue;
      const auto [paged_real, paged_cpu] = paged->second;
      const auto [fixed_real, fixed_cpu] = fixed->second;
      std::printf(
          "%5s sequences: paged step %.1f us real / %.1f us cpu (%.0f ns cpu per sequence); "
          "static %.1f / %.1f us; paged/static %.2f real, %.2f cpu\n",
          n, paged_real, paged_cpu, paged_cpu * 1000.0 / std::stod(n), fixed_real, fixed_cpu,
          paged_real / fixed_real, paged_cpu / fixed_cpu);
    }
  }

 private:
  std::map<std::string, std::pair<double, double>> times_;  // name -> (real, cpu), in us
};

}  // namespace
}  // namespace pagedserve::sched

namespace {

// The fixed-step mode (see the top of the file); returns false when not asked for.
bool run_fixed_steps(int argc, char** argv) {
  std::uint64_t num_steps = 0;
  std::uint32_t num_seqs = 256;
  bool paged = true;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--steps=", 8) == 0)
      num_steps = std::strtoull(argv[i] + 8, nullptr, 10);
    if (std::strncmp(argv[i], "--seqs=", 7) == 0)
      num_seqs = static_cast<std::uint32_t>(std::strtoul(argv[i] + 7, nullptr, 10));
    if (std::strcmp(argv[i], "--static") == 0) paged = false;
  }
  if (num_steps == 0) return false;
  pagedserve::sched::steady_decode world(num_seqs, paged);
  world.measured_steps(num_steps);
  std::printf("%llu steps, %u sequences, %s, %u running\n",
              static_cast<unsigned long long>(num_steps), num_seqs, paged ? "paged" : "static",
              world.num_running());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (run_fixed_steps(argc, argv)) return 0;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  pagedserve::sched::ratio_reporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.print_ratios();
  benchmark::Shutdown();
  return 0;
}
