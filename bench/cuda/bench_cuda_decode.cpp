// bench_cuda_decode: one full decode step of a dummy model of a real shape (default
// config/models/llama-3.2-1b.json) on the CUDA backend in bf16, at several batch sizes, next
// to its memory floor: a decode step must read every weight once plus the KV of every
// sequence, so it takes at least (weight bytes + KV bytes) / 4.27 TB/s (the H200's copy
// bandwidth, docs/design/gpu-runbook.md). Each batch is timed through its captured decode graph
// and eagerly (kernel by kernel) in the same run; a step includes the index arrays' copy and
// greedy sampling on the device. The KV cache holds random values at `--context` tokens per
// sequence (no prefill is run: a decode step's cost does not depend on the values).
//
//   bench_cuda_decode [--model-config F] [--batches 1,64,256] [--context 1024] [--steps 50]

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "bench/cuda/bench_support.h"
#include "common/num_blocks.h"
#include "kernels/cuda/device_info.h"
#include "runtime/forward/decode_graphs.h"
#include "runtime/forward/model_forward.h"
#include "runtime/model/checkpoint.h"
#include "tests/support/test_paths.h"

namespace pagedserve::bench {
namespace {

using clock_type = std::chrono::steady_clock;
constexpr std::int64_t block_size = 16;

struct options {
  std::string model_config =
      (pagedserve::testing::source_dir() / "config" / "models" / "llama-3.2-1b.json").string();
  std::vector<std::int64_t> batches{1, 64, 256};
  std::int64_t context = 1024;
  int steps = 50;
};

// Bytes one decode step must read: every linear weight and the lm_head (the embedding
// gather reads a few rows; a tied lm_head is the embedding, counted once), norms, and the
// K and V of every cached token of every sequence.
double weight_bytes(const model_config& c) {
  const double hidden = static_cast<double>(c.hidden_size);
  const double per_layer = hidden * static_cast<double>(c.q_size() + 2 * c.kv_size()) +
                           static_cast<double>(c.q_size()) * hidden +
                           3.0 * hidden * static_cast<double>(c.intermediate_size) + 2.0 * hidden;
  return 2.0 * (per_layer * static_cast<double>(c.num_layers) +
                static_cast<double>(c.vocab_size) * hidden);
}
double kv_bytes(const model_config& c, std::int64_t batch, std::int64_t context) {
  return 2.0 * 2.0 * static_cast<double>(c.num_layers * c.kv_size() * batch * context);
}

// `batch` sequences with `context` tokens in the cache each; the step decodes token
// `context` (the last known one) of each.
struct decode_batch {
  std::vector<std::vector<token_id>> tokens;
  std::vector<std::vector<block_id>> tables;

