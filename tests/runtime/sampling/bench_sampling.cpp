// Time of one sample() call on a 128k vocabulary, per sampling mode, on two kinds of logits:
//   flat:   normal(0, 3) over the whole vocabulary; top-p 0.9 keeps tens of thousands of
//           tokens (a worst case for the nucleus)
//   peaked: the same plus 8 tokens raised by 25, which hold most of the mass, as a confident
//           model's next-token distribution does
// Greedy (one argmax pass) is the baseline the other modes are compared with.

#include <benchmark/benchmark.h>

#include <chrono>
#include <random>
#include <vector>

#include "runtime/sampling/sampler.h"

namespace pagedserve {
namespace {

constexpr std::size_t k_vocab = 128 * 1024;

std::vector<float> make_logits(bool peaked) {
  std::mt19937 gen(1);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  std::vector<float> v(k_vocab);
  for (float& l : v) l = normal(gen);
  if (peaked) {
    for (std::size_t i = 0; i < 8; ++i) v[(i * 7919) % k_vocab] += 25.0f;
  }
  return v;
}

const std::vector<float>& logits(bool peaked) {
  static const std::vector<float> flat = make_logits(false);
  static const std::vector<float> peak = make_logits(true);
  return peaked ? peak : flat;
}

// Seconds per call of `fn`, over `num` calls.
template <class F>
double seconds_per_call(int num, F&& fn) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < num; ++i) fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / num;
}

// Times `fn` and reports, as counter x_greedy, its time over greedy_sample's on the same
// logits measured in the same run.
template <class F>
void run_timed(benchmark::State& bench, const std::vector<float>& values, F&& fn) {
  const double greedy =
      seconds_per_call(200, [&] { benchmark::DoNotOptimize(greedy_sample(values)); });
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : bench) fn();
  const double own =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() /
      static_cast<double>(bench.iterations());
  bench.counters["x_greedy"] = own / greedy;
  bench.SetItemsProcessed(bench.iterations());
}

// range(0): 0 = flat logits, 1 = peaked logits.
void run(benchmark::State& bench, const sampling_params& params) {
  const std::vector<float>& values = logits(bench.range(0) != 0);
  sampler_state state(1, 0);
  run_timed(bench, values, [&] { benchmark::DoNotOptimize(sample(values, params, state)); });
}

void bm_greedy(benchmark::State& s) { run(s, {.temperature = 0.0f}); }
void bm_plain(benchmark::State& s) { run(s, {.temperature = 0.8f}); }
void bm_top_k_50(benchmark::State& s) { run(s, {.temperature = 0.8f, .top_k = 50}); }
void bm_top_p_0_9(benchmark::State& s) { run(s, {.temperature = 0.8f, .top_p = 0.9f}); }
void bm_top_k_top_p(benchmark::State& s) {
  run(s, {.temperature = 0.8f, .top_p = 0.9f, .top_k = 50});
}
void bm_min_p(benchmark::State& s) { run(s, {.temperature = 0.8f, .min_p = 0.05f}); }

// compute_logprobs with the OpenAI maximum of 20 top tokens.
void bm_logprobs_20(benchmark::State& bench) {
  const std::vector<float>& values = logits(bench.range(0) != 0);
  run_timed(bench, values, [&] { benchmark::DoNotOptimize(compute_logprobs(values, 7, 20)); });
}

BENCHMARK(bm_greedy)->Arg(0)->Arg(1);
BENCHMARK(bm_plain)->Arg(0)->Arg(1);
BENCHMARK(bm_top_k_50)->Arg(0)->Arg(1);
BENCHMARK(bm_top_p_0_9)->Arg(0)->Arg(1);
BENCHMARK(bm_top_k_top_p)->Arg(0)->Arg(1);
BENCHMARK(bm_min_p)->Arg(0)->Arg(1);
BENCHMARK(bm_logprobs_20)->Arg(0)->Arg(1);

}  // namespace
}  // namespace pagedserve

BENCHMARK_MAIN();
