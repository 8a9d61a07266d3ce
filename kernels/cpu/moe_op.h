#pragma once
// The CPU mixture-of-experts ops (kernels/moe_ops.h). fused_moe sorts the rows by expert
// (a counting sort), then per chosen expert gathers its rows and runs its three projections
// through `linear` (dense or quantized: the backend's own linear), so an expert's weights
// are read once per call; the weighted outputs are added into `out` in expert order.

#include <cstdint>
#include <functional>

#include "kernels/moe_ops.h"

namespace pagedserve::kernels::cpu {

void moe_route(const moe_route_params& p);
void fused_moe(const fused_moe_params& p, const std::function<void(const linear_params&)>& linear);
[[nodiscard]] std::int64_t fused_moe_scratch_bytes(const fused_moe_shape& shape);
void sigmoid_gated_add(const sigmoid_gated_add_params& p);

}  // namespace pagedserve::kernels::cpu
