// kv_write and paged_attention on the CUDA backend against the CPU reference: decode
// batches (one query row per sequence) up to 256 sequences and 4096 tokens of context,
// mixed prefill chunks (on tensor cores in 16-bit types), head_dim 16/32/64/128/256, GQA
// ratios 1/2/4/8/12/16, block sizes 16/24/32, caches of the compute type and of fp8 e4m3 codes
// (kv_cache_dtype fp8_e4m3). Both backends fill their caches through kv_write from the same
// keys and values, then attend. The kernels' fp8 codec (cuda_fp8.h: the hardware's cvt on a
// GPU, NVIDIA's software path on the emulator) is checked against the CPU's codec
// (kernels/fp8_e4m3.h) on every code and on the rounding ties.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "kernels/fp8_e4m3.h"
#include "tests/kernels/cuda/cuda_test_support.h"

namespace pagedserve::kernels::testing {
namespace {

// The cache's element type and, for fp8 codes, its scales (not powers of two, so that the
// encoding's x * (1 / scale) rounds as it does on the CPU).
struct cache_format {
  bool fp8 = false;
  float key_scale = 1.0F;
  float value_scale = 1.0F;
};

// The bytes of a u8 tensor.
std::vector<std::uint8_t> download_codes(backend& be, const tensor& t) {
  be.synchronize();
  std::vector<std::uint8_t> out(static_cast<std::size_t>(t.numel()));
  be.copy_to_host(out.data(), t);
  return out;
}

class cuda_attention : public cuda_vs_cpu {
 protected:
  void run_sweep(const cache_format& format);
};

struct attention_case {
  std::string name;
  std::int64_t head_dim;
  std::int64_t num_kv_heads;
  std::int64_t group;  // query heads per KV head
  std::int64_t block_size;
  std::vector<std::pair<std::int64_t, std::int64_t>> seqs;  // (context_len, query rows)
};

// `batch` decodes with contexts drawn from [1, max_context]; the first has max_context.
std::vector<std::pair<std::int64_t, std::int64_t>> decodes(std::int64_t batch,
                                                           std::int64_t max_context,
                                                           std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<std::int64_t> dist(1, max_context);
  std::vector<std::pair<std::int64_t, std::int64_t>> seqs{{max_context, 1}};
  while (static_cast<std::int64_t>(seqs.size()) < batch) seqs.emplace_back(dist(gen), 1);
  return seqs;
}

// The GPU's sweep; the emulator's keeps every layout but shortens batches and contexts
// (still past one chunk of 256 keys, so split-K, several chunks per split and the combine
// all run).
std::vector<attention_case> cases(bool emulated) {
  if (emulated) {
    return {
        {"one_token", 64, 8, 1, 16, {{1, 1}}},
        {"decode_gqa4_d128", 128, 2, 4, 32, decodes(5, 40, 1)},
        {"decode_batch32_llama1b", 64, 8, 4, 16, decodes(32, 300, 2)},
        // 64 rows x 8 KV heads split only in two: each split walks several chunks of keys.
        {"decode_batch64_multichunk", 64, 8, 2, 16, decodes(64, 600, 5)},
        {"decode_gqa8_1100", 64, 4, 8, 16, decodes(3, 1100, 3)},
        {"decode_d128_gqa8_bs32", 128, 2, 8, 32, {{700, 1}, {513, 1}, {257, 1}}},
        {"decode_gqa1_bs32", 64, 4, 1, 32, decodes(8, 600, 4)},
        // A group that no head tile fits (two CTAs of 8 heads, the second with 4), and one of
        // 16; the smallest and largest head_dim.
        {"decode_gqa12_d256", 256, 1, 12, 16, decodes(3, 150, 6)},
        {"decode_gqa16_d16", 16, 2, 16, 16, decodes(4, 300, 7)},
        // A block size that is no power of two (the kernels divide instead of shifting).
        {"mixed_bs24", 64, 2, 4, 24, {{100, 50}, {30, 1}, {75, 1}}},
        {"prefill_mixed", 128, 4, 4, 16, {{40, 40}, {300, 37}, {1, 1}, {280, 20}}},
        {"prefill_long_gqa8", 64, 2, 8, 32, {{300, 64}}},
        {"prefill_d32", 32, 2, 2, 16, {{7, 7}, {20, 3}}},
        {"prefill_gqa1_bs32", 64, 4, 1, 32, {{129, 129}, {200, 65}, {2, 2}}},
    };
  }
  return {
      {"one_token", 64, 8, 1, 16, {{1, 1}}},
      {"decode_gqa4_d128", 128, 2, 4, 32, decodes(5, 40, 1)},
      {"decode_batch256_llama1b", 64, 8, 4, 16, decodes(256, 300, 2)},
      {"decode_gqa8_4096", 64, 4, 8, 16, decodes(8, 4096, 3)},
      {"decode_d128_gqa8_bs32", 128, 2, 8, 32, {{4096, 1}, {2049, 1}, {257, 1}}},
      {"decode_gqa1_bs32", 64, 4, 1, 32, decodes(64, 1000, 4)},
      {"decode_gqa12_d256", 256, 1, 12, 16, decodes(16, 2000, 6)},
      {"decode_gqa16_d16", 16, 2, 16, 16, decodes(16, 3000, 7)},
      {"mixed_bs24", 64, 2, 4, 24, {{1000, 300}, {30, 1}, {750, 1}}},
      {"prefill_mixed", 128, 4, 4, 16, {{40, 40}, {600, 77}, {300, 1}, {1, 1}, {513, 256}}},
      {"prefill_long_gqa8", 64, 2, 8, 32, {{1024, 512}}},
      {"prefill_d32", 32, 2, 2, 16, {{7, 7}, {20, 3}}},
      {"prefill_gqa1_bs32", 64, 4, 1, 32, {{129, 129}, {2000, 1000}, {2, 2}, {4096, 2048}}},
  };
}

// The same inputs laid out for one backend: caches filled through kv_write, then metadata.
struct attention_inputs {
  buffer key_cache, value_cache, query, out, query_start, context_lens, block_tables;
};

TEST_P(cuda_attention, MatchesTheReferenceOverTheSweep) { run_sweep({}); }

TEST_P(cuda_attention, Fp8CachesMatchTheReferenceOverTheSweep) {
  run_sweep({true, 0.0041F, 0.0029F});
}

void cuda_attention::run_sweep(const cache_format& format) {
  std::uint32_t seed = 1000;
  for (const attention_case& c : cases(emulated())) {
    const std::int64_t num_heads = c.num_kv_heads * c.group;
    const std::int64_t kv_row = c.num_kv_heads * c.head_dim;
    std::int64_t total_keys = 0;
    std::int64_t num_rows = 0;
    std::int64_t max_context = 0;
    std::int64_t max_blocks = 0;
    std::int64_t max_rows = 0;
    for (auto [context, rows] : c.seqs) {
      total_keys += context;
      num_rows += rows;
      max_rows = std::max(max_rows, rows);
      max_context = std::max(max_context, context);
      max_blocks = std::max(max_blocks, (context + c.block_size - 1) / c.block_size);
    }
    // Blocks handed out in a shuffled order, with spares, so tables are not the identity.
    std::int64_t num_blocks = 3;
    for (auto [context, rows] : c.seqs) num_blocks += (context + c.block_size - 1) / c.block_size;
    std::vector<std::int32_t> free_blocks(static_cast<std::size_t>(num_blocks));
    std::iota(free_blocks.begin(), free_blocks.end(), 0);
    std::shuffle(free_blocks.begin(), free_blocks.end(), std::mt19937(seed++));

    const auto num_seqs = static_cast<std::int64_t>(c.seqs.size());
    std::vector<std::int32_t> tables(static_cast<std::size_t>(num_seqs * max_blocks), 0);
    std::vector<std::int32_t> slots;
    std::vector<std::int32_t> query_start{0};
    std::vector<std::int32_t> context_lens;
    for (std::int64_t s = 0; s < num_seqs; ++s) {
      const auto [context, rows] = c.seqs[static_cast<std::size_t>(s)];
      for (std::int64_t b = 0; b < (context + c.block_size - 1) / c.block_size; ++b) {
        tables[static_cast<std::size_t>(s * max_blocks + b)] = free_blocks.back();
        free_blocks.pop_back();
      }
      for (std::int64_t pos = 0; pos < context; ++pos) {
        slots.push_back(static_cast<std::int32_t>(
            tables[static_cast<std::size_t>(s * max_blocks + pos / c.block_size)] * c.block_size +
            pos % c.block_size));
      }
      query_start.push_back(query_start.back() + static_cast<std::int32_t>(rows));
      context_lens.push_back(static_cast<std::int32_t>(context));
    }
    const auto keys = random(static_cast<std::size_t>(total_keys * kv_row), seed++);
    const auto values = random(static_cast<std::size_t>(total_keys * kv_row), seed++);
    const auto query =
        random(static_cast<std::size_t>(num_rows * num_heads * c.head_dim), seed++, 2.0F);

    auto run = [&](backend& be) {
      attention_inputs in;
      const dtype cache_type = format.fp8 ? dtype::u8 : be.compute_type();
      in.key_cache =
          be.allocate(cache_type, {num_blocks, c.block_size, c.num_kv_heads, c.head_dim});
      in.value_cache =
          be.allocate(cache_type, {num_blocks, c.block_size, c.num_kv_heads, c.head_dim});
      be.fill_zero(in.key_cache.view());
      be.fill_zero(in.value_cache.view());
      buffer k = upload(be, keys, {total_keys, c.num_kv_heads, c.head_dim});
      buffer v = upload(be, values, {total_keys, c.num_kv_heads, c.head_dim});
      buffer slot_mapping = upload_i32(be, slots, {total_keys});
      be.kv_write({in.key_cache.view(), in.value_cache.view(), k.view(), v.view(),
                   slot_mapping.view(), format.key_scale, format.value_scale});
      in.query = upload(be, query, {num_rows, num_heads, c.head_dim});
      in.out = be.allocate(be.compute_type(), {num_rows, num_heads, c.head_dim});
      in.query_start = upload_i32(be, query_start, {num_seqs + 1});
      in.context_lens = upload_i32(be, context_lens, {num_seqs});
      in.block_tables = upload_i32(be, tables, {num_seqs, max_blocks});
      paged_attention_params p;
      p.out = in.out.view();
      p.query = in.query.view();
      p.key_cache = in.key_cache.view();
      p.value_cache = in.value_cache.view();
      p.query_start = in.query_start.view();
      p.context_lens = in.context_lens.view();
      p.block_tables = in.block_tables.view();
      p.scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(c.head_dim)));
      p.max_context_len = static_cast<std::int32_t>(max_context);
      p.max_query_len = static_cast<std::int32_t>(max_rows);
      p.key_scale = format.key_scale;
      p.value_scale = format.value_scale;
      be.paged_attention(p);
      return in;
    };
    const attention_inputs on_gpu = run(*gpu_);
    const attention_inputs on_cpu = run(*cpu_);
    if (format.fp8) {  // the same codes, to the bit
      EXPECT_EQ(download_codes(*gpu_, on_gpu.key_cache.view()),
                download_codes(*cpu_, on_cpu.key_cache.view()))
          << "kv_write keys " << c.name;
      EXPECT_EQ(download_codes(*gpu_, on_gpu.value_cache.view()),
                download_codes(*cpu_, on_cpu.value_cache.view()))
          << "kv_write values " << c.name;
    } else {
      expect_close(on_gpu.key_cache.view(), on_cpu.key_cache.view(), "kv_write keys " + c.name);
      expect_close(on_gpu.value_cache.view(), on_cpu.value_cache.view(),
                   "kv_write values " + c.name);
    }
    expect_close(on_gpu.out.view(), on_cpu.out.view(), "paged_attention " + c.name);
  }
}

INSTANTIATE_TEST_SUITE_P(compute_types, cuda_attention, all_compute_types, dtype_name);

}  // namespace
}  // namespace pagedserve::kernels::testing
