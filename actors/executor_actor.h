#pragma once
// executor actor: runs step plans on the step_executor, one at a time, on its own thread
// (spawned detached: a step blocks for as long as the forward pass takes). Each step is
// answered with a step_result sent to the step's sender, carrying the sampled tokens or the
// error, and the time the executor spent in the step and waiting before it.

#include <memory>

#include "actors/actor_interfaces.h"
#include "runtime/engine/step_executor.h"

namespace pagedserve::actors {

// Takes ownership of `executor` (created on the caller's thread so model errors are values).
[[nodiscard]] executor_actor spawn_executor(caf::actor_system& system,
                                            std::unique_ptr<step_executor> executor);

}  // namespace pagedserve::actors
