#pragma once
// replica_connector: keeps one published engine (`pagedserve engine --publish`) joined to a
// router. It connects with CAF's middleman, checks the shared secret through the engine's
// gate, sends the router `replica_up_atom` with the engine's handle, and when the router
// reports the replica lost (`replica_lost_atom`) connects again, with backoff (250 ms
// doubling to 5 s) while the engine is unreachable. Every step has a deadline (connect 10 s,
// join 10 s), so the connector never blocks a thread and ends with its router.

#include <cstdint>
#include <string>

#include "actors/router_actor.h"

namespace pagedserve::actors {

using reconnect_atom = caf::atom_constant<caf::atom("reconnect")>;

struct replica_endpoint {
  std::string host;
  std::uint16_t port = 0;
  std::string secret;          // empty: the engine has none
  std::string expected_model;  // the model name the router serves: another one is refused
};

// Spawns the connector for replica `index` of `router`; it starts connecting at once.
[[nodiscard]] caf::actor spawn_replica_connector(caf::actor_system& system, router_actor router,
                                                 std::uint32_t index, replica_endpoint endpoint);

}  // namespace pagedserve::actors
