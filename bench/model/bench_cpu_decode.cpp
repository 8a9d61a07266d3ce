// bench_cpu_decode: decode throughput of the CPU backend on a dummy model of a real shape
// (default config/models/llama-3.2-1b.json), at batch 1 and batch 16, next to the
// memory-bandwidth floor measured in the same run: a decode step reads every weight once,
// so tokens/s can be at most batch * bandwidth / weight bytes. Prints figures only.
//
//   bench_cpu_decode [config.json] [--steps N] [--prompt-len P] [--verify-rows]
// --verify-rows adds the time of a single sequence's step with 1..8 query rows (what
// speculative decoding's verification of 0..7 proposed tokens costs), at context P.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "kernels/cpu/cpu_backend.h"
#include "runtime/forward/model_forward.h"
#include "runtime/model/checkpoint.h"
#include "runtime/sampling/sampler.h"
#include "tests/support/test_paths.h"

namespace {

using namespace pagedserve;
using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point start) {
  return std::chrono::duration<double>(clock_type::now() - start).count();
}

// Read bandwidth of a plain streaming sum over 1 GiB, best of three passes (bytes/s).
double measure_read_bandwidth() {
  std::vector<float> data(std::size_t{1} << 28, 1.0F);
  double best = 0.0;
  for (int pass = 0; pass < 3; ++pass) {
    const auto start = clock_type::now();
    double sum = 0.0;
#pragma omp parallel for reduction(+ : sum) schedule(static)
    for (std::size_t i = 0; i < data.size(); ++i) sum += data[i];
    const double s = seconds_since(start);
    if (sum < 0) std::printf("impossible\n");
    best = std::max(best, static_cast<double>(data.size() * sizeof(float)) / s);
  }
  return best;
}

// Bytes of weights one decode step reads (fp32 on the CPU backend; the embedding gather
// reads only a few rows and is left out, the lm_head is counted).
double weight_bytes_per_step(const model_config& c) {
  const double hidden = static_cast<double>(c.hidden_size);
  const double per_layer = hidden * static_cast<double>(c.q_size() + 2 * c.kv_size()) +
                           static_cast<double>(c.q_size()) * hidden +
                           3.0 * hidden * static_cast<double>(c.intermediate_size);
  const double lm_head = static_cast<double>(c.vocab_size) * hidden;
  return 4.0 * (per_layer * static_cast<double>(c.num_layers) + lm_head);
}

struct run_figures {
  double prefill_s = 0.0;
  double decode_tokens_per_s = 0.0;
};

run_figures run_batch(forward::model_forward& fwd, int batch_size, int prompt_len, int steps) {
  const model_config& c = fwd.config();
  const std::int64_t block_size = 16;
  const std::int64_t blocks_per_seq = (prompt_len + steps + block_size) / block_size;
  forward::paged_kv_cache cache(fwd.backend(), forward::kv_cache_layout::for_model(
                                                   c, blocks_per_seq * batch_size, block_size));
  std::mt19937 gen(1);
  std::uniform_int_distribution<token_id> token(0, static_cast<token_id>(c.vocab_size - 1));
  std::vector<std::vector<token_id>> tokens(static_cast<std::size_t>(batch_size));
  std::vector<std::vector<block_id>> tables(static_cast<std::size_t>(batch_size));
  std::uint32_t next_block = 0;
  for (int s = 0; s < batch_size; ++s) {
    for (int t = 0; t < prompt_len; ++t) tokens[static_cast<std::size_t>(s)].push_back(token(gen));
    for (std::int64_t b = 0; b < blocks_per_seq; ++b) {
      tables[static_cast<std::size_t>(s)].emplace_back(next_block++);
    }
  }
  run_figures f;
  auto step = [&](bool prefill) {
    forward::forward_batch batch;
    for (std::size_t s = 0; s < tokens.size(); ++s) {
      const std::size_t computed = prefill ? 0 : tokens[s].size() - 1;
      batch.sequences.push_back({std::span<const token_id>(tokens[s]).subspan(computed),
                                 static_cast<std::int64_t>(computed), tables[s]});
    }
    const forward::forward_output out = fwd.run(batch, cache);
    for (std::size_t s = 0; s < tokens.size(); ++s) tokens[s].push_back(greedy_sample(out.last(s)));
  };
  auto start = clock_type::now();
  step(true);
  f.prefill_s = seconds_since(start);
  start = clock_type::now();
  for (int i = 0; i < steps; ++i) step(false);
  f.decode_tokens_per_s = static_cast<double>(batch_size * steps) / seconds_since(start);
  return f;
}

