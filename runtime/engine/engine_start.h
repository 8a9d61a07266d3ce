#pragma once
// engine_start: everything the engine needs before any request, in order and in one
// place: check the config, load the model, pick the backend for the planned compute type,
// put the weights on it, make the engine_plan (sizing the KV pool, profiling on a device),
// and create the step executor over that plan. What is left for the caller (the actors'
// spawn_engine) is to spawn. Tests and tools that drive an executor directly use
// start_executor with a model already in memory.

#include <memory>

#include "api/engine_config.h"
#include "common/result.h"
#include "kernels/backend.h"
#include "runtime/engine/model_loading.h"
#include "runtime/plan/engine_plan.h"
#include "runtime/worker/step_executor.h"

namespace pagedserve {

struct started_executor {
  std::shared_ptr<const engine_plan> plan;
  std::unique_ptr<step_executor> executor;
};

// The executor for `model` with `weights` under `config`. `backend` null: made from
// config.backend for plan_compute_type(). Errors: weights that do not match the model, no
// such backend here, a pool that cannot hold one sequence of max_model_len.
[[nodiscard]] result<started_executor> start_executor(
    const engine_config& config, const model_config& model, const checkpoint& weights,
    std::unique_ptr<kernels::backend> backend = nullptr);

struct started_engine {
  loaded_model model;
  std::shared_ptr<const engine_plan> plan;
  std::unique_ptr<step_executor> executor;
};

// validate(config), the model from disk (or the demo model), check_fits_model, then
// start_executor.
[[nodiscard]] result<started_engine> start_engine(const engine_config& config);

}  // namespace pagedserve
