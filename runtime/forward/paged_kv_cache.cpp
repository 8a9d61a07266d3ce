#include "runtime/forward/paged_kv_cache.h"

#include <cassert>

namespace pagedserve::forward {

std::optional<kv_cache_dtype> parse_kv_cache_dtype(std::string_view name) {
  if (name == "auto") return kv_cache_dtype::auto_;
  if (name == "fp8_e4m3" || name == "fp8") return kv_cache_dtype::fp8_e4m3;
  return std::nullopt;
}

std::string_view to_string(kv_cache_dtype type) {
  return type == kv_cache_dtype::fp8_e4m3 ? "fp8_e4m3" : "auto";
}

kv_cache_layout kv_cache_layout::for_model(const model_config& config, std::int64_t num_blocks,
                                           std::int64_t block_size, kv_cache_dtype cache_dtype) {
  return {config.num_layers,   num_blocks,      block_size,
          config.num_kv_heads, config.head_dim, cache_dtype};
}

std::int64_t kv_cache_layout::bytes_per_block(kernels::dtype compute_type) const {
  return 2 * num_layers * block_size * num_kv_heads * head_dim *
         static_cast<std::int64_t>(kernels::dtype_size(element_type(compute_type)));
}

paged_kv_cache::paged_kv_cache(kernels::backend& backend, const kv_cache_layout& layout)
    : layout_(layout) {
  assert(layout.num_blocks > 0 && layout.block_size > 0);
  for (std::int64_t layer = 0; layer < layout.num_layers; ++layer) {
    for (auto* pools : {&keys_, &values_}) {
      pools->push_back(backend.allocate(
          layout.element_type(backend.compute_type()),
          {layout.num_blocks + 1, layout.block_size, layout.num_kv_heads, layout.head_dim}));
      backend.fill_zero(pools->back().view());
    }
  }
}

const kernels::tensor& paged_kv_cache::keys(std::int64_t layer) const {
  return keys_.at(static_cast<std::size_t>(layer)).view();
}

const kernels::tensor& paged_kv_cache::values(std::int64_t layer) const {
  return values_.at(static_cast<std::size_t>(layer)).view();
}

}  // namespace pagedserve::forward
