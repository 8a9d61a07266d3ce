#pragma once
// static_kv_policy: the pre-paging baseline behind the scheduler's kv_policy seam. One
// region of config.max_model_len slots per sequence, reserved at admission (first fit), in
// an arena of config.num_blocks * config.block_size slots (the same memory as the paged
// pool); nothing is shared and nothing is ever preempted.

#include <memory>

#include "runtime/sched/kv_policy.h"
#include "runtime/sched/scheduler_config.h"

namespace pagedserve::sim {

[[nodiscard]] std::unique_ptr<sched::kv_policy> make_static_kv_policy(
    const sched::scheduler_config& config);

}  // namespace pagedserve::sim
