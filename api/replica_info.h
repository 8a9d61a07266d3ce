#pragma once
// replica_info: one engine replica behind a router (actors/router_actor.h), as the router
// last saw it. A plain value for /metrics and /health (net/), like engine_stats.

#include <cstdint>
#include <string>

#include "api/engine_stats.h"

namespace pagedserve {

struct replica_info {
  std::string name;  // "local-0", "10.0.0.5:7001"
  bool up = false;
  engine_stats stats;            // last polled (gauges zeroed while down)
  std::uint64_t num_routed = 0;  // requests the router sent there and it accepted
};

}  // namespace pagedserve
