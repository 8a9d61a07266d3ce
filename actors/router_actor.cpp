#include "actors/router_actor.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <unordered_map>
#include <utility>

#include "actors/engine_errors.h"
#include "actors/router_state.h"

namespace pagedserve::actors {
namespace {

using self_pointer = router_actor::stateful_pointer<router_state>;
using namespace std::chrono_literals;

constexpr auto k_submit_timeout = 30s;
constexpr auto k_stats_timeout = 2s;
// A replica's shutdown may take its drain timeout plus this; shorter than the facade's own
// slack (engine.cpp), so the router answers (and kills a stuck replica) before it gives up.
constexpr auto k_replica_shutdown_slack = 20s;

void on_replica_down(self_pointer self, std::size_t index) {
  router_state& st = self->state;
  st.mark_down(index);
  if (const caf::actor& watcher = st.slots[index].watcher)
    caf::anon_send(watcher, replica_lost_atom::value, static_cast<std::uint32_t>(index));
  st.check_shutdown_done();
}

void on_down(self_pointer self, const caf::down_msg& msg) {
  router_state& st = self->state;
  if (const auto index = st.replica_of(msg.source)) {
    on_replica_down(self, *index);
    return;
  }
  st.sink_ended(msg.source);
  st.check_shutdown_done();
}

void set_replica_up(self_pointer self, std::size_t index, engine_actor actor) {
  router_state& st = self->state;
  if (index >= st.slots.size() || !actor || st.slots[index].actor == actor) return;
  self->monitor(actor);
  st.mark_up(index, std::move(actor));
}

caf::typed_response_promise<request_id> submit(self_pointer self, generation_request& request,
                                               caf::actor& sink) {
  router_state& st = self->state;
  auto promise = self->make_response_promise<request_id>();
  const std::uint64_t cost = request_cost(request);
  const auto decision =
      st.shutting_down ? std::nullopt : st.routing.route(request.prompt_token_ids, cost);
  if (!decision) {
    promise.deliver(make_error(engine_errc::shutting_down, st.shutting_down
                                                               ? "the server is shutting down"
                                                               : "no engine replica is up"));
    return promise;
  }
  const std::size_t index = decision->replica;
  const std::uint64_t id = st.next_id++;
  st.pending.emplace(id, pending_submit{index, cost, promise});
  const std::uint32_t n = std::max<std::uint32_t>(request.sampling.n, 1);
  self->request(st.slots[index].actor, k_submit_timeout, submit_atom::value, std::move(request),
                sink)
      .then(
          [self, id, sink, n](request_id replica_id) {
            router_state& s = self->state;
            const auto found = s.pending.find(id);
            if (found == s.pending.end()) return;  // its replica went down meanwhile
            const pending_submit p = found->second;
            s.pending.erase(found);
            if (!s.by_sink.contains(sink.address())) self->monitor(sink);
            s.accept(id, routed_request{p.replica, replica_id, sink, n, p.cost});
            auto reply = p.promise;
            reply.deliver(request_id{id});
          },
          [self, id](caf::error& err) {
            router_state& s = self->state;
            const auto found = s.pending.find(id);
            if (found == s.pending.end()) return;
            auto reply = found->second.promise;
            const std::size_t replica = found->second.replica;
            s.routing.finished(replica, found->second.cost);
            s.pending.erase(found);
            // The replica's own refusal goes back as it is; CAF's (a timeout, a replica that
            // went down meanwhile) is the replica being unavailable: 503, not 500.
            if (!engine_errc_of(err)) {
              err = make_error(engine_errc::shutting_down,
                               "engine replica " + s.slots[replica].status.name +
                                   " did not answer: " + error_message(err));
            }
            reply.deliver(std::move(err));
          });
  return promise;
}

// Asks every up replica for its stats; `done` runs once all have answered (or timed out).
void poll_replicas(self_pointer self, std::function<void()> done) {
  router_state& st = self->state;
  auto left = std::make_shared<std::size_t>(0);
  for (const replica_slot& slot : st.slots) *left += slot.actor ? 1 : 0;
  if (*left == 0) {
    done();
    return;
  }
  auto finish_one = [self, left, done]() {
    if (--*left == 0) done();
  };
  for (std::size_t i = 0; i < st.slots.size(); ++i) {
    if (!st.slots[i].actor) continue;
    const engine_actor asked = st.slots[i].actor;
    self->request(asked, k_stats_timeout, stats_atom::value)
        .then(
            [self, i, asked, finish_one](engine_stats& stats) {
              if (self->state.slots[i].actor == asked)
                self->state.record_stats(i, std::move(stats));
              finish_one();
            },
            [finish_one](caf::error&) { finish_one(); });
  }
}

caf::typed_response_promise<engine_stats> stats(self_pointer self) {
  auto promise = self->make_response_promise<engine_stats>();
  auto reply = std::make_shared<caf::typed_response_promise<engine_stats>>(promise);
  poll_replicas(self, [self, reply] { reply->deliver(self->state.summed_stats()); });
  return promise;
}

caf::typed_response_promise<shutdown_report> shutdown(self_pointer self, std::uint64_t timeout_ms) {
  router_state& st = self->state;
  auto promise = self->make_response_promise<shutdown_report>();
  st.shutdown_promises.push_back(promise);
  if (st.shutting_down) return promise;
  st.begin_shutdown();
  for (std::size_t i = 0; i < st.slots.size(); ++i) {
    if (!st.slots[i].owned || !st.slots[i].actor) continue;
    ++st.owned_reports_due;
    const engine_actor replica = st.slots[i].actor;
    self->request(replica, std::chrono::milliseconds(timeout_ms) + k_replica_shutdown_slack,
                  shutdown_atom::value, timeout_ms)
        .then([self](shutdown_report& r) { self->state.owned_report(&r); },
              [self, replica](caf::error&) {
                // Stuck: kill it, or the actor system would wait for it forever.
                caf::anon_send_exit(replica, caf::exit_reason::kill);
                self->state.owned_report(nullptr);
              });
  }
  self->delayed_send(self, std::chrono::milliseconds(timeout_ms), deadline_atom::value);
  st.check_shutdown_done();
  return promise;
}

router_actor::behavior_type router_main(self_pointer self, std::vector<router_replica> replicas,
                                        router_options options) {
  router_state& st = self->state;
  st.init(replicas, options);
  st.self_addr = self->address();
  for (std::size_t i = 0; i < replicas.size(); ++i) {
    if (replicas[i].actor) set_replica_up(self, i, replicas[i].actor);
  }
  st.on_done = [self] { self->quit(); };
  // Owned replicas go with the router, however it ends (not linked: a replica that dies must
  // not take the router and the other replicas with it).
  std::vector<engine_actor> owned;
  for (const router_replica& r : replicas) {
    if (r.owned && r.actor) owned.push_back(r.actor);
  }
  self->attach_functor([owned] {
    for (const engine_actor& r : owned) caf::anon_send_exit(r, caf::exit_reason::user_shutdown);
  });
  self->set_down_handler([self](caf::down_msg& msg) { on_down(self, msg); });
  self->send(self, poll_atom::value);
  return {
      [self](submit_atom, generation_request& request, caf::actor& sink) {
        return submit(self, request, sink);
      },
      [self](cancel_atom, request_id id) { self->state.cancel(id); },
      [self](stats_atom) { return stats(self); },
      [self](shutdown_atom, std::uint64_t timeout_ms) { return shutdown(self, timeout_ms); },
      [self](replica_up_atom, std::uint32_t index, engine_actor& actor) {
        if (index < self->state.slots.size())
          self->state.slots[index].watcher = caf::actor_cast<caf::actor>(self->current_sender());
        set_replica_up(self, index, std::move(actor));
      },
      [self](replicas_atom) { return self->state.statuses(); },
      [self](deadline_atom) { self->state.deadline_passed(); },
      [self](poll_atom) {
        poll_replicas(self, [] {});
        self->delayed_send(self, self->state.options.poll_interval, poll_atom::value);
      },
  };
}

}  // namespace

router_actor spawn_router(caf::actor_system& system, std::vector<router_replica> replicas,
                          router_options options) {
  return system.spawn(router_main, std::move(replicas), std::move(options));
}

}  // namespace pagedserve::actors
