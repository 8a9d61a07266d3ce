#include "actors/intake_actor.h"

#include <string>
#include <utility>

#include "actors/engine_errors.h"

namespace pagedserve::actors {
namespace {

// Not an aggregate: CAF would otherwise construct it from the actor pointer (C++20
// parenthesized aggregate initialisation makes that look possible).
struct intake_state {
  intake_state() = default;
  scheduler_actor scheduler;
  request_limits limits;
  bool closed = false;
  static inline const char* name = "pagedserve.intake";
};

caf::error invalid(std::string why) {
  return make_error(engine_errc::invalid_request, std::move(why));
}

intake_actor::behavior_type intake_main(intake_actor::stateful_pointer<intake_state> self,
                                        scheduler_actor scheduler, request_limits limits) {
  self->state.scheduler = std::move(scheduler);
  self->state.limits = std::move(limits);
  return {
      [self](submit_atom, generation_request& request,
             caf::actor& sink) -> caf::result<request_id> {
        if (self->state.closed) {
          return make_error(engine_errc::shutting_down, "the engine is shutting down");
        }
        if (!sink) return invalid("the sink is not a live actor");
        if (status ok = prepare_request(self->state.limits, request); !ok) {
          return to_caf_error(ok.err());
        }
        return self->delegate(self->state.scheduler, submit_atom::value, std::move(request),
                              std::move(sink));
      },
      [self](close_atom) { self->state.closed = true; },
  };
}

}  // namespace

intake_actor spawn_intake(caf::actor_system& system, scheduler_actor scheduler,
                          request_limits limits) {
  return system.spawn(intake_main, std::move(scheduler), std::move(limits));
}

}  // namespace pagedserve::actors
