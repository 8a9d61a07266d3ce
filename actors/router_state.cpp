#include "actors/router_state.h"

#include <algorithm>
#include <utility>

#include "api/engine_stats.h"

namespace pagedserve::actors {

std::uint64_t request_cost(const generation_request& request) {
  // A text prompt (tokenized by the replica) counts ~4 characters per token.
  const std::uint64_t prompt = request.prompt_token_ids.empty() ? request.prompt.size() / 4
                                                                : request.prompt_token_ids.size();
  return prompt + std::uint64_t{request.sampling.max_tokens} *
                      std::max<std::uint32_t>(request.sampling.n, 1);
}

void router_state::init(const std::vector<router_replica>& replicas, router_options opts) {
  options = std::move(opts);
  routing = routing::replica_router(replicas.size(), options.routing);
  for (std::size_t i = 0; i < replicas.size(); ++i) {
    replica_slot slot;
    slot.owned = replicas[i].owned;
    slot.status.name = replicas[i].name;
    slots.push_back(std::move(slot));
    routing.set_up(i, false);  // until mark_up
  }
}

std::optional<std::size_t> router_state::replica_of(const caf::actor_addr& source) const {
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (slots[i].actor && slots[i].actor.address() == source) return i;
  }
  return std::nullopt;
}

void router_state::mark_up(std::size_t index, engine_actor actor) {
  replica_slot& slot = slots[index];
  // A new life starts its counters at zero: keep the old ones in the sums.
  add_engine_stats(slot.retired, slot.status.stats);
  slot.retired.num_running = slot.retired.num_waiting = 0;  // only its counters stay
  slot.retired.num_total_blocks = slot.retired.num_free_blocks = 0;
  slot.status.stats = engine_stats{};
  slots[index].actor = std::move(actor);
  slots[index].status.up = true;
  routing.set_up(index, true);
}

void router_state::mark_down(std::size_t index) {
  replica_slot& slot = slots[index];
  slot.actor = engine_actor();
  slot.status.up = false;
  engine_stats& s = slot.status.stats;  // counters stay; what it held is gone
  s.num_running = 0;
  s.num_waiting = 0;
  s.kv_usage = 0.0;
  s.num_free_blocks = s.num_total_blocks;
  routing.set_up(index, false);
  const std::string why = "engine replica " + slot.status.name + " went away";
  for (auto it = routed.begin(); it != routed.end();) {
    if (it->second.replica != index) {
      ++it;
      continue;
    }
    for (std::uint32_t k = 0; k < it->second.n; ++k) {
      request_final final;
      final.request = request_id{it->first};
      final.index = k;
      final.reason = finish_reason::error;
      final.error_message = why;
      final.finished = k + 1 == it->second.n;
      caf::anon_send(it->second.sink, std::move(final));
    }
    it = routed.erase(it);
  }
  for (auto it = pending.begin(); it != pending.end();) {
    if (it->second.replica != index) {
      ++it;
      continue;
    }
    auto promise = it->second.promise;
    promise.deliver(make_error(engine_errc::shutting_down, why));
    it = pending.erase(it);
  }
}

void router_state::accept(std::uint64_t id, routed_request request) {
  ++slots[request.replica].status.num_routed;
  by_sink[request.sink.address()].push_back(id);
  routed.emplace(id, std::move(request));
}

void router_state::sink_ended(const caf::actor_addr& sink) {
  const auto found = by_sink.find(sink);
  if (found == by_sink.end()) return;
  for (const std::uint64_t id : found->second) {
    const auto r = routed.find(id);
    if (r == routed.end()) continue;  // ended by a failover
    routing.finished(r->second.replica, r->second.cost);
    if (shutting_down && !slots[r->second.replica].owned && !r->second.cancelled_at_deadline)
      ++report.num_drained;
    routed.erase(r);
  }
  by_sink.erase(found);
}

void router_state::cancel(request_id id) {
  const auto found = routed.find(id.value());
  if (found == routed.end()) return;
  const engine_actor& replica = slots[found->second.replica].actor;
  if (replica)
    caf::send_as(caf::actor_cast<caf::actor>(self_addr), replica, cancel_atom::value,
                 found->second.replica_id);
}

void router_state::record_stats(std::size_t index, engine_stats stats) {
  routing.report(index, {.num_running = stats.num_running,
                         .num_waiting = stats.num_waiting,
                         .kv_usage = stats.kv_usage});
  slots[index].status.stats = std::move(stats);
}

engine_stats router_state::summed_stats() const {
  std::vector<engine_stats> parts;
  parts.reserve(2 * slots.size());
  for (const replica_slot& slot : slots) {
    parts.push_back(slot.status.stats);
    parts.push_back(slot.retired);  // counters only: its gauges and blocks are zero
  }
  return sum_engine_stats(parts);
}

std::vector<replica_status> router_state::statuses() const {
  std::vector<replica_status> out;
  out.reserve(slots.size());
  for (const replica_slot& slot : slots) out.push_back(slot.status);
  return out;
}

void router_state::begin_shutdown() { shutting_down = true; }

void router_state::owned_report(const shutdown_report* r) {
  if (r != nullptr) {
    report.num_drained += r->num_drained;
    report.num_cancelled += r->num_cancelled;
    report.num_leaked_blocks += r->num_leaked_blocks;
    report.timed_out = report.timed_out || r->timed_out;
  } else {
    report.timed_out = true;
  }
  --owned_reports_due;
  check_shutdown_done();
}

// Requests still running on replicas the router does not own are cancelled there.
void router_state::deadline_passed() {
  deadline = true;
  for (auto& [id, r] : routed) {
    if (slots[r.replica].owned || !slots[r.replica].actor) continue;
    r.cancelled_at_deadline = true;
    caf::send_as(caf::actor_cast<caf::actor>(self_addr), slots[r.replica].actor, cancel_atom::value,
                 r.replica_id);
    ++report.num_cancelled;
    report.timed_out = true;
  }
  check_shutdown_done();
}

std::size_t router_state::num_routed_unowned() const {
  return static_cast<std::size_t>(std::count_if(
      routed.begin(), routed.end(), [&](const auto& r) { return !slots[r.second.replica].owned; }));
}

void router_state::check_shutdown_done() {
  if (!shutting_down || done || owned_reports_due > 0 || !pending.empty()) return;
  if (!deadline && num_routed_unowned() > 0) return;
  done = true;
  for (auto& promise : shutdown_promises) promise.deliver(report);
  shutdown_promises.clear();
  if (on_done) on_done();
}

}  // namespace pagedserve::actors
