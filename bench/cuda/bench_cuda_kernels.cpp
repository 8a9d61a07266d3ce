// bench_cuda_kernels: our CUDA kernels (and cuBLAS for scale) on the shapes that matter,
// against the H200's ceilings measured in docs/design/gpu-runbook.md:
//   decode paged attention, bf16, 16-token blocks in a shuffled order: achieved bandwidth
//     over the K/V bytes it must read, against 4.27 TB/s (goal >= 75%)
//   prefill attention on tensor cores: causal FLOPs per second against 789 TFLOP/s
//   sampling on the device: microseconds per step of 256 rows of a 128k vocabulary, and the
//     logits processing (penalties, logit_bias) before it, against the copy bandwidth
//   the GEMMs of a Llama-3.2-1B decode step at batch 256 (cuBLAS): TFLOP/s and GB/s
// Inputs are random on the device (never zeros). Each figure: warm-ups, then the median of
// many runs timed with CUDA events. On the SIMT emulator the shapes shrink and the times
// mean nothing: that run only shows the program works.
//
//   bench_cuda_kernels [--runs N]

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "bench/cuda/bench_support.h"
#include "common/num_blocks.h"
#include "kernels/cuda/device_info.h"

namespace pagedserve::bench {
namespace {

using kernels::backend;
using kernels::buffer;
using kernels::dtype;
using kernels::tensor;

struct figure {
  std::string name;
  double seconds = 0.0;
  double amount = 0.0;   // bytes or FLOPs per run
  double ceiling = 0.0;  // per second; 0: no ratio
  const char* unit = "";
};

void print(const figure& f) {
  const double rate = f.amount / f.seconds;
  const double scale = std::string(f.unit) == "TFLOP/s" ? 1e12 : 1e9;
  if (f.ceiling > 0.0) {
    std::printf("%-52s %11.1f %10.1f %-7s %6.1f%%\n", f.name.c_str(), f.seconds * 1e6, rate / scale,
                f.unit, 100.0 * rate / f.ceiling);
  } else {
    std::printf("%-52s %11.1f %10.1f %-7s\n", f.name.c_str(), f.seconds * 1e6, rate / scale,
                f.unit);
  }
}

buffer random_tensor(backend& cuda, dtype type, std::initializer_list<std::int64_t> shape,
                     std::uint32_t seed, float scale) {
  buffer b = cuda.allocate(type, shape);
  kernels::fill_uniform(cuda, b.view(), seed, scale);
  return b;
}

buffer upload_i32(backend& cuda, const std::vector<std::int32_t>& host,
                  std::initializer_list<std::int64_t> shape) {
  buffer b = cuda.allocate(dtype::i32, shape);
  cuda.copy_from_host(b.view(), host.data());
  return b;
}

// A cache of random fp8 e4m3 codes (finite: the two NaN codes are skipped), from the host.
buffer random_codes(backend& cuda, std::initializer_list<std::int64_t> shape, std::uint32_t seed) {
  buffer b = cuda.allocate(dtype::u8, shape);
  std::vector<std::uint8_t> codes(static_cast<std::size_t>(b.view().numel()));
  std::uint32_t state = seed * 2654435761U + 1U;
  for (std::uint8_t& code : codes) {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    code = static_cast<std::uint8_t>((state & 0x80U) | ((state >> 8) % 0x7FU));
  }
  cuda.copy_from_host(b.view(), codes.data());
  return b;
}

struct attention_shape {
  int num_heads;
  int num_kv_heads;
  int head_dim;
};

// Paged caches (bf16, or fp8 codes with kv_cache_dtype fp8_e4m3) of `num_seqs` sequences of
// `context` tokens on shuffled 16-token blocks, and the metadata of `rows_per_seq` new rows
// each (1: decode).
struct attention_setup {
  buffer key_cache, value_cache, query, out, query_start, context_lens, block_tables;
  kernels::paged_attention_params params;

