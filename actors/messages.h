#pragma once
// The messages the engine's actors exchange inside one process (never serialized: whitelisted
// as unsafe types): step_message, step_output, executor_step, step_result, and the internal
// atoms. The public ones, which may cross the network: actors/engine_messages.h. Keep CAF
// out of runtime/.

#include <caf/all.hpp>

#include <optional>
#include <string>

#include "actors/engine_messages.h"
#include "actors/internal_atoms.h"
#include "runtime/engine/engine_core.h"
#include "runtime/worker/executor_step_figures.h"

namespace pagedserve::actors {

// One step for the executor. `counts_idle`: the engine had work all the time since the
// executor's previous step ended, so the gap before this one is executor idle time.
struct executor_step {
  step_message msg;
  bool counts_idle = false;
};

// The executor's answer to one step: the sampled tokens, or why the step failed.
struct step_result {
  std::uint64_t step = 0;
  std::optional<sched::step_output> output;  // absent: the step failed
  std::string error;                         // set when output is absent
  executor_step_figures figures;
  std::vector<std::int32_t> expert_load;  // collected_step::expert_load (MoE models)
  std::int32_t num_experts = 0;
};

}  // namespace pagedserve::actors

// Internal messages: never leave the process, so no serialization.
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(pagedserve::step_message)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(pagedserve::sched::step_output)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(pagedserve::actors::executor_step)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(pagedserve::actors::step_result)
