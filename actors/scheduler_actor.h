#pragma once
// scheduler actor: a thin event-based shell around engine_core<caf::actor>. It admits
// submits, keeps up to two steps in flight to the executor (it plans step N+1 while step N
// runs), applies each step's result in step order and sends every resulting chunk and final
// to its sink. It never blocks: with no work nothing happens until the next submit.
//
// Sinks are monitored: a sink that terminates cancels its requests. shutdown(timeout_ms)
// rejects new submits, lets running requests drain, cancels what is left when the deadline
// message arrives, and replies with the shutdown_report once no step is in flight and no
// request is left; the scheduler then quits with user_shutdown, which the links of the
// engine's front carry to every other engine actor.

#include "actors/actor_interfaces.h"

namespace pagedserve::actors {

// `setup.plan`: the engine's start-up plan (its pool is the scheduler's).
[[nodiscard]] scheduler_actor spawn_scheduler(caf::actor_system& system, executor_actor executor,
                                              engine_core_setup setup);

}  // namespace pagedserve::actors