  attention_setup(backend& cuda, attention_shape s, int num_seqs, int context, int rows_per_seq,
                  bool fp8_cache = false) {
    constexpr int block_size = 16;
    const int blocks_per_seq = static_cast<int>(num_blocks_for(context, block_size));
    const std::int64_t num_blocks = std::int64_t{num_seqs} * blocks_per_seq;
    const std::int64_t rows = std::int64_t{num_seqs} * rows_per_seq;
    if (fp8_cache) {
      key_cache = random_codes(cuda, {num_blocks + 1, block_size, s.num_kv_heads, s.head_dim}, 1);
      value_cache = random_codes(cuda, {num_blocks + 1, block_size, s.num_kv_heads, s.head_dim}, 2);
      params.key_scale = 1.0F / 256.0F;
      params.value_scale = 1.0F / 256.0F;
    } else {
      key_cache = random_tensor(cuda, dtype::bf16,
                                {num_blocks + 1, block_size, s.num_kv_heads, s.head_dim}, 1, 1.0F);
      value_cache = random_tensor(
          cuda, dtype::bf16, {num_blocks + 1, block_size, s.num_kv_heads, s.head_dim}, 2, 1.0F);
    }
    query = random_tensor(cuda, dtype::bf16, {rows, s.num_heads, s.head_dim}, 3, 2.0F);
    out = cuda.allocate(dtype::bf16, {rows, s.num_heads, s.head_dim});
    std::vector<std::int32_t> blocks(static_cast<std::size_t>(num_blocks));
    std::iota(blocks.begin(), blocks.end(), 0);
    std::shuffle(blocks.begin(), blocks.end(), std::mt19937(7));
    std::vector<std::int32_t> starts(static_cast<std::size_t>(num_seqs) + 1);
    for (int i = 0; i <= num_seqs; ++i) starts[static_cast<std::size_t>(i)] = i * rows_per_seq;
    block_tables = upload_i32(cuda, blocks, {num_seqs, blocks_per_seq});
    query_start = upload_i32(cuda, starts, {num_seqs + 1});
    context_lens = upload_i32(
        cuda, std::vector<std::int32_t>(static_cast<std::size_t>(num_seqs), context), {num_seqs});
    params.out = out.view();
    params.query = query.view();
    params.key_cache = key_cache.view();
    params.value_cache = value_cache.view();
    params.query_start = query_start.view();
    params.context_lens = context_lens.view();
    params.block_tables = block_tables.view();
    params.scale = 1.0F / std::sqrt(static_cast<float>(s.head_dim));
    params.max_context_len = context;
    params.max_query_len = rows_per_seq;
  }
};

std::string heads_name(attention_shape s) {
  return std::to_string(s.num_heads) + "q/" + std::to_string(s.num_kv_heads) + "kv/d" +
         std::to_string(s.head_dim);
}

figure decode_attention(backend& cuda, attention_shape s, int batch, int context, int runs,
                        bool fp8_cache = false) {
  attention_setup a(cuda, s, batch, context, 1, fp8_cache);
  const double kv_bytes =
      2.0 * batch * context * s.num_kv_heads * s.head_dim * (fp8_cache ? 1.0 : 2.0);
  const double other_bytes = 2.0 * batch * s.num_heads * s.head_dim * 2.0 +
                             4.0 * (batch * ((context + 15) / 16) + 2.0 * batch + 1.0);
  return {std::string("decode attention ") + (fp8_cache ? "fp8kv" : "bf16") + " b" +
              std::to_string(batch) + " ctx" + std::to_string(context) + " " + heads_name(s),
          median_seconds(cuda, 10, runs, [&] { cuda.paged_attention(a.params); }),
          kv_bytes + other_bytes, h200_copy_bytes_per_s, "GB/s"};
}

figure prefill_attention(backend& cuda, attention_shape s, int num_seqs, int length, int runs,
                         bool fp8_cache = false) {
  attention_setup a(cuda, s, num_seqs, length, length, fp8_cache);
  // QK^T and PV over the causal triangle: 2 x 2 FLOPs per (row, key, dim) pair kept.
  const double pairs = 0.5 * length * (length + 1.0) * num_seqs;
  const double flops = 4.0 * pairs * s.num_heads * s.head_dim;
  return {std::string("prefill attention ") + (fp8_cache ? "fp8kv " : "bf16 ") +
              std::to_string(num_seqs) + "x" + std::to_string(length) + " " + heads_name(s),
          median_seconds(cuda, 3, runs, [&] { cuda.paged_attention(a.params); }), flops,
          h200_bf16_flops, "TFLOP/s"};
}

figure sampling(backend& cuda, int rows, int vocab, bool truncated, int runs) {
  buffer logits = random_tensor(cuda, dtype::f32, {rows, vocab}, 5, 8.0F);
  buffer ids = cuda.allocate(dtype::i32, {rows});
  std::vector<kernels::sampling_row> host(static_cast<std::size_t>(rows));
  for (int r = 0; r < rows; ++r) {
    kernels::sampling_row& row = host[static_cast<std::size_t>(r)];
    row.temperature = truncated ? 0.7F : 0.0F;
    row.top_k = truncated ? 50 : 0;
    row.top_p = truncated ? 0.9F : 1.0F;
    row.seed = static_cast<std::uint64_t>(r);
  }
  buffer settings = cuda.allocate(dtype::i32, {rows, kernels::sampling_row_words});
  cuda.copy_from_host(settings.view(), host.data());
  return {std::string("sample ") + (truncated ? "top-k 50 top-p 0.9 t 0.7 " : "greedy ") +
              std::to_string(rows) + "x" + std::to_string(vocab),
          median_seconds(cuda, 5, runs,
                         [&] {
                           cuda.sample({ids.view(), logits.view(), settings.view()});
                         }),
          4.0 * rows * vocab, 0.0, "GB/s"};
}

// Penalties on every row (packed counts with ~1,000 tokens seen per row) plus 8 logit_bias
// edits per row: the logits processing that runs before sample on a step of `rows` rows.
// The amount is the counts and logits it must read (both [rows, vocab] i32/f32).
figure logits_processing(backend& cuda, int rows, int vocab, int runs) {
  buffer logits = random_tensor(cuda, dtype::f32, {rows, vocab}, 6, 8.0F);
  std::mt19937 gen(3);
  std::uniform_int_distribution<int> token(0, vocab - 1);
  std::vector<std::int32_t> entries, edits;
  std::vector<kernels::sampling_row> host(static_cast<std::size_t>(rows));
  for (int r = 0; r < rows; ++r) {
    for (int i = 0; i < 1000; ++i) entries.insert(entries.end(), {r, token(gen), i % 2});
    kernels::sampling_row& row = host[static_cast<std::size_t>(r)];
    row.presence_penalty = 0.5F;
    row.frequency_penalty = 0.3F;
    row.repetition_penalty = 1.1F;
    row.penalty_slot = r;
    row.edit_begin = 8 * r;
    row.edit_count = 8;
    for (int e = 0; e < 8; ++e) edits.insert(edits.end(), {e * 97 + r % 97, 0x40000000});
  }
  buffer counts = cuda.allocate(dtype::i32, {rows, vocab});
  cuda.fill_zero(counts.view());
  const auto num_entries = static_cast<std::int64_t>(entries.size() / 3);
  buffer entry_table = cuda.allocate(dtype::i32, {num_entries, 3});
  cuda.copy_from_host(entry_table.view(), entries.data());
  cuda.count_tokens({counts.view(), entry_table.view()});
  buffer edit_table = cuda.allocate(dtype::i32, {8 * std::int64_t{rows}, 2});
  cuda.copy_from_host(edit_table.view(), edits.data());
  buffer settings = cuda.allocate(dtype::i32, {rows, kernels::sampling_row_words});
  cuda.copy_from_host(settings.view(), host.data());
  return {
      "process_logits penalties + 8 biases " + std::to_string(rows) + "x" + std::to_string(vocab),
      median_seconds(
          cuda, 5, runs,
          [&] {
            cuda.process_logits({logits.view(), settings.view(), edit_table.view(), counts.view()});
          }),
      8.0 * rows * vocab, h200_copy_bytes_per_s, "GB/s"};
}

figure gemm(backend& cuda, const std::string& what, int rows, int out_features, int in_features,
            int runs) {
  buffer x = random_tensor(cuda, dtype::bf16, {rows, in_features}, 8, 1.0F);
  buffer w = random_tensor(cuda, dtype::bf16, {out_features, in_features}, 9, 0.05F);
  buffer out = cuda.allocate(dtype::bf16, {rows, out_features});
  const double flops = 2.0 * rows * out_features * in_features;
  return {"gemm (cuBLAS) " + what + " " + std::to_string(rows) + "x" +
              std::to_string(out_features) + "x" + std::to_string(in_features),
          median_seconds(cuda, 5, runs,
                         [&] {
                           cuda.linear({out.view(), x.view(), w.view(), {}});
                         }),
          flops, h200_bf16_flops, "TFLOP/s"};
}

int run(int runs) {
  bench_device device = open_bench_device("bench_cuda_kernels");
  if (!device.backend) return device.exit_code;
  backend& cuda = *device.backend;
  const bool small = device.emulated;
  if (small) runs = std::min(runs, 2);
  const attention_shape llama_1b{32, 8, 64};
  const attention_shape llama_8b{32, 8, 128};
  std::printf("%-52s %11s %10s %-7s %7s\n", "kernel", "median_us", "rate", "unit", "of_peak");
  if (small) {
    print(decode_attention(cuda, llama_1b, 4, 300, runs));
    print(decode_attention(cuda, llama_1b, 4, 300, runs, true));
    print(prefill_attention(cuda, llama_1b, 1, 64, runs));
    print(prefill_attention(cuda, llama_1b, 1, 64, runs, true));
    print(sampling(cuda, 4, 5000, true, runs));
    print(logits_processing(cuda, 4, 5000, runs));
    print(gemm(cuda, "qkv", 4, 384, 256, runs));
    return 0;
  }
  print(decode_attention(cuda, llama_1b, 256, 1024, runs));
  print(decode_attention(cuda, llama_1b, 64, 4096, runs));
  print(decode_attention(cuda, llama_8b, 256, 1024, runs));
  print(decode_attention(cuda, llama_8b, 64, 4096, runs));
  print(decode_attention(cuda, llama_1b, 1, 4096, runs));
  print(decode_attention(cuda, llama_1b, 256, 1024, runs, true));
  print(decode_attention(cuda, llama_8b, 256, 1024, runs, true));
  print(decode_attention(cuda, llama_8b, 64, 4096, runs, true));
  print(prefill_attention(cuda, llama_1b, 4, 1024, runs));
  print(prefill_attention(cuda, llama_8b, 4, 1024, runs));
  print(prefill_attention(cuda, llama_8b, 1, 4096, runs));
  print(prefill_attention(cuda, llama_8b, 4, 1024, runs, true));
  print(sampling(cuda, 256, 128256, false, runs));
  print(sampling(cuda, 256, 128256, true, runs));
  print(logits_processing(cuda, 256, 128256, runs));
  print(gemm(cuda, "qkv", 256, 3072, 2048, runs));
  print(gemm(cuda, "o_proj", 256, 2048, 2048, runs));
  print(gemm(cuda, "gate/up", 256, 8192, 2048, runs));
  print(gemm(cuda, "down", 256, 2048, 8192, runs));
  print(gemm(cuda, "lm_head", 256, 128256, 2048, runs));
  print(gemm(cuda, "prefill gate/up", 8192, 8192, 2048, runs));
  return 0;
}

}  // namespace
}  // namespace pagedserve::bench

int main(int argc, char** argv) {
  return pagedserve::bench::run(pagedserve::bench::runs_flag(argc, argv, 1));
}
