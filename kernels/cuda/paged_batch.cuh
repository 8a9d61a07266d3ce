#pragma once
// paged_batch: what both attention kernels read of a paged_attention_params (kernels/ops.h),
// as device pointers and sizes: the flattened rows' queries and outputs, the paged caches,
// and per sequence its rows, context length and block table. Kernel argument structs derive
// from it.

#include <cstdint>

#include "kernels/cuda/device_check.cuh"
#include "kernels/ops.h"

namespace pagedserve::kernels::cuda {

template <class T>
struct paged_batch {
  T* out;
  const T* query;
  const T* key_cache;
  const T* value_cache;
  const std::int32_t* query_start;
  const std::int32_t* context_lens;
  const std::int32_t* block_tables;
  int num_seqs;
  int num_heads;
  int num_kv_heads;
  int block_size;
  int max_blocks_per_seq;
  int num_blocks;

  [[nodiscard]] static paged_batch from(const paged_attention_params& p) {
    paged_batch b{};
    b.out = p.out.as<T>();
    b.query = p.query.as<const T>();
    b.key_cache = p.key_cache.as<const T>();
    b.value_cache = p.value_cache.as<const T>();
    b.query_start = p.query_start.as<const std::int32_t>();
    b.context_lens = p.context_lens.as<const std::int32_t>();
    b.block_tables = p.block_tables.as<const std::int32_t>();
    b.num_seqs = static_cast<int>(p.context_lens.numel());
    b.num_heads = static_cast<int>(p.query.dim(1));
    b.num_kv_heads = static_cast<int>(p.key_cache.dim(2));
    b.block_size = static_cast<int>(p.key_cache.dim(1));
    b.max_blocks_per_seq = static_cast<int>(p.block_tables.dim(1));
    b.num_blocks = static_cast<int>(p.key_cache.dim(0));
    return b;
  }

  [[nodiscard]] __device__ const std::int32_t* table(int seq) const {
    return block_tables + static_cast<std::int64_t>(seq) * max_blocks_per_seq;
  }

  // Element offset of (position, kv_head) in either cache through a sequence's block table.
  [[nodiscard]] __device__ std::int64_t cache_offset(const std::int32_t* seq_table, int position,
                                                     int kv_head, int head_dim) const {
    const std::int32_t block = seq_table[position / block_size];
    DEVICE_CHECK("paged attention", block >= 0 && block < num_blocks);
    const std::int64_t slot = static_cast<std::int64_t>(block) * block_size + position % block_size;
    return (slot * num_kv_heads + kv_head) * head_dim;
  }
};

}  // namespace pagedserve::kernels::cuda
