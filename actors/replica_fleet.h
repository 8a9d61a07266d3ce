#pragma once
// replica_fleet: the engines of a replica_plan and the router in front of them, in one
// actor system (which must have CAF's middleman loaded when the plan names published
// engines). Local replicas load the model here; published ones are joined by a
// replica_connector each. The model's description comes from the first local replica, or,
// with published ones only, from the model folder (tokenizer, generation config) plus the
// first published engine that answers (its limits), within plan.first_replica_timeout_s.

#include "actors/router_actor.h"
#include "actors/spawn_engine.h"
#include "api/replica_plan.h"

namespace pagedserve::actors {

[[nodiscard]] bool plan_needs_network(const replica_plan& plan);

struct spawned_fleet {
  router_actor router;
  engine_model_info model;
};

[[nodiscard]] result<spawned_fleet> spawn_replica_fleet(caf::actor_system& system,
                                                        const engine_config& config,
                                                        const replica_plan& plan);

}  // namespace pagedserve::actors
