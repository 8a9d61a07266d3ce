#pragma once
// moe_metrics: the expert load of a MoE model on /metrics (engine_stats::moe_expert_tokens),
// so a user sees routing imbalance:
//   pagedserve:moe_expert_tokens_total{layer,expert}  tokens each expert ran (sparse layers)
//   pagedserve:moe_expert_load_ratio                  histogram over every (layer, expert) of
//       its tokens / its layer's mean: 1 is a fair share, 0 an idle expert, 4 a hot one
// Nothing is rendered for a dense model.

#include "api/engine_stats.h"
#include "net/config/metrics_exposition.h"

namespace pagedserve::net {

void render_expert_load(exposition& out, const engine_stats& stats);

}  // namespace pagedserve::net
