#pragma once
// step_message: what the engine (engine_core) sends the worker (step_executor) for one step:
// the scheduler's plan and how each sequence it schedules for the first time samples. The
// one header of runtime/worker/ that the engine's request bookkeeping includes: nothing of
// the backend or the model comes with it.

#include <cstdint>
#include <memory>
#include <vector>

#include "api/sampling_params.h"
#include "common/ids.h"
#include "common/types.h"
#include "runtime/grammar/compiled_grammar.h"
#include "runtime/sched/step_plan.h"

namespace pagedserve {

// How a new sequence samples. Sent with the plan that first schedules it.
struct sequence_sampling {
  seq_id seq;
  sampling_params params;
  std::uint64_t sequence_index = 0;  // which of the request's n completions (random stream)
  // The penalties tell prompt from generated tokens (the plan's token lists do not).
  std::uint32_t num_prompt_tokens = 0;
  // What params.min_tokens holds back: EOS (unless ignore_eos) and the stop token ids.
  std::vector<token_id> held_stop_token_ids{};
  // params.structured_outputs compiled against the model's vocabulary; null without.
  std::shared_ptr<const grammar::compiled_grammar> grammar{};
};

// What the executor needs for one step.
struct step_message {
  sched::step_plan plan;
  std::vector<sequence_sampling> new_sequences;
};

}  // namespace pagedserve
