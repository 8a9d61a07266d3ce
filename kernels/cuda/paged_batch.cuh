#pragma once
// paged_batch: what both attention kernels read of a paged_attention_params (kernels/ops.h),
// as device pointers and sizes: the flattened rows' queries and outputs (T), the paged caches
// (C: T, or fp8 e4m3 codes as std::uint8_t with a scale for K and for V), and per sequence
// its rows, context length and block table. Kernel argument structs derive from it.

#include <cstdint>

#include "kernels/cuda/device_check.cuh"
#include "kernels/ops.h"

namespace pagedserve::kernels::cuda {

template <class T, class C = T>
struct paged_batch {
  T* out;
  const T* query;
  const C* key_cache;
  const C* value_cache;
  float key_scale;  // a cached key is code x key_scale (1 when C is T)
  float value_scale;
  const std::int32_t* query_start;
  const std::int32_t* context_lens;
  const std::int32_t* block_tables;
  int num_seqs;
  int num_heads;
  int num_kv_heads;
  int block_size;
  int block_shift;  // log2(block_size) when it is a power of two (16, 32, ...), else -1
  int max_blocks_per_seq;
  int num_blocks;

  [[nodiscard]] static paged_batch from(const paged_attention_params& p) {
    paged_batch b{};
    b.out = p.out.as<T>();
    b.query = p.query.as<const T>();
    b.key_cache = p.key_cache.as<const C>();
    b.value_cache = p.value_cache.as<const C>();
    const bool codes = p.key_cache.type == dtype::u8;
    b.key_scale = codes ? p.key_scale : 1.0F;
    b.value_scale = codes ? p.value_scale : 1.0F;
    b.query_start = p.query_start.as<const std::int32_t>();
    b.context_lens = p.context_lens.as<const std::int32_t>();
    b.block_tables = p.block_tables.as<const std::int32_t>();
    b.num_seqs = static_cast<int>(p.context_lens.numel());
    b.num_heads = static_cast<int>(p.query.dim(1));
    b.num_kv_heads = static_cast<int>(p.key_cache.dim(2));
    b.block_size = static_cast<int>(p.key_cache.dim(1));
    b.block_shift = -1;
    for (int shift = 0; shift < 31; ++shift) {
      if ((1 << shift) == b.block_size) b.block_shift = shift;
    }
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
    // A shift and a mask where they do: an integer division costs a few dozen instructions,
    // once per key row and lane.
    const int index = block_shift >= 0 ? position >> block_shift : position / block_size;
    const int offset = block_shift >= 0 ? position & (block_size - 1) : position % block_size;
    const std::int32_t block = seq_table[index];
    DEVICE_CHECK("paged attention", block >= 0 && block < num_blocks);
    const std::int64_t slot = static_cast<std::int64_t>(block) * block_size + offset;
    return (slot * num_kv_heads + kv_head) * head_dim;
  }
};

}  // namespace pagedserve::kernels::cuda
