#pragma once
// executor actor: drives the step_executor on its own thread (spawned detached: collecting
// a step blocks until the device has run it). Steps are pipelined: a step is submitted
// (enqueued on the device) as soon as it arrives; once two are in flight the older one is
// collected and answered, so the device already has the next step queued while the host
// reads the previous step's tokens and the scheduler plans the one after. With one step in
// flight and no next plan in the mailbox the actor polls (collect_atom to itself) until the
// step is done or a plan arrives. Each step is answered with a step_result to the scheduler:
// the sampled tokens or the error, and what the step cost (executor_step_figures).

#include <memory>

#include "actors/actor_interfaces.h"
#include "runtime/worker/step_executor.h"

namespace pagedserve::actors {

// Takes ownership of `executor` (created on the caller's thread so model errors are values).
[[nodiscard]] executor_actor spawn_executor(caf::actor_system& system,
                                            std::unique_ptr<step_executor> executor);

}  // namespace pagedserve::actors
