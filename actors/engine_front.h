#pragma once
// engine front: the typed engine_actor the world talks to. It owns no state; it forwards
// submit to the intake and cancel, stats and shutdown to the scheduler (delegating, so the
// replies go straight to the client), and links itself to the three engine actors so that
// they live and die together: when the scheduler quits after shutdown, or any of them
// crashes, or someone kills the front, every engine actor exits.

#include "actors/actor_interfaces.h"

namespace pagedserve::actors {

[[nodiscard]] engine_actor spawn_engine_front(caf::actor_system& system, intake_actor intake,
                                              scheduler_actor scheduler, executor_actor executor);

}  // namespace pagedserve::actors