// Time of one decode-shaped step of a single sequence that computes `rows` query tokens at
// context `context` (what verifying rows-1 proposed tokens costs), every row's logits as
// speculative verification asks; the median of `steps` steps (ms).
double verify_step_ms(forward::model_forward& fwd, int rows, int context, int steps) {
  const model_config& c = fwd.config();
  const std::int64_t block_size = 16;
  const std::int64_t blocks = (context + rows + block_size) / block_size;
  forward::paged_kv_cache cache(fwd.backend(),
                                forward::kv_cache_layout::for_model(c, blocks, block_size));
  std::vector<block_id> table;
  for (std::int64_t b = 0; b < blocks; ++b) table.emplace_back(static_cast<std::uint32_t>(b));
  std::vector<token_id> tokens(static_cast<std::size_t>(context + rows), 7);
  forward::forward_batch prefill;
  prefill.sequences.push_back(
      {std::span<const token_id>(tokens).first(static_cast<std::size_t>(context)), 0, table});
  (void)fwd.run(prefill, cache);
  std::vector<double> times;
  for (int i = 0; i < steps; ++i) {
    forward::forward_batch batch;
    batch.sequences.push_back(
        {std::span<const token_id>(tokens).subspan(static_cast<std::size_t>(context)),
         static_cast<std::int64_t>(context), table});
    batch.return_all_logits = rows > 1;
    batch.only_all_logits = rows > 1;
    const auto start = clock_type::now();
    (void)fwd.run(batch, cache);
    times.push_back(seconds_since(start) * 1e3);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::string config_path =
      (pagedserve::testing::source_dir() / "config" / "models" / "llama-3.2-1b.json").string();
  int steps = 4;
  int prompt_len = 8;
  bool verify_rows = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--steps" && i + 1 < argc) {
      steps = std::stoi(argv[++i]);
    } else if (arg == "--prompt-len" && i + 1 < argc) {
      prompt_len = std::stoi(argv[++i]);
    } else if (arg == "--verify-rows") {
      verify_rows = true;
    } else {
      config_path = arg;
    }
  }
  std::ifstream in(config_path);
  std::ostringstream text;
  text << in.rdbuf();
  auto config = parse_model_config(text.str(), config_path);
  if (!config) {
    std::fprintf(stderr, "%s\n", config.err().message.c_str());
    return 1;
  }
  auto backend = kernels::make_cpu_backend();
  auto start = clock_type::now();
  auto uploaded = [&] {
    const checkpoint weights = make_dummy_checkpoint(*config, 0);
    return forward::upload_model_weights(*backend, *config, weights);
  }();
  if (!uploaded) {
    std::fprintf(stderr, "%s\n", uploaded.err().message.c_str());
    return 1;
  }
  std::printf("model %s: dummy weights ready in %.1f s\n", config_path.c_str(),
              seconds_since(start));
  forward::model_forward fwd(*backend, *config, std::move(*uploaded));

  const double bandwidth = measure_read_bandwidth();
  const double bytes = weight_bytes_per_step(*config);
  std::printf("read bandwidth %.1f GB/s; weights read per decode step %.2f GB (fp32)\n",
              bandwidth / 1e9, bytes / 1e9);
  for (int batch_size : {1, 16}) {
    const run_figures f = run_batch(fwd, batch_size, prompt_len, steps);
    const double floor_tps = batch_size * bandwidth / bytes;
    std::printf(
        "batch %2d: prefill %d x %d tokens %.2f s; decode %.2f tokens/s over %d steps "
        "(bandwidth bound %.2f tokens/s, %.0f%% of it)\n",
        batch_size, batch_size, prompt_len, f.prefill_s, f.decode_tokens_per_s, steps, floor_tps,
        100.0 * f.decode_tokens_per_s / floor_tps);
  }
  if (verify_rows) {
    // Speculative verification's cost: a decode step of one sequence with 1..8 query rows.
    const double one = verify_step_ms(fwd, 1, prompt_len, steps);
    for (int rows = 1; rows <= 8; ++rows) {
      const double ms = rows == 1 ? one : verify_step_ms(fwd, rows, prompt_len, steps);
      std::printf("verify %d rows at context %d: %.3f ms (%.2fx of 1 row)\n", rows, prompt_len, ms,
                  ms / one);
    }
  }
  return 0;
}
