#pragma once
// engine_keys: the one table of the engine's configuration keys (model, KV cache,
// scheduler), named like vLLM's. `pagedserve serve` reads them from YAML and flags
// (net/config lifts them into its table); bench, simulate and generate make their flags
// from the same rows (cli/engine_flags.h). The order is config/default.yaml's.

#include <string_view>
#include <vector>

#include "api/engine_config.h"
#include "common/config_key.h"

namespace pagedserve {

using engine_key = config_key<engine_config>;

[[nodiscard]] const std::vector<engine_key>& engine_keys();
// The row of `key` (e.g. "max_num_seqs"), or null.
[[nodiscard]] const engine_key* find_engine_key(std::string_view key);

}  // namespace pagedserve
