#pragma once
// intake actor: the cheap front half of a submit. Rejects what can be rejected without the
// KV pool (malformed requests, prompts that can never fit max_model_len, submits after
// shutdown began), turns text prompts into token ids (the CPU work stays off the scheduler),
// then delegates the submit to the scheduler, whose reply (id or error) goes straight to
// the client. It assigns nothing: ids, queue limits and pool capacity are the scheduler's.

#include <cstdint>
#include <memory>

#include "actors/actor_interfaces.h"
#include "runtime/tokenizer/tokenizer.h"

namespace pagedserve::actors {

struct intake_setup {
  std::uint32_t max_model_len = 0;
  std::uint32_t max_n = 1;
  std::int64_t vocab_size = 0;
  std::shared_ptr<const tokenizer> tok;  // null: prompts must be token ids
};

[[nodiscard]] intake_actor spawn_intake(caf::actor_system& system, scheduler_actor scheduler,
                                        intake_setup setup);

}  // namespace pagedserve::actors
