#include "runtime/model/moe_config.h"

#include <algorithm>

namespace pagedserve {

bool moe_config::is_sparse_layer(std::int64_t layer) const {
  if (!enabled()) return false;
  if (std::find(mlp_only_layers.begin(), mlp_only_layers.end(), layer) != mlp_only_layers.end()) {
    return false;
  }
  return (layer + 1) % decoder_sparse_step == 0;
}

}  // namespace pagedserve
