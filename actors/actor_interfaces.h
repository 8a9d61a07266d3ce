#pragma once
// The typed interfaces of the engine's internal actors (the public one is engine_actor).
// Typed throughout so that the front and the intake can delegate to them (CAF 0.17 lets a
// typed actor talk only to typed actors; sinks are untyped and get anon_send).
//
//   client -> front --submit--> intake --delegate--> scheduler <--step_result-- executor
//                   --cancel/stats/shutdown---------> scheduler ---executor_step-->

#include "actors/engine_actor.h"
#include "actors/messages.h"

namespace pagedserve::actors {

// Validates, tokenizes text prompts, then delegates to the scheduler (whose reply goes
// straight to the client). close: reject every later submit with shutting_down.
using intake_actor =
    caf::typed_actor<caf::replies_to<submit_atom, generation_request, caf::actor>::with<request_id>,
                     caf::reacts_to<close_atom>>;

// Owns engine_core: the engine's interface plus the executor's answers and the shutdown
// deadline it sends to itself.
using scheduler_actor =
    engine_actor::extend<caf::reacts_to<step_result>, caf::reacts_to<deadline_atom>>;

// Runs steps on its own thread, pipelined: a step is enqueued on the device when it arrives
// and its step_result goes to the sender once the device has run it (actors/executor_actor.h).
// collect: sent to itself, to finish a step in flight when no next step arrives.
using executor_actor =
    caf::typed_actor<caf::reacts_to<step_atom, executor_step>, caf::reacts_to<collect_atom>>;

}  // namespace pagedserve::actors
