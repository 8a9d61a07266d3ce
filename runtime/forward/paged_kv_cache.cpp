#include "runtime/forward/paged_kv_cache.h"

#include <cassert>

namespace pagedserve::forward {

kv_cache_layout kv_cache_layout::for_model(const model_config& config, std::int64_t num_blocks,
                                           std::int64_t block_size) {
  return {config.num_layers, num_blocks, block_size, config.num_kv_heads, config.head_dim};
}

std::int64_t kv_cache_layout::bytes_per_block(kernels::dtype type) const {
  return 2 * num_layers * block_size * num_kv_heads * head_dim *
         static_cast<std::int64_t>(kernels::dtype_size(type));
}

paged_kv_cache::paged_kv_cache(kernels::backend& backend, const kv_cache_layout& layout)
    : layout_(layout) {
  assert(layout.num_blocks > 0 && layout.block_size > 0);
  for (std::int64_t layer = 0; layer < layout.num_layers; ++layer) {
    for (auto* pools : {&keys_, &values_}) {
      pools->push_back(backend.allocate(
          backend.compute_type(),
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
