#include "actors/executor_actor.h"

#include <chrono>
#include <exception>
#include <optional>
#include <string>
#include <utility>

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
  std::optional<clock_type::time_point> last_step_end;  // none before the first step
  static inline const char* name = "pagedserve.executor";
};

// Runs one plan; never throws (an exception escaping a handler would kill the actor and,
// through the links, the engine).
step_result run_step(executor_state& state, const executor_step& in) {
  step_result out;
  out.step = in.msg.plan.step;
  const auto start = clock_type::now();
  if (in.counts_idle && state.last_step_end) {
    out.idle_s = seconds_between(*state.last_step_end, start);
  }
  try {
    auto sampled = state.executor->run(in.msg.plan, in.msg.new_sequences);
    if (sampled) {
      out.output = std::move(*sampled);
    } else {
      out.error = sampled.err().message;
    }
  } catch (const std::exception& e) {
    out.error = "step " + std::to_string(out.step) + " failed: " + e.what();
  } catch (...) {
    out.error = "step " + std::to_string(out.step) + " failed: unknown exception";
  }
  const auto end = clock_type::now();
  out.busy_s = seconds_between(start, end);
  state.last_step_end = end;
  return out;
}

executor_actor::behavior_type executor_main(executor_actor::stateful_pointer<executor_state> self,
                                            std::shared_ptr<step_executor> executor) {
  self->state.executor = std::move(executor);
  // A detached actor must end on an exit message itself, else ~actor_system waits for it.
  self->set_exit_handler([self](caf::exit_msg& msg) {
    self->state.executor.reset();
    self->quit(std::move(msg.reason));
  });
  return {
      [self](step_atom, executor_step& in) {
        auto reply_to = caf::actor_cast<scheduler_actor>(self->current_sender());
        step_result out = run_step(self->state, in);
        if (reply_to) self->send(reply_to, std::move(out));
      },
  };
}

}  // namespace

executor_actor spawn_executor(caf::actor_system& system, std::unique_ptr<step_executor> executor) {
  return system.spawn<caf::detached>(executor_main,
                                     std::shared_ptr<step_executor>(std::move(executor)));
}

}  // namespace pagedserve::actors
