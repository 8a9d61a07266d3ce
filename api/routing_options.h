#pragma once
// routing_options: how a router spreads requests over engine replicas (keys `routing`,
// `prefix_tree_max_tokens`, ...; runtime/routing/replica_router.h says what each policy does).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace pagedserve::routing {

enum class routing_policy { least_load, prefix_aware };

[[nodiscard]] std::optional<routing_policy> parse_routing_policy(std::string_view name);
[[nodiscard]] std::string_view to_string(routing_policy policy);

struct routing_options {
  routing_policy policy = routing_policy::least_load;
  std::size_t prefix_tree_max_tokens = std::size_t{1} << 20;  // per replica
  std::size_t min_match_tokens = 16;                          // one KV block
  std::uint64_t balance_abs_tokens = 16384;
  double balance_rel = 1.5;
};

}  // namespace pagedserve::routing
