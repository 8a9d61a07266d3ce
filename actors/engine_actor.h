#pragma once
// engine_actor: the engine as one typed CAF actor, for CAF applications that embed it (and,
// published with the middleman, for other processes). Include only where CAF is wanted.
//
// A sink is any actor that handles `token_chunk` and `request_final` (runtime/engine/
// generation_request.h): it receives a request's chunks in order, then exactly one final.
// A request with report_lifecycle sends `request_lifecycle` events to its sink too, in
// order with the chunks (api/request_lifecycle.h): only such sinks handle them.
// The engine monitors every sink: a sink that terminates cancels its requests.

#include <cstdint>

#include "actors/engine_messages.h"

namespace pagedserve::actors {

using engine_actor = caf::typed_actor<
    // Submit a request whose events go to the sink; replies with its id, or an error
    // (engine_errc) when it is invalid, can never fit, or the queue is full.
    caf::replies_to<submit_atom, generation_request, caf::actor>::with<request_id>,
    // Cancel by id: the final (cancelled) goes to the sink; unknown ids are ignored.
    caf::reacts_to<cancel_atom, request_id>,
    // Current figures.
    caf::replies_to<stats_atom>::with<engine_stats>,
    // Stop accepting, let running requests finish for up to timeout_ms, then cancel the
    // rest; replies when every block is back (the engine's actors then exit).
    caf::replies_to<shutdown_atom, std::uint64_t>::with<shutdown_report>>;

}  // namespace pagedserve::actors
