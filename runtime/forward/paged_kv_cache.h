#pragma once
// paged_kv_cache: the KV memory of PagedAttention on a backend. Per layer one K pool and
// one V pool, each [num_blocks][block_size][num_kv_heads][head_dim] in the backend's
// compute type, or in fp8 e4m3 codes (u8) with kv_cache_dtype fp8_e4m3 (half the bytes of
// bf16, a quarter of fp32; the scales are the model's, model_weights::k_scales/v_scales). Token t
// of a sequence lives in slot
//   block_table[t / block_size] * block_size + t % block_size
// of every layer's pools. Which blocks a sequence owns is decided elsewhere (the block
// manager); this class only holds the memory. One block beyond layout.num_blocks is the
// padding block: padded rows of a captured decode graph write there, and no sequence owns it.

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "kernels/backend.h"
#include "runtime/model/model_config.h"

namespace pagedserve::forward {

// vLLM's kv_cache_dtype: auto (the compute type) or fp8_e4m3.
enum class kv_cache_dtype { auto_, fp8_e4m3 };

// "auto" / "fp8_e4m3" (and vLLM's alias "fp8"); nullopt for anything else.
[[nodiscard]] std::optional<kv_cache_dtype> parse_kv_cache_dtype(std::string_view name);
[[nodiscard]] std::string_view to_string(kv_cache_dtype type);

struct kv_cache_layout {
  std::int64_t num_layers = 0;
  std::int64_t num_blocks = 0;
  std::int64_t block_size = 16;
  std::int64_t num_kv_heads = 0;
  std::int64_t head_dim = 0;
  kv_cache_dtype cache_dtype = kv_cache_dtype::auto_;

  [[nodiscard]] static kv_cache_layout for_model(
      const model_config& config, std::int64_t num_blocks, std::int64_t block_size,
      kv_cache_dtype cache_dtype = kv_cache_dtype::auto_);
  // What the pools hold on a backend computing in `compute_type`.
  [[nodiscard]] kernels::dtype element_type(kernels::dtype compute_type) const {
    return cache_dtype == kv_cache_dtype::fp8_e4m3 ? kernels::dtype::u8 : compute_type;
  }
  // K and V of all layers for one block.
  [[nodiscard]] std::int64_t bytes_per_block(kernels::dtype compute_type) const;
  // Backend memory of the cache: num_blocks blocks plus the padding block.
  [[nodiscard]] std::int64_t bytes(kernels::dtype compute_type) const {
    return (num_blocks + 1) * bytes_per_block(compute_type);
  }
};

class paged_kv_cache {
 public:
  // Allocates (and zeroes) every layer's pools on `backend`.
  paged_kv_cache(kernels::backend& backend, const kv_cache_layout& layout);

  [[nodiscard]] const kv_cache_layout& layout() const { return layout_; }
  [[nodiscard]] std::int64_t padding_block() const { return layout_.num_blocks; }
  [[nodiscard]] const kernels::tensor& keys(std::int64_t layer) const;
  [[nodiscard]] const kernels::tensor& values(std::int64_t layer) const;

 private:
  kv_cache_layout layout_;
  std::vector<kernels::buffer> keys_;
  std::vector<kernels::buffer> values_;
};

}  // namespace pagedserve::forward
