#include "runtime/routing/replica_router.h"

#include <algorithm>
#include <utility>

namespace pagedserve::routing {

replica_router::replica_router(std::size_t num_replicas, routing_options options)
    : options_(options) {
  replicas_.reserve(num_replicas);
  for (std::size_t i = 0; i < num_replicas; ++i)
    replicas_.push_back(replica_state{.up = true,
                                      .outstanding_tokens = 0,
                                      .load = {},
                                      .tree = prefix_tree(options_.prefix_tree_max_tokens)});
}

std::size_t replica_router::num_up() const {
  std::size_t n = 0;
  for (const replica_state& r : replicas_) n += r.up ? 1 : 0;
  return n;
}

bool replica_router::less_loaded(std::size_t a, std::size_t b) const {
  const replica_state& x = replicas_[a];
  const replica_state& y = replicas_[b];
  if (x.outstanding_tokens != y.outstanding_tokens)
    return x.outstanding_tokens < y.outstanding_tokens;
  if (x.load.kv_usage != y.load.kv_usage) return x.load.kv_usage < y.load.kv_usage;
  return x.load.num_waiting < y.load.num_waiting;  // then the lower index (callers scan up)
}

std::optional<std::size_t> replica_router::least_loaded() const {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < replicas_.size(); ++i) {
    if (replicas_[i].up && (!best || less_loaded(i, *best))) best = i;
  }
  return best;
}

bool replica_router::overloaded(std::size_t best, std::size_t least) const {
  const auto busy = static_cast<double>(replicas_[best].outstanding_tokens);
  const auto idle = static_cast<double>(replicas_[least].outstanding_tokens);
  return busy - idle > static_cast<double>(options_.balance_abs_tokens) &&
         busy > options_.balance_rel * idle;
}

route_decision replica_router::choose(std::span<const token_id> prompt, std::size_t least) const {
  if (options_.policy == routing_policy::least_load) return {.replica = least};
  std::size_t best = least;
  std::size_t best_match = replicas_[least].tree.match(prompt);
  for (std::size_t i = 0; i < replicas_.size(); ++i) {
    if (!replicas_[i].up || i == least) continue;
    const std::size_t m = replicas_[i].tree.match(prompt);
    if (m > best_match || (m == best_match && less_loaded(i, best))) {
      best = i;
      best_match = m;
    }
  }
  if (best_match < options_.min_match_tokens || overloaded(best, least)) {
    return {.replica = least,
            .matched_tokens = replicas_[least].tree.match(prompt),
            .load_fallback = true};
  }
  return {.replica = best, .matched_tokens = best_match};
}

std::optional<route_decision> replica_router::route(std::span<const token_id> prompt,
                                                    std::uint64_t cost_tokens) {
  const std::optional<std::size_t> least = least_loaded();
  if (!least) return std::nullopt;
  const route_decision decision = choose(prompt, *least);
  replica_state& chosen = replicas_[decision.replica];
  chosen.outstanding_tokens += cost_tokens;
  if (options_.policy == routing_policy::prefix_aware) chosen.tree.insert(prompt, ++tick_);
  return decision;
}

void replica_router::finished(std::size_t replica, std::uint64_t cost_tokens) {
  std::uint64_t& outstanding = replicas_[replica].outstanding_tokens;
  outstanding -= std::min(outstanding, cost_tokens);
}

void replica_router::set_up(std::size_t replica, bool up) {
  replica_state& r = replicas_[replica];
  if (r.up == up) return;
  r.up = up;
  if (!up) {  // its cache and its requests are gone with it
    r.outstanding_tokens = 0;
    r.load = {};
    r.tree.clear();
  }
}

void replica_router::report(std::size_t replica, const replica_report& load) {
  replicas_[replica].load = load;
}

}  // namespace pagedserve::routing
