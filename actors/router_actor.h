#pragma once
// router_actor: several engine replicas behind one engine_actor (the engine API), so that a
// server (net/) or a CAF application cannot tell one engine from several. runtime/routing's
// replica_router picks the replica (least_load or prefix_aware); the router forwards the
// submit there with the caller's sink, so tokens go from the replica straight to the sink:
// no per-token hop through the router. The id it replies with is its own (replica ids
// collide across replicas); events keep the replica's id in their `request` field, except
// the error finals the router sends itself at a failover, which carry the router's.
//
// Failover: the router monitors every replica. One that goes down (killed, or its
// connection lost): each of its in-flight requests gets an error final per completion at
// once (a sink that had already received a completion's final sees a second one for it:
// the facade's sinks ignore it), pending submits fail with shutting_down (503), new
// requests go to the others, and the replica's watcher (if any) hears `replica_lost_atom` so it can
// reconnect and send `replica_up_atom` with the new handle. No replica up: submits fail
// with shutting_down.
//
// The router learns that a request ended when its sink terminates (it monitors sinks):
// sinks that live on after their finals keep their requests counted as outstanding.

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "actors/engine_actor.h"
#include "actors/internal_atoms.h"
#include "api/engine_client.h"
#include "runtime/routing/replica_router.h"

namespace pagedserve::actors {

using replica_up_atom = caf::atom_constant<caf::atom("replica_up")>;
using replica_lost_atom = caf::atom_constant<caf::atom("rep_lost")>;
using replicas_atom = caf::atom_constant<caf::atom("replicas")>;
using poll_atom = caf::atom_constant<caf::atom("poll")>;

using replica_status = replica_info;  // api/engine_client.h

using router_actor = engine_actor::extend<
    // Replica `index` is (back) up as this actor. The sender (a replica_connector) becomes
    // the replica's watcher: it hears (replica_lost_atom, index) when the replica goes down.
    caf::reacts_to<replica_up_atom, std::uint32_t, engine_actor>,
    // Every replica's status, in configuration order.
    caf::replies_to<replicas_atom>::with<std::vector<replica_status>>,
    // To itself: poll the replicas' stats (their load) every poll interval; the shutdown
    // timeout passed.
    caf::reacts_to<poll_atom>, caf::reacts_to<deadline_atom>>;

struct router_replica {
  std::string name;    // "local-0", "10.0.0.5:7001"
  engine_actor actor;  // invalid: not up yet (a watcher brings it)
  // Owned replicas (local ones) are shut down with the router; others (published engines
  // in other processes) only see their requests drain, then cancelled at the deadline.
  bool owned = false;
};

struct router_options {
  routing::routing_options routing;
  std::chrono::milliseconds poll_interval{200};
};

[[nodiscard]] router_actor spawn_router(caf::actor_system& system,
                                        std::vector<router_replica> replicas,
                                        router_options options);

}  // namespace pagedserve::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(pagedserve::replica_info)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::vector<pagedserve::replica_info>)
