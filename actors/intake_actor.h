#pragma once
// intake actor: the cheap front half of a submit. Runs the one request check
// (runtime/engine/request_check.h: malformed requests, prompts that could never fit
// max_model_len or the KV pool) and turns text prompts into token ids there, so the CPU
// work stays off the scheduler; rejects submits after shutdown began; then delegates the
// submit to the scheduler, whose reply (id or error) goes straight to the client. It
// assigns nothing: ids and the queue limit are the scheduler's.

#include "actors/actor_interfaces.h"
#include "runtime/engine/request_check.h"

namespace pagedserve::actors {

[[nodiscard]] intake_actor spawn_intake(caf::actor_system& system, scheduler_actor scheduler,
                                        request_limits limits);

}  // namespace pagedserve::actors
