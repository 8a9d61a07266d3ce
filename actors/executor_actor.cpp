#include "actors/executor_actor.h"

#include <chrono>
#include <exception>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>

#include "runtime/sched/steps_in_flight.h"

namespace pagedserve::actors {
namespace {

using clock_type = std::chrono::steady_clock;

double seconds_between(clock_type::time_point from, clock_type::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

// Not an aggregate: CAF would otherwise construct it from the actor pointer (C++20
// parenthesized aggregate initialisation makes that look possible).
struct executor_state {
  executor_state() = default;
  std::shared_ptr<step_executor> executor;
  scheduler_actor scheduler;                            // where step results go
  std::optional<clock_type::time_point> last_step_end;  // none before the first step
  // Per step in flight: whether the engine had work all the time since the previous step
  // (else the gaps before it are not idle time), and the executor's gap before it.
  struct arrival {
    bool counts_idle = false;
    double idle_s = 0.0;
  };
  std::unordered_map<std::uint64_t, arrival> arrivals;
  bool collect_queued = false;  // a collect_atom is in the mailbox
  static inline const char* name = "pagedserve.executor";
};

using self_pointer = executor_actor::stateful_pointer<executor_state>;

// Collects the oldest step in flight and answers it. Never throws (an exception escaping a
// handler would kill the actor and, through the links, the engine).
void finish_oldest(self_pointer self) {
  auto& st = self->state;
  const auto start = clock_type::now();
  step_result out;
  try {
    collected_step c = st.executor->collect();
    out.step = c.step;
    if (c.output) {
      out.output = std::move(*c.output);
    } else {
      out.error = c.output.err().message;
    }
    out.figures.host_s = c.host_s;
    out.figures.device_busy_s = c.device_busy_s.value_or(0.0);
    out.figures.device_idle_s = c.device_idle_before_s.value_or(0.0);
    out.figures.replayed_graph = c.replayed_graph;
    out.expert_load = std::move(c.expert_load);
    out.num_experts = c.num_experts;
  } catch (const std::exception& e) {
    out.error = std::string("collecting a step failed: ") + e.what();
  }
  const auto end = clock_type::now();
  if (const auto it = st.arrivals.find(out.step); it != st.arrivals.end()) {
    out.figures.idle_s = it->second.idle_s;
    if (!it->second.counts_idle) out.figures.device_idle_s = 0.0;
    st.arrivals.erase(it);
  }
  out.figures.busy_s = seconds_between(start, end) + out.figures.host_s;
  st.last_step_end = end;
  if (st.scheduler) self->send(st.scheduler, std::move(out));
}

// Answers every step that has already run, oldest first. On a backend that computes in
// submit() (the CPU) that is the step just submitted: its tokens leave before the next plan
// in the mailbox is computed, not after it (which sent a stream's tokens in pairs).
void answer_finished_steps(self_pointer self) {
  auto& st = self->state;
  while (st.executor->num_in_flight() > 0 && st.executor->oldest_ready()) finish_oldest(self);
}

// One step in flight: poll for it through the mailbox, so that a plan arriving meanwhile is
// submitted first (the device then never waits for the next step).
void queue_collect(self_pointer self) {
  auto& st = self->state;
  if (st.collect_queued || st.executor->num_in_flight() == 0) return;
  st.collect_queued = true;
  self->send(self, collect_atom::value);
}

void on_step(self_pointer self, executor_step& in) {
  auto& st = self->state;
  if (auto sender = caf::actor_cast<scheduler_actor>(self->current_sender())) {
    st.scheduler = std::move(sender);
  }
  const auto start = clock_type::now();
  const std::uint64_t step = in.msg.plan.step;
  st.arrivals[step] = {in.counts_idle, in.counts_idle && st.last_step_end
                                           ? seconds_between(*st.last_step_end, start)
                                           : 0.0};
  st.executor->submit(in.msg.plan, in.msg.new_sequences);
  while (st.executor->num_in_flight() >= k_max_steps_in_flight) finish_oldest(self);
  answer_finished_steps(self);
  queue_collect(self);
}

void on_collect(self_pointer self) {
  auto& st = self->state;
  st.collect_queued = false;
  if (st.executor->num_in_flight() == 0) return;
  if (st.executor->oldest_ready()) {
    finish_oldest(self);
  } else {
    std::this_thread::yield();
  }
  queue_collect(self);
}

executor_actor::behavior_type executor_main(self_pointer self,
                                            std::shared_ptr<step_executor> executor) {
  self->state.executor = std::move(executor);
  // A detached actor must end on an exit message itself, else ~actor_system waits for it.
  self->set_exit_handler([self](caf::exit_msg& msg) {
    self->state.executor.reset();
    self->quit(std::move(msg.reason));
  });
  return {
      [self](step_atom, executor_step& in) { on_step(self, in); },
      [self](collect_atom) { on_collect(self); },
  };
}

}  // namespace

executor_actor spawn_executor(caf::actor_system& system, std::unique_ptr<step_executor> executor) {
  return system.spawn<caf::detached>(executor_main,
                                     std::shared_ptr<step_executor>(std::move(executor)));
}

}  // namespace pagedserve::actors
