// bench_kv: cost of the KV block bookkeeping for 256 and 1024 concurrent sequences.
//   AllocateFreeCycle: admit N sequences (256-token prompts), 32 decode steps each (one
//     allocate_slots per sequence per step, plus cache_blocks when caching), free all.
//     With caching, each cycle uses a new salt, so lookups miss and reused blocks are evicted.
//   StaticReserveRelease: the same N admissions and frees with the contiguous baseline
//     allocator (one max_model_len reservation per sequence); the ratio baseline.
//   PrefixLookup: get_computed_blocks of N prompts sharing a 1024-token system prompt in a
//     warm cache (65 full blocks each: 64 hits, then a miss).
//   HashOnly: hashing the same blocks with no map or confirmation; the lookup's lower bound.
// Prints Google Benchmark's table, then ratios of CPU times (robust on a shared machine).
// Asserts nothing.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "runtime/kv/kv_cache_manager.h"
#include "sim/static_kv_allocator.h"

namespace pagedserve::kv {
using sim::static_kv_allocator;
namespace {

constexpr std::uint32_t block_size = 16;
constexpr std::uint32_t prompt_len = 256;
constexpr std::uint32_t decode_steps = 32;
constexpr std::uint32_t max_model_len = 2048;
constexpr std::uint32_t system_prompt_len = 1024;

std::vector<token_id> prompt_for(std::uint64_t seq, std::uint32_t shared, std::uint32_t own) {
  std::vector<token_id> t;
  for (std::uint32_t i = 0; i < shared; ++i) t.push_back(static_cast<token_id>(i * 7 % 32000));
  for (std::uint32_t i = 0; i < own; ++i)
    t.push_back(static_cast<token_id>((seq * 131 + i) % 32000));
  return t;
}

void allocate_free_cycle(benchmark::State& state, bool caching) {
  const auto n = static_cast<std::uint32_t>(state.range(0));
  const std::uint32_t blocks_per_seq = (prompt_len + decode_steps) / block_size + 1;
  kv_cache_manager m(kv_cache_config{n * blocks_per_seq, block_size, caching});
  std::vector<std::vector<token_id>> tokens;
  for (std::uint64_t s = 0; s < n; ++s)
    tokens.push_back(prompt_for(s, 0, prompt_len + decode_steps));
  std::uint64_t base = 0;
  std::uint64_t salt = 0;
  for (auto _ : state) {
    ++salt;
    for (std::uint64_t s = 0; s < n; ++s) {
      computed_blocks match = m.get_computed_blocks(std::span(tokens[s]).first(prompt_len), salt);
      if (!m.allocate_slots(seq_id{base + s}, prompt_len, &match)) state.SkipWithError("full");
      m.cache_blocks(seq_id{base + s}, tokens[s], prompt_len, salt);
    }
    for (std::uint32_t step = 1; step <= decode_steps; ++step) {
      for (std::uint64_t s = 0; s < n; ++s) {
        if (!m.allocate_slots(seq_id{base + s}, prompt_len + step)) state.SkipWithError("full");
        m.cache_blocks(seq_id{base + s}, tokens[s], prompt_len + step, salt);
      }
    }
    for (std::uint64_t s = 0; s < n; ++s) m.free(seq_id{base + s});
    base += n;
  }
  state.SetItemsProcessed(state.iterations() * n);
}

void BM_AllocateFreeCycle(benchmark::State& state) { allocate_free_cycle(state, false); }
void BM_AllocateFreeCycleCaching(benchmark::State& state) { allocate_free_cycle(state, true); }

void BM_StaticReserveRelease(benchmark::State& state) {
  const auto n = static_cast<std::uint32_t>(state.range(0));
  static_kv_allocator a(n * max_model_len);
  for (auto _ : state) {
    for (std::uint64_t s = 0; s < n; ++s) {
      if (!a.reserve(seq_id{s}, max_model_len)) state.SkipWithError("full");
      for (std::uint32_t step = 0; step <= decode_steps; ++step) {
        a.set_num_used_slots(seq_id{s}, prompt_len + step);
      }
    }
    for (std::uint64_t s = 0; s < n; ++s) a.release(seq_id{s});
  }
  state.SetItemsProcessed(state.iterations() * n);
}

std::vector<std::vector<token_id>> shared_prompts(std::uint32_t n) {
  std::vector<std::vector<token_id>> prompts;
  for (std::uint64_t s = 0; s < n; ++s) prompts.push_back(prompt_for(s, system_prompt_len, 40));
  return prompts;
}

void BM_PrefixLookup(benchmark::State& state) {
  const auto n = static_cast<std::uint32_t>(state.range(0));
  const auto prompts = shared_prompts(n);
  kv_cache_manager m(kv_cache_config{n * 4 + 128, block_size, true});
  const auto first = static_cast<std::uint32_t>(prompts[0].size());
  if (!m.allocate_slots(seq_id{0}, first)) state.SkipWithError("full");
  m.cache_blocks(seq_id{0}, prompts[0], first);
  for (auto _ : state) {
    for (const auto& p : prompts) benchmark::DoNotOptimize(m.get_computed_blocks(p));
  }
  state.SetItemsProcessed(state.iterations() * n);
}

void BM_HashOnly(benchmark::State& state) {
  const auto n = static_cast<std::uint32_t>(state.range(0));
  const auto prompts = shared_prompts(n);
  for (auto _ : state) {
    for (const auto& p : prompts) {
      std::optional<block_hash> parent;
      for (std::size_t b = 0; b + block_size <= p.size() - 1; b += block_size) {
        parent = hash_block_tokens(parent, std::span(p).subspan(b, block_size), 0);
      }
      benchmark::DoNotOptimize(parent);
    }
  }
  state.SetItemsProcessed(state.iterations() * n);
}

BENCHMARK(BM_AllocateFreeCycle)->Arg(256)->Arg(1024)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_AllocateFreeCycleCaching)->Arg(256)->Arg(1024)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_StaticReserveRelease)->Arg(256)->Arg(1024)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_PrefixLookup)->Arg(256)->Arg(1024)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_HashOnly)->Arg(256)->Arg(1024)->Unit(benchmark::kMicrosecond);

// Console output as usual, plus each run's time kept for the ratio lines.
class ratio_reporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) times_[r.benchmark_name()] = r.GetAdjustedCPUTime();
    ConsoleReporter::ReportRuns(runs);
  }

  void print_ratio(const std::string& what, const std::string& baseline) const {
    auto a = times_.find(what);
    auto b = times_.find(baseline);
    if (a == times_.end() || b == times_.end() || b->second == 0) return;
    std::printf("%-36s / %-32s = %7.2f\n", what.c_str(), baseline.c_str(), a->second / b->second);
  }

 private:
  std::map<std::string, double> times_;
};

}  // namespace
}  // namespace pagedserve::kv

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  pagedserve::kv::ratio_reporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  std::printf("\nratios of CPU time (same run):\n");
  for (const char* n : {"256", "1024"}) {
    const std::string arg = std::string("/") + n;
    reporter.print_ratio("BM_AllocateFreeCycle" + arg, "BM_StaticReserveRelease" + arg);
    reporter.print_ratio("BM_AllocateFreeCycleCaching" + arg, "BM_AllocateFreeCycle" + arg);
    reporter.print_ratio("BM_PrefixLookup" + arg, "BM_HashOnly" + arg);
  }
  benchmark::Shutdown();
  return 0;
}
