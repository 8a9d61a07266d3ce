// kv_write and paged_attention over the paged cache
// [num_blocks, block_size, num_kv_heads, head_dim]; slot = block * block_size + offset.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/check.h"
#include "kernels/cpu/cpu_ops.h"
#include "kernels/cpu/parallel.h"

namespace pagedserve::kernels::cpu {
namespace {

struct cache_geometry {
  std::int64_t num_slots = 0;
  std::int64_t block_size = 0;
  std::int64_t num_kv_heads = 0;
  std::int64_t head_dim = 0;
};

cache_geometry geometry_of(const char* what, const tensor& key_cache, const tensor& value_cache) {
  KERNEL_CHECK(what, key_cache.type == dtype::f32 && key_cache.rank == 4);
  KERNEL_CHECK(what, value_cache.type == dtype::f32 && value_cache.rank == 4);
  KERNEL_CHECK(what, key_cache.shape == value_cache.shape);
  return {key_cache.dim(0) * key_cache.dim(1), key_cache.dim(1), key_cache.dim(2),
          key_cache.dim(3)};
}

// Attention of one query row of one head against positions [0, num_keys) of a sequence.
struct head_task {
  const float* query = nullptr;
  float* out = nullptr;
  const std::int32_t* block_table = nullptr;
  std::int64_t num_keys = 0;
  std::int64_t kv_head = 0;
};

void attend_one(const head_task& task, const paged_attention_params& p, const cache_geometry& g,
                std::vector<float>& scores) {
  const float* key_cache = p.key_cache.as<const float>();
  const float* value_cache = p.value_cache.as<const float>();
  const std::int64_t hd = g.head_dim;
  scores.resize(static_cast<std::size_t>(task.num_keys));
  auto slot_offset = [&](std::int64_t pos) {
    const std::int64_t slot =
        task.block_table[pos / g.block_size] * g.block_size + pos % g.block_size;
    return (slot * g.num_kv_heads + task.kv_head) * hd;
  };
  float max_score = -INFINITY;
  for (std::int64_t pos = 0; pos < task.num_keys; ++pos) {
    const float* key = key_cache + slot_offset(pos);
    float dot = 0.0F;
    for (std::int64_t i = 0; i < hd; ++i) dot += task.query[i] * key[i];
    const float s = dot * p.scale;
    scores[static_cast<std::size_t>(pos)] = s;
    max_score = std::max(max_score, s);
  }
  std::fill(task.out, task.out + hd, 0.0F);
  float sum = 0.0F;
  for (std::int64_t pos = 0; pos < task.num_keys; ++pos) {
    const float w = std::exp(scores[static_cast<std::size_t>(pos)] - max_score);
    sum += w;
    const float* value = value_cache + slot_offset(pos);
    for (std::int64_t i = 0; i < hd; ++i) task.out[i] += w * value[i];
  }
  const float inv_sum = 1.0F / sum;
  for (std::int64_t i = 0; i < hd; ++i) task.out[i] *= inv_sum;
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
  const std::size_t row_bytes = static_cast<std::size_t>(row) * sizeof(float);
  for (std::int64_t t = 0; t < num_tokens; ++t) {
    KERNEL_CHECK("kv_write", slots[t] >= 0 && slots[t] < g.num_slots);
    std::memcpy(p.key_cache.as<float>() + slots[t] * row, p.key.as<const float>() + t * row,
                row_bytes);
    std::memcpy(p.value_cache.as<float>() + slots[t] * row, p.value.as<const float>() + t * row,
                row_bytes);
  }
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
  const std::int64_t num_tokens = p.query.dim(0);
  const std::int64_t num_heads = p.query.dim(1);
  const std::int64_t group = num_heads / g.num_kv_heads;
  const std::int32_t* query_start = p.query_start.as<const std::int32_t>();
  const std::int32_t* context_lens = p.context_lens.as<const std::int32_t>();
  KERNEL_CHECK("paged_attention", query_start[num_seqs] == num_tokens);

  // Row -> (sequence, position) once, so the parallel loop is flat over rows x heads.
  std::vector<std::int64_t> row_seq(static_cast<std::size_t>(num_tokens));
  std::vector<std::int64_t> row_keys(static_cast<std::size_t>(num_tokens));
  for (std::int64_t s = 0; s < num_seqs; ++s) {
    const std::int64_t num_new = query_start[s + 1] - query_start[s];
    KERNEL_CHECK("paged_attention", num_new >= 0 && context_lens[s] >= num_new);
    const std::int64_t needed_blocks = (context_lens[s] + g.block_size - 1) / g.block_size;
    KERNEL_CHECK("paged_attention", needed_blocks <= p.block_tables.dim(1));
    for (std::int64_t j = 0; j < num_new; ++j) {
      const auto row = static_cast<std::size_t>(query_start[s] + j);
      row_seq[row] = s;
      row_keys[row] = context_lens[s] - num_new + j + 1;
    }
  }
  const std::int64_t num_tasks = num_tokens * num_heads;
  const std::int64_t work = num_tasks * std::int64_t{p.max_context_len} * g.head_dim;
#pragma omp parallel if (work >= min_parallel_flops)
  {
    std::vector<float> scores;
#pragma omp for schedule(dynamic, 4)
    for (std::int64_t task_index = 0; task_index < num_tasks; ++task_index) {
      const std::int64_t row = task_index / num_heads;
      const std::int64_t head = task_index % num_heads;
      head_task task;
      task.query = p.query.as<const float>() + task_index * g.head_dim;
      task.out = p.out.as<float>() + task_index * g.head_dim;
      task.block_table = p.block_tables.as<const std::int32_t>() +
                         row_seq[static_cast<std::size_t>(row)] * p.block_tables.dim(1);
      task.num_keys = row_keys[static_cast<std::size_t>(row)];
      task.kv_head = head / group;
      attend_one(task, p, g, scores);
    }
  }
}

}  // namespace pagedserve::kernels::cpu
