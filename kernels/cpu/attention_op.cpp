// kv_write and paged_attention over the paged cache
// [num_blocks, block_size, num_kv_heads, head_dim]; slot = block * block_size + offset.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "common/num_blocks.h"
#include "kernels/check.h"
#include "kernels/cpu/cpu_ops.h"
#include "kernels/cpu/fp8_kv_rows.h"
#include "kernels/cpu/parallel.h"
#include "kernels/cpu/simd/simd_kernels.h"

namespace pagedserve::kernels::cpu {
namespace {

struct cache_geometry {
  std::int64_t num_slots = 0;
  std::int64_t block_size = 0;
  std::int64_t num_kv_heads = 0;
  std::int64_t head_dim = 0;
};

// Caches hold fp32, or fp8 e4m3 codes (u8) with a scale per layer.
cache_geometry geometry_of(const char* what, const tensor& key_cache, const tensor& value_cache) {
  KERNEL_CHECK(what, key_cache.type == dtype::f32 || key_cache.type == dtype::u8);
  KERNEL_CHECK(what, key_cache.rank == 4 && value_cache.type == key_cache.type);
  KERNEL_CHECK(what, key_cache.shape == value_cache.shape);
  return {key_cache.dim(0) * key_cache.dim(1), key_cache.dim(1), key_cache.dim(2),
          key_cache.dim(3)};
}

// Query rows of one sequence per task: a long prefill chunk is split so both cores get work
// and a task's scores (rows x group x keys floats) stay small.
constexpr std::int64_t rows_per_task = 16;

// One task: rows [first_row, first_row + num_rows) of sequence `seq`, for the query heads of
// kv head `kv_head` (its GQA group).
struct group_work {
  std::int64_t seq = 0;
  std::int64_t kv_head = 0;
  std::int64_t first_row = 0;
  std::int64_t num_rows = 0;
};

// Keys each query row sees (causal within the step's new tokens) and the tasks: per
// sequence, chunks of rows_per_task rows, each for every kv head.
struct attention_plan {
  std::vector<std::int64_t> row_keys;
  std::vector<group_work> work;
};

attention_plan plan_attention(const paged_attention_params& p, const cache_geometry& g) {
  const std::int64_t num_seqs = p.context_lens.numel();
  const std::int32_t* query_start = p.query_start.as<const std::int32_t>();
  const std::int32_t* context_lens = p.context_lens.as<const std::int32_t>();
  attention_plan plan;
  plan.row_keys.resize(static_cast<std::size_t>(p.query.dim(0)));
  for (std::int64_t s = 0; s < num_seqs; ++s) {
    const std::int64_t num_new = query_start[s + 1] - query_start[s];
    KERNEL_CHECK("paged_attention", num_new >= 0 && context_lens[s] >= num_new);
    const std::int64_t needed_blocks = num_blocks_for(context_lens[s], g.block_size);
    KERNEL_CHECK("paged_attention", needed_blocks <= p.block_tables.dim(1));
    for (std::int64_t j = 0; j < num_new; ++j) {
      plan.row_keys[static_cast<std::size_t>(query_start[s] + j)] =
          context_lens[s] - num_new + j + 1;
    }
    for (std::int64_t first = 0; first < num_new; first += rows_per_task) {
      for (std::int64_t h = 0; h < g.num_kv_heads; ++h) {
        plan.work.push_back(
            {s, h, query_start[s] + first, std::min(rows_per_task, num_new - first)});
      }
    }
  }
  return plan;
}

// The kernel's view of one task; `scratch` grows to the task's scores. An fp8 cache is read
// through `decoded`: this kv head's keys and values in fp32, as a one-head cache.
simd::attention_task task_of(const paged_attention_params& p, const cache_geometry& g,
                             const attention_plan& plan, const group_work& w,
                             std::vector<float>& scratch, decoded_kv& decoded) {
  const std::int64_t num_heads = p.query.dim(1);
  const std::int64_t group = num_heads / g.num_kv_heads;
  const std::int64_t first_value = (w.first_row * num_heads + w.kv_head * group) * g.head_dim;
  simd::attention_task t;
  t.query = p.query.as<const float>() + first_value;
  t.out = p.out.as<float>() + first_value;
  t.block_table = p.block_tables.as<const std::int32_t>() + w.seq * p.block_tables.dim(1);
  t.num_keys = plan.row_keys.data() + w.first_row;
  const std::int64_t max_keys = t.num_keys[w.num_rows - 1];  // later rows see more keys
  if (p.key_cache.type == dtype::u8) {
    decoded.decode(p.key_cache.as<const std::uint8_t>(), p.value_cache.as<const std::uint8_t>(),
                   t.block_table, max_keys, g.block_size, g.num_kv_heads, w.kv_head, g.head_dim,
                   p.key_scale, p.value_scale);
    t.key_cache = decoded.keys.data();
    t.value_cache = decoded.values.data();
    t.block_table = decoded.identity_table.data();
    t.num_kv_heads = 1;
  } else {
    t.key_cache = p.key_cache.as<const float>() + w.kv_head * g.head_dim;
    t.value_cache = p.value_cache.as<const float>() + w.kv_head * g.head_dim;
    t.num_kv_heads = g.num_kv_heads;
  }
  t.num_rows = w.num_rows;
  t.group_size = group;
  t.num_heads = num_heads;
  t.head_dim = g.head_dim;
  t.block_size = g.block_size;
  t.scale = p.scale;
  scratch.resize(static_cast<std::size_t>(
      simd::attention_scratch_floats(w.num_rows, group, max_keys, g.head_dim)));
  t.scratch = scratch.data();
  return t;
}

void write_rows(const tensor& cache, const tensor& rows, const std::int32_t* slots,
                std::int64_t num_tokens, std::int64_t row, float scale) {
  for (std::int64_t t = 0; t < num_tokens; ++t) {
    const float* from = rows.as<const float>() + t * row;
    if (cache.type == dtype::u8) {
      encode_e4m3_row(from, row, scale, cache.as<std::uint8_t>() + slots[t] * row);
    } else {
      std::memcpy(cache.as<float>() + slots[t] * row, from,
                  static_cast<std::size_t>(row) * sizeof(float));
    }
  }
}

}  // namespace

void kv_write(const kv_write_params& p) {
  const cache_geometry g = geometry_of("kv_write", p.key_cache, p.value_cache);
  const std::int64_t row = g.num_kv_heads * g.head_dim;
  const std::int64_t num_tokens = p.slot_mapping.numel();
  KERNEL_CHECK("kv_write", p.slot_mapping.type == dtype::i32);
  KERNEL_CHECK("kv_write", p.key.type == dtype::f32 && p.value.type == dtype::f32);
  KERNEL_CHECK("kv_write", p.key.numel() == num_tokens * row && p.value.numel() == p.key.numel());
  const std::int32_t* slots = p.slot_mapping.as<const std::int32_t>();
  for (std::int64_t t = 0; t < num_tokens; ++t) {
    KERNEL_CHECK("kv_write", slots[t] >= 0 && slots[t] < g.num_slots);
  }
  KERNEL_CHECK("kv_write", p.key_scale > 0.0F && p.value_scale > 0.0F);
  write_rows(p.key_cache, p.key, slots, num_tokens, row, p.key_scale);
  write_rows(p.value_cache, p.value, slots, num_tokens, row, p.value_scale);
}

void paged_attention(const paged_attention_params& p) {
  const cache_geometry g = geometry_of("paged_attention", p.key_cache, p.value_cache);
  KERNEL_CHECK("paged_attention", p.query.type == dtype::f32 && p.query.rank == 3);
  KERNEL_CHECK("paged_attention", p.out.type == dtype::f32 && p.out.shape == p.query.shape);
  KERNEL_CHECK("paged_attention", p.query.dim(2) == g.head_dim);
  KERNEL_CHECK("paged_attention", p.query.dim(1) % g.num_kv_heads == 0);
  KERNEL_CHECK("paged_attention", p.block_tables.type == dtype::i32 && p.block_tables.rank == 2);
  const std::int64_t num_seqs = p.context_lens.numel();
  KERNEL_CHECK("paged_attention", p.query_start.numel() == num_seqs + 1);
  KERNEL_CHECK("paged_attention", p.block_tables.dim(0) == num_seqs);
  KERNEL_CHECK("paged_attention",
               p.query_start.as<const std::int32_t>()[num_seqs] == p.query.dim(0));
  const attention_plan plan = plan_attention(p, g);
  const simd::attend_fn attend = simd::active_kernels().attend;
  const std::int64_t flops =
      p.query.dim(0) * p.query.dim(1) * std::int64_t{p.max_context_len} * g.head_dim;
  const auto num_tasks = static_cast<std::int64_t>(plan.work.size());
#pragma omp parallel if (flops >= min_parallel_flops)
  {
    std::vector<float> scratch;
    decoded_kv decoded;
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t i = 0; i < num_tasks; ++i) {
      attend(task_of(p, g, plan, plan.work[static_cast<std::size_t>(i)], scratch, decoded));
    }
  }
}

}  // namespace pagedserve::kernels::cpu
