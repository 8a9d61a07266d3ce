#include "actors/scheduler_actor.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "actors/engine_errors.h"

namespace pagedserve::actors {
namespace {

using core_type = engine_core<caf::actor>;
using clock_type = std::chrono::steady_clock;

// Longer shutdown timeouts are cut to this (a uint64 of milliseconds overflows the clock).
constexpr std::uint64_t k_max_shutdown_timeout_ms = std::uint64_t{7} * 24 * 3600 * 1000;

// Not an aggregate: CAF would otherwise construct it from the actor pointer (C++20
// parenthesized aggregate initialisation makes that look possible).
struct scheduler_state {
  scheduler_state() = default;
  std::unique_ptr<core_type> core;
  executor_actor executor;
  clock_type::time_point start = clock_type::now();
  std::unordered_map<request_id, caf::actor> live;  // accepted, last final not yet sent
  std::unordered_set<caf::actor_addr> monitored;    // sinks
  core_type::sends sends;                           // scratch, reused
  // True while the engine has had nothing to do since the executor's last step: the gap
  // before the next step is then not executor idle time.
  bool went_idle = true;

  bool shutting_down = false;
  bool cancelling_at_deadline = false;
  bool finished = false;
  shutdown_report report;
  std::vector<caf::typed_response_promise<shutdown_report>> shutdown_promises;

  static inline const char* name = "pagedserve.scheduler";

  [[nodiscard]] double now() const {
    return std::chrono::duration<double>(clock_type::now() - start).count();
  }
};

using self_pointer = scheduler_actor::stateful_pointer<scheduler_state>;

void count_final(scheduler_state& st, const request_final& final) {
  if (!final.finished || st.live.erase(final.request) == 0) return;
  if (!st.shutting_down) return;
  if (st.cancelling_at_deadline) {
    ++st.report.num_cancelled;
  } else {
    ++st.report.num_drained;
  }
}

// Sends what engine_core produced to the sinks, in order (sinks are untyped: anon_send):
// chunks, lifecycle events (requests that asked) and finals.
void deliver(scheduler_state& st) {
  for (auto& out : st.sends) {
    if (auto* final = std::get_if<request_final>(&out.event)) count_final(st, *final);
    std::visit([&out](auto& event) { caf::anon_send(out.sink, std::move(event)); }, out.event);
  }
  st.sends.clear();
}

// Plans and sends steps until nothing more is runnable; engine_core stops at two steps in
// flight (one running at the executor, one planned behind it: the overlap).
void pump(self_pointer self) {
  auto& st = self->state;
  while (st.core->can_plan_step()) {
    executor_step step;
    if (!st.core->plan_step(st.now(), step.msg)) break;
    step.counts_idle = !st.went_idle;
    st.went_idle = false;
    self->send(st.executor, step_atom::value, std::move(step));
  }
}

// Replies to shutdown and quits once nothing runs, nothing waits and no step is in flight.
void maybe_finish(self_pointer self) {
  auto& st = self->state;
  if (!st.shutting_down || st.finished) return;
  if (st.core->has_work()) return;  // steps in flight included
  st.report.num_leaked_blocks = st.core->num_blocks_held();
  st.finished = true;
  for (auto& promise : st.shutdown_promises) promise.deliver(st.report);
  st.shutdown_promises.clear();
  self->quit(caf::exit_reason::user_shutdown);
}

void cancel_request(self_pointer self, request_id id) {
  auto& st = self->state;
  st.core->cancel(id, st.now(), st.sends);
  deliver(st);
}

void watch(self_pointer self, const caf::actor& sink) {
  if (self->state.monitored.insert(sink.address()).second) self->monitor(sink);
}

void on_sink_down(self_pointer self, const caf::down_msg& msg) {
  auto& st = self->state;
  st.monitored.erase(msg.source);
  std::vector<request_id> orphans;
  for (const auto& [id, sink] : st.live) {
    if (sink.address() == msg.source) orphans.push_back(id);
  }
  for (request_id id : orphans) cancel_request(self, id);
  pump(self);
  maybe_finish(self);
}

caf::result<request_id> on_submit(self_pointer self, generation_request& request,
                                  caf::actor& sink) {
  auto& st = self->state;
  if (st.shutting_down)
    return make_error(engine_errc::shutting_down, "the engine is shutting down");
  auto id = st.core->add(std::move(request), sink, st.now());
  if (!id) return to_caf_error(id.err());
  st.live.emplace(*id, sink);
  watch(self, sink);
  pump(self);
  return *id;
}

void on_step_result(self_pointer self, step_result& result) {
  auto& st = self->state;
  st.core->record_executor_time(result.figures);
  st.core->record_expert_load(result.expert_load, result.num_experts);
  if (result.output) {
    st.core->apply_output(*result.output, st.now(), st.sends);
  } else {
    st.core->fail_step(result.step, result.error, st.now(), st.sends);
  }
  deliver(st);
  pump(self);
  if (!st.core->has_work()) st.went_idle = true;
  maybe_finish(self);
}

// The shutdown timeout passed: cancel whatever has not finished.
void on_deadline(self_pointer self) {
  auto& st = self->state;
  if (st.finished) return;
  const std::vector<request_id> left = st.core->live_requests();
  st.report.timed_out = !left.empty();
  st.cancelling_at_deadline = true;
  for (request_id id : left) cancel_request(self, id);
  st.cancelling_at_deadline = false;
  maybe_finish(self);
}

scheduler_actor::behavior_type scheduler_main(self_pointer self, executor_actor executor,
                                              engine_core_setup setup) {
  self->state.executor = std::move(executor);
  self->state.core = std::make_unique<core_type>(std::move(setup));
  self->set_down_handler([self](caf::down_msg& msg) { on_sink_down(self, msg); });
  return {
      [self](submit_atom, generation_request& request, caf::actor& sink) {
        return on_submit(self, request, sink);
      },
      [self](cancel_atom, request_id id) {
        cancel_request(self, id);
        pump(self);
        maybe_finish(self);
      },
      [self](stats_atom) { return self->state.core->stats(); },
      [self](shutdown_atom, std::uint64_t timeout_ms) -> caf::result<shutdown_report> {
        auto& st = self->state;
        auto promise = self->make_response_promise<shutdown_report>();
        st.shutdown_promises.push_back(promise);
        if (!st.shutting_down) {
          st.shutting_down = true;
          const auto timeout = std::min(timeout_ms, k_max_shutdown_timeout_ms);
          self->delayed_send(self, std::chrono::milliseconds(timeout), deadline_atom::value);
        }
        maybe_finish(self);
        return promise;
      },
      [self](step_result& result) { on_step_result(self, result); },
      [self](deadline_atom) { on_deadline(self); },
  };
}

}  // namespace

scheduler_actor spawn_scheduler(caf::actor_system& system, executor_actor executor,
                                engine_core_setup setup) {
  return system.spawn(scheduler_main, std::move(executor), std::move(setup));
}

}  // namespace pagedserve::actors