  decode_batch(std::int64_t batch, std::int64_t context, std::int64_t vocab) {
    const std::int64_t blocks = num_blocks_for(context + 1, block_size);
    for (std::int64_t s = 0; s < batch; ++s) {
      tokens.emplace_back(static_cast<std::size_t>(context + 1), static_cast<token_id>(s % vocab));
      std::vector<block_id> table;
      for (std::int64_t b = 0; b < blocks; ++b) {
        table.emplace_back(static_cast<std::uint32_t>(s * blocks + b));
      }
      tables.push_back(std::move(table));
    }
  }
  [[nodiscard]] forward::forward_batch batch() const {
    forward::forward_batch b;
    for (std::size_t s = 0; s < tokens.size(); ++s) {
      b.sequences.push_back({std::span<const token_id>(tokens[s]).last(1),
                             static_cast<std::int64_t>(tokens[s].size()) - 1, tables[s]});
    }
    return b;
  }
};

struct step_figures {
  double graph_s = 0.0;
  double eager_s = 0.0;
};

// Median wall time of whole steps (host work, copies, graph or kernels, sampling, wait).
double time_steps(forward::model_forward& fwd, forward::paged_kv_cache& cache,
                  const decode_batch& work, kernels::tensor ids, int steps) {
  const forward::forward_batch batch = work.batch();
  std::vector<double> times;
  for (int i = 0; i < steps + 3; ++i) {
    const auto start = clock_type::now();
    fwd.enqueue(batch, cache);
    kernels::argmax_rows(fwd.backend(), fwd.last_logits(), ids.rows(0, fwd.last_logits().dim(0)));
    fwd.wait();
    if (i >= 3) times.push_back(std::chrono::duration<double>(clock_type::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

int run(const options& opt) {
  std::string why;
  const auto info = kernels::cuda::query_device(&why);
  if (!info) {
    std::printf("bench_cuda_decode: no CUDA device: %s\n", why.c_str());
    return 0;
  }
  auto config = read_model_config(opt.model_config);
  if (!config) {
    std::fprintf(stderr, "bench_cuda_decode: %s\n", config.err().message.c_str());
    return 2;
  }
  std::printf("device: %s%s; model %s (%lld layers, hidden %lld, vocab %lld), bf16\n",
              info->name.c_str(), info->emulated ? " (emulated: timings meaningless)" : "",
              opt.model_config.c_str(), static_cast<long long>(config->num_layers),
              static_cast<long long>(config->hidden_size),
              static_cast<long long>(config->vocab_size));
  auto made = kernels::make_cuda_backend({kernels::dtype::bf16, 0});
  if (!made) {
    std::fprintf(stderr, "bench_cuda_decode: %s\n", made.err().message.c_str());
    return 1;
  }
  kernels::backend& cuda = **made;
  const auto load_start = clock_type::now();
  auto weights = [&] {
    const checkpoint dummy = make_dummy_checkpoint(*config, 0);
    return forward::upload_model_weights(cuda, *config, dummy);
  }();
  if (!weights) {
    std::fprintf(stderr, "bench_cuda_decode: %s\n", weights.err().message.c_str());
    return 1;
  }
  std::printf("dummy weights on the device in %.1f s\n",
              std::chrono::duration<double>(clock_type::now() - load_start).count());
  forward::model_forward eager(cuda, *config, std::move(*weights));

  std::int64_t max_batch = 0;
  for (std::int64_t b : opt.batches) max_batch = std::max(max_batch, b);
  const std::int64_t blocks_per_seq = num_blocks_for(opt.context + 1, block_size);
  forward::paged_kv_cache cache(
      cuda, forward::kv_cache_layout::for_model(*config, max_batch * blocks_per_seq, block_size));
  for (std::int64_t layer = 0; layer < config->num_layers; ++layer) {
    kernels::fill_uniform(cuda, cache.keys(layer), static_cast<std::uint32_t>(2 * layer + 1), 1.0F);
    kernels::fill_uniform(cuda, cache.values(layer), static_cast<std::uint32_t>(2 * layer + 2),
                          1.0F);
  }
  kernels::buffer ids = cuda.allocate(kernels::dtype::i32, {max_batch});

  // Eager figures first; then the same model with graphs (the workspace freezes at capture).
  std::vector<step_figures> figures(opt.batches.size());
  eager.workspace().reserve(max_batch, max_batch, blocks_per_seq);
  for (std::size_t i = 0; i < opt.batches.size(); ++i) {
    figures[i].eager_s =
        time_steps(eager, cache, decode_batch(opt.batches[i], opt.context, config->vocab_size),
                   ids.view(), opt.steps);
  }
  const std::size_t num_graphs = eager.enable_decode_graphs(
      cache, {forward::default_decode_batch_sizes(max_batch), opt.context + 1});
  std::printf("captured %zu decode graphs (batch sizes up to %lld)\n", num_graphs,
              static_cast<long long>(max_batch));
  for (std::size_t i = 0; i < opt.batches.size(); ++i) {
    figures[i].graph_s =
        time_steps(eager, cache, decode_batch(opt.batches[i], opt.context, config->vocab_size),
                   ids.view(), opt.steps);
  }

  std::printf("%-7s %-8s %11s %11s %11s %9s %10s %12s\n", "batch", "context", "graph_ms",
              "eager_ms", "floor_ms", "of_floor", "graph_x", "tokens/s");
  for (std::size_t i = 0; i < opt.batches.size(); ++i) {
    const std::int64_t b = opt.batches[i];
    const double floor_s =
        (weight_bytes(*config) + kv_bytes(*config, b, opt.context)) / h200_copy_bytes_per_s;
    const step_figures& f = figures[i];
    std::printf("%-7lld %-8lld %11.3f %11.3f %11.3f %8.1f%% %9.2fx %12.0f\n",
                static_cast<long long>(b), static_cast<long long>(opt.context), f.graph_s * 1e3,
                f.eager_s * 1e3, floor_s * 1e3, 100.0 * floor_s / f.graph_s, f.eager_s / f.graph_s,
                static_cast<double>(b) / f.graph_s);
  }
  std::printf("weights read per step %.2f GB; KV per token %.1f KiB\n", weight_bytes(*config) / 1e9,
              kv_bytes(*config, 1, 1) / 1024.0);
  return 0;
}

std::vector<std::int64_t> parse_list(const std::string& text) {
  std::vector<std::int64_t> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) out.push_back(std::stoll(item));
  return out;
}

}  // namespace
}  // namespace pagedserve::bench

int main(int argc, char** argv) {
  pagedserve::bench::options opt;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const std::string value = argv[i + 1];
    if (flag == "--model-config") {
      opt.model_config = value;
    } else if (flag == "--batches") {
      opt.batches = pagedserve::bench::parse_list(value);
    } else if (flag == "--context") {
      opt.context = std::stoll(value);
    } else if (flag == "--steps") {
      opt.steps = std::stoi(value);
    } else {
      std::fprintf(stderr, "bench_cuda_decode: unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  if (opt.batches.empty() || opt.context < 1 || opt.steps < 1) {
    std::fprintf(stderr, "bench_cuda_decode: need batches, context >= 1 and steps >= 1\n");
    return 2;
  }
  return pagedserve::bench::run(opt);
}
