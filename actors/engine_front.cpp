#include "actors/engine_front.h"

#include <utility>

namespace pagedserve::actors {
namespace {

engine_actor::behavior_type front_main(engine_actor::pointer self, intake_actor intake,
                                       scheduler_actor scheduler, executor_actor executor) {
  self->link_to(intake);
  self->link_to(scheduler);
  self->link_to(executor);
  return {
      [self, intake](submit_atom, generation_request& request, caf::actor& sink) {
        return self->delegate(intake, submit_atom::value, std::move(request), std::move(sink));
      },
      [self, scheduler](cancel_atom, request_id id) {
        self->send(scheduler, cancel_atom::value, id);
      },
      [self, scheduler](stats_atom) { return self->delegate(scheduler, stats_atom::value); },
      [self, intake, scheduler](shutdown_atom, std::uint64_t timeout_ms) {
        self->send(intake, close_atom::value);
        return self->delegate(scheduler, shutdown_atom::value, timeout_ms);
      },
  };
}

}  // namespace

engine_actor spawn_engine_front(caf::actor_system& system, intake_actor intake,
                                scheduler_actor scheduler, executor_actor executor) {
  return system.spawn(front_main, std::move(intake), std::move(scheduler), std::move(executor));
}

}  // namespace pagedserve::actors
