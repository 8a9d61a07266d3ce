#pragma once
// The figures of several engines (a router's replicas) as one engine_stats: counts, tokens,
// times and histograms add up; kv_usage is recomputed over the blocks of all of them, so a
// replica with a larger pool weighs more, as it would in one pool of that size.

#include <span>

#include "runtime/engine/engine_config.h"

namespace pagedserve {

// Adds `part` to `total` (kv_usage is left for sum_engine_stats to recompute).
void add_engine_stats(engine_stats& total, const engine_stats& part);

[[nodiscard]] engine_stats sum_engine_stats(std::span<const engine_stats> parts);

}  // namespace pagedserve
