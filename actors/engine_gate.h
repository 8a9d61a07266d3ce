#pragma once
// engine_gate: what `pagedserve engine --publish` publishes instead of the engine itself.
// A node that connects gets the gate; it hands out the engine's handle only for the right
// shared secret (an empty secret opens it to anyone who reaches the port). CAF 0.17's
// middleman has no authentication or encryption of its own: the secret keeps strangers and
// misconfigured routers from submitting through the handle-exchange, but a peer that saw
// the engine's handle once, or reads the traffic, is not stopped. Keep the port on a
// private network, or behind a TLS tunnel (docs/scaling.md).

#include <string>

#include "actors/engine_actor.h"

namespace pagedserve::actors {

using join_atom = caf::atom_constant<caf::atom("join")>;

// Replies with the engine, or engine_errc::invalid_request ("wrong secret").
using engine_gate_actor =
    caf::typed_actor<caf::replies_to<join_atom, std::string>::with<engine_actor>>;

[[nodiscard]] engine_gate_actor spawn_engine_gate(caf::actor_system& system, engine_actor engine,
                                                  std::string secret);

}  // namespace pagedserve::actors
