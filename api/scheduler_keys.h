#pragma once
// scheduler_keys: the configuration keys of scheduler_config, one row each with its own rule
// (common/config_key.h). sched::validate() applies these rules to a config built in code, and
// the engine's table (engine_keys.h) lifts the rows, so each scheduler key is checked in one
// place whether it came from YAML, a flag or an embedder's struct.

#include <string_view>
#include <vector>

#include "api/scheduler_config.h"
#include "common/config_key.h"

namespace pagedserve::sched {

using scheduler_key = config_key<scheduler_config>;

[[nodiscard]] const std::vector<scheduler_key>& scheduler_keys();
// The row of `key` (e.g. "max_num_seqs"); every name the engine table lifts must exist.
[[nodiscard]] const scheduler_key& find_scheduler_key(std::string_view key);

}  // namespace pagedserve::sched
