#pragma once
// router_state: the router actor's bookkeeping (actors/router_actor.h): which replica holds
// which request, failover, stats and the shutdown drain. Sends only with anon_send, so the
// actor's handlers stay a few lines each.

#include <cstdint>
#include <functional>
#include <optional>
#include <unordered_map>
#include <vector>

#include "actors/router_actor.h"

namespace pagedserve::actors {

// What routing a request costs a replica until it ends: prompt + max_tokens per completion.
[[nodiscard]] std::uint64_t request_cost(const generation_request& request);

struct replica_slot {
  engine_actor actor;  // invalid while down
  bool owned = false;
  caf::actor watcher;
  replica_status status;
  // The counters of the replica's earlier lives (a published engine restarted counts from
  // zero again): kept in the sums so that their counters never go backwards.
  engine_stats retired;
};

// Accepted by its replica; ends when its sink terminates.
struct routed_request {
  std::size_t replica = 0;
  request_id replica_id;
  caf::actor sink;
  std::uint32_t n = 1;
  std::uint64_t cost = 0;
  bool cancelled_at_deadline = false;  // counted in the shutdown report already
};

// Sent to its replica, no answer yet.
struct pending_submit {
  std::size_t replica = 0;
  std::uint64_t cost = 0;
  caf::typed_response_promise<request_id> promise;
};

struct router_state {
  router_state() = default;  // not an aggregate (see scheduler_actor.cpp)

  void init(const std::vector<router_replica>& replicas, router_options opts);
  [[nodiscard]] std::optional<std::size_t> replica_of(const caf::actor_addr& source) const;
  void mark_up(std::size_t index, engine_actor actor);
  // Ends the replica's requests with error finals and fails its pending submits.
  void mark_down(std::size_t index);
  void accept(std::uint64_t id, routed_request request);
  void sink_ended(const caf::actor_addr& sink);
  void cancel(request_id id);
  void record_stats(std::size_t index, engine_stats stats);
  [[nodiscard]] engine_stats summed_stats() const;
  [[nodiscard]] std::vector<replica_status> statuses() const;

  void begin_shutdown();
  void owned_report(const shutdown_report* report);  // nullptr: that replica failed to answer
  void deadline_passed();
  // Replies to every shutdown and calls on_done once nothing is left to wait for.
  void check_shutdown_done();

  router_options options;
  caf::actor_addr self_addr;  // the router: the sender of its cancels (gates check senders)
  routing::replica_router routing{0, {}};
  std::vector<replica_slot> slots;
  std::unordered_map<std::uint64_t, routed_request> routed;  // by the router's id
  std::unordered_map<std::uint64_t, pending_submit> pending;
  std::unordered_map<caf::actor_addr, std::vector<std::uint64_t>> by_sink;
  std::uint64_t next_id = 1;

  bool shutting_down = false;
  bool deadline = false;
  bool done = false;
  std::size_t owned_reports_due = 0;
  shutdown_report report;
  std::vector<caf::typed_response_promise<shutdown_report>> shutdown_promises;
  std::function<void()> on_done;

  static inline const char* name = "pagedserve.router";

 private:
  [[nodiscard]] std::size_t num_routed_unowned() const;
};

}  // namespace pagedserve::actors
