#pragma once
// replica_plan: how many engines stand behind one `engine` facade and how requests are
// routed among them (data parallelism; actors/router_actor.h). No CAF here.

#include <string>
#include <vector>

#include "api/routing_options.h"

namespace pagedserve {

struct replica_plan {
  // Each entry "local" (one more engine in this process with the same engine_config: its own
  // KV pool and executor) or HOST:PORT (an engine published by `pagedserve engine`, which
  // must serve the same model). Empty: one engine and no router.
  std::vector<std::string> replicas;
  routing::routing_options routing;
  std::string secret;  // offered to published engines (their engine_secret)
  // With published engines only: how long start-up waits for the first one to answer (the
  // model's limits come from it).
  double first_replica_timeout_s = 60.0;
};

}  // namespace pagedserve
