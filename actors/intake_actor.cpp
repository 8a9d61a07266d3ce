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
  intake_setup setup;
  bool closed = false;
  static inline const char* name = "pagedserve.intake";
};

caf::error invalid(std::string why) {
  return make_error(engine_errc::invalid_request, std::move(why));
}

// Fills prompt_token_ids from the text prompt when only text was given.
caf::error tokenize(const intake_setup& setup, generation_request& request) {
  if (!request.prompt_token_ids.empty()) return caf::none;
  if (request.prompt.empty()) return invalid("the prompt is empty");
  if (!setup.tok) return invalid("this engine has no tokenizer: send prompt_token_ids");
  try {
    request.prompt_token_ids = setup.tok->encode(request.prompt, request.add_special_tokens);
  } catch (const std::exception& e) {
    return invalid(std::string("the prompt could not be tokenized: ") + e.what());
  }
  if (request.prompt_token_ids.empty()) return invalid("the prompt has no tokens");
  return caf::none;
}

caf::error check_ids(const intake_setup& setup, const generation_request& request) {
  for (token_id id : request.prompt_token_ids) {
    if (id < 0 || id >= setup.vocab_size) {
      return invalid("prompt token id " + std::to_string(id) + " is outside the vocabulary [0, " +
                     std::to_string(setup.vocab_size) + ")");
    }
  }
  return caf::none;
}

caf::error check_limits(const intake_setup& setup, const generation_request& request) {
  if (request.max_tokens < 1) return invalid("max_tokens must be at least 1");
  if (request.n < 1 || request.n > setup.max_n) {
    return invalid("n must be in [1, " + std::to_string(setup.max_n) + "], got " +
                   std::to_string(request.n));
  }
  if (!request.stop.empty() && !setup.tok) {
    return invalid("stop strings need a tokenizer; this engine has none");
  }
  if (status ok = request.sampling.validate(); !ok) return invalid(ok.err().message);
  const std::uint64_t total = request.prompt_token_ids.size() + std::uint64_t{request.max_tokens};
  if (total > setup.max_model_len) {
    return make_error(engine_errc::capacity_exceeded,
                      "prompt (" + std::to_string(request.prompt_token_ids.size()) +
                          " tokens) + max_tokens (" + std::to_string(request.max_tokens) +
                          ") exceeds max_model_len " + std::to_string(setup.max_model_len));
  }
  return caf::none;
}

caf::error admit(const intake_setup& setup, generation_request& request) {
  if (auto err = tokenize(setup, request)) return err;
  if (auto err = check_ids(setup, request)) return err;
  return check_limits(setup, request);
}

intake_actor::behavior_type intake_main(intake_actor::stateful_pointer<intake_state> self,
                                        scheduler_actor scheduler, intake_setup setup) {
  self->state.scheduler = std::move(scheduler);
  self->state.setup = std::move(setup);
  return {
      [self](submit_atom, generation_request& request,
             caf::actor& sink) -> caf::result<request_id> {
        if (self->state.closed) {
          return make_error(engine_errc::shutting_down, "the engine is shutting down");
        }
        if (!sink) return invalid("the sink is not a live actor");
        if (auto err = admit(self->state.setup, request)) return err;
        return self->delegate(self->state.scheduler, submit_atom::value, std::move(request),
                              std::move(sink));
      },
      [self](close_atom) { self->state.closed = true; },
  };
}

}  // namespace

intake_actor spawn_intake(caf::actor_system& system, scheduler_actor scheduler,
                          intake_setup setup) {
  return system.spawn(intake_main, std::move(scheduler), std::move(setup));
}

}  // namespace pagedserve::actors
