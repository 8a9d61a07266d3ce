#include "api/routing_options.h"

namespace pagedserve::routing {

std::optional<routing_policy> parse_routing_policy(std::string_view name) {
  if (name == "least_load") return routing_policy::least_load;
  if (name == "prefix_aware") return routing_policy::prefix_aware;
  return std::nullopt;
}

std::string_view to_string(routing_policy policy) {
  return policy == routing_policy::prefix_aware ? "prefix_aware" : "least_load";
}

}  // namespace pagedserve::routing
