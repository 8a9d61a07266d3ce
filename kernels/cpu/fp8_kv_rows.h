#pragma once
// fp8 (e4m3) rows of the paged KV cache on the CPU: kv_write encodes x / scale; attention
// decodes one task's keys and values into fp32 scratch laid out as a one-head cache whose
// block i is the sequence's i-th block, so the fp32 attention kernel runs on it unchanged.

#include <array>
#include <cstdint>
#include <vector>

#include "common/num_blocks.h"
#include "kernels/fp8_e4m3.h"

namespace pagedserve::kernels::cpu {

// Every code's value, built once: decoding is a table lookup (the scalar conversion calls
// ldexp, which made an fp8 cache's attention several times slower than an fp32 one's).
inline const std::array<float, 256>& e4m3_values() {
  static const std::array<float, 256> table = [] {
    std::array<float, 256> t{};
    for (int code = 0; code < 256; ++code)
      t[static_cast<std::size_t>(code)] = e4m3_to_f32(static_cast<std::uint8_t>(code));
    return t;
  }();
  return table;
}

inline void encode_e4m3_row(const float* x, std::int64_t n, float scale, std::uint8_t* out) {
  const float inverse = 1.0F / scale;
  for (std::int64_t i = 0; i < n; ++i) out[i] = f32_to_e4m3(x[i] * inverse);
}

// The decoded rows of one kv head for keys [0, num_keys) of one sequence.
struct decoded_kv {
  std::vector<float> keys;                   // [num_keys rounded up to whole blocks, head_dim]
  std::vector<float> values;                 // same
  std::vector<std::int32_t> identity_table;  // block i -> i

  // `cache` rows are [slots, num_kv_heads, head_dim] codes; `table` maps the sequence's
  // blocks to cache blocks.
  void decode(const std::uint8_t* key_cache, const std::uint8_t* value_cache,
              const std::int32_t* table, std::int64_t num_keys, std::int64_t block_size,
              std::int64_t num_kv_heads, std::int64_t kv_head, std::int64_t head_dim,
              float key_scale, float value_scale) {
    const std::int64_t num_blocks = num_blocks_for(num_keys, block_size);
    keys.resize(static_cast<std::size_t>(num_blocks * block_size * head_dim));
    values.resize(keys.size());
    identity_table.resize(static_cast<std::size_t>(num_blocks));
    for (std::int64_t b = 0; b < num_blocks; ++b) {
      identity_table[static_cast<std::size_t>(b)] = static_cast<std::int32_t>(b);
    }
    const std::array<float, 256>& value_of = e4m3_values();
    for (std::int64_t k = 0; k < num_keys; ++k) {
      const std::int64_t slot = std::int64_t{table[k / block_size]} * block_size + k % block_size;
      const std::int64_t from = (slot * num_kv_heads + kv_head) * head_dim;
      float* key_row = keys.data() + k * head_dim;
      float* value_row = values.data() + k * head_dim;
      for (std::int64_t d = 0; d < head_dim; ++d) {
        key_row[d] = value_of[key_cache[from + d]] * key_scale;
        value_row[d] = value_of[value_cache[from + d]] * value_scale;
      }
    }
  }
};

}  // namespace pagedserve::kernels::cpu
