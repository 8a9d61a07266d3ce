#pragma once
// replica_router: which engine replica gets a request (the router actor's decision, with no
// CAF in it). Two policies (key `routing`):
//   least_load    the replica with the fewest outstanding tokens (prompt + max_tokens x n of
//                 the requests routed to it and not finished), then the lowest KV usage it
//                 last reported, then the fewest waiting requests.
//   prefix_aware  the replica whose prefix tree (prefix_tree.h) holds the longest prefix of
//                 the prompt, as SGLang's cache-aware router does; least_load when no
//                 replica matches at least min_match_tokens, or when the best one is
//                 overloaded: its outstanding tokens exceed the least loaded replica's by
//                 more than balance_abs_tokens and by a factor over balance_rel.
// Down replicas are never chosen; a replica that goes down forgets its tree and its load.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "api/routing_options.h"
#include "common/types.h"
#include "runtime/routing/prefix_tree.h"

namespace pagedserve::routing {

// What a replica last said about itself (its engine_stats).
struct replica_report {
  std::uint32_t num_running = 0;
  std::uint32_t num_waiting = 0;
  double kv_usage = 0.0;
};

struct route_decision {
  std::size_t replica = 0;
  std::size_t matched_tokens = 0;  // prefix_aware: the chosen replica's tree match
  bool load_fallback = false;      // prefix_aware chose by load
};

class replica_router {
 public:
  replica_router(std::size_t num_replicas, routing_options options);

  // Chooses a replica for `prompt` and records the routing: `cost_tokens` become
  // outstanding there and the prompt enters its tree. nullopt when no replica is up.
  [[nodiscard]] std::optional<route_decision> route(std::span<const token_id> prompt,
                                                    std::uint64_t cost_tokens);
  // A request routed with `cost_tokens` ended on `replica`.
  void finished(std::size_t replica, std::uint64_t cost_tokens);

  void set_up(std::size_t replica, bool up);
  void report(std::size_t replica, const replica_report& load);

  [[nodiscard]] bool is_up(std::size_t replica) const { return replicas_[replica].up; }
  [[nodiscard]] std::size_t num_up() const;
  [[nodiscard]] std::size_t num_replicas() const { return replicas_.size(); }
  [[nodiscard]] std::uint64_t outstanding_tokens(std::size_t replica) const {
    return replicas_[replica].outstanding_tokens;
  }
  [[nodiscard]] const routing_options& options() const { return options_; }

 private:
  struct replica_state {
    bool up = true;
    std::uint64_t outstanding_tokens = 0;
    replica_report load;
    prefix_tree tree;
  };

  [[nodiscard]] std::optional<std::size_t> least_loaded() const;
  [[nodiscard]] bool less_loaded(std::size_t a, std::size_t b) const;
  [[nodiscard]] bool overloaded(std::size_t best, std::size_t least) const;
  route_decision choose(std::span<const token_id> prompt, std::size_t least) const;

  routing_options options_;
  std::vector<replica_state> replicas_;
  std::uint64_t tick_ = 0;
};

}  // namespace pagedserve::routing
