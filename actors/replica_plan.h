#pragma once
// replica_plan: how many engines stand behind one `engine` facade and how requests are
// routed among them (data parallelism; actors/router_actor.h). No CAF here.

#include <string>
#include <vector>

#include "runtime/routing/replica_router.h"

namespace pagedserve {

struct replica_plan {
  // Each entry "local": one more engine in this process with the same engine_config (its
  // own KV pool and executor). Empty: one engine and no router.
  std::vector<std::string> replicas;
  routing::routing_options routing;
};

}  // namespace pagedserve
