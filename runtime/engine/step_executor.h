#pragma once
// step_executor: runs step plans on the model. It owns the backend, the weights and the KV
// memory, keeps each live sequence's tokens (from the plans' full data plus every token it
// samples itself) and its sampler state, and answers each plan with one sampled token per
// sampling entry, in plan order. A sequence whose sampling_params ask for logprobs gets them
// with each token (the raw log_softmax of its logits row: runtime/sampling/logprobs.h).
//
// Steps may be queued back to back (the scheduler plans step N+1 while step N runs): a
// `continuing` entry's new tokens are read from the executor's own copy at positions
// [first_position, first_position + num_scheduled_tokens), which includes the token it
// sampled for that sequence in the previous step.
//
// Failure: if a step throws (backend error, injected fault), every sequence of that step is
// dropped from the executor's state and run() returns the error; entries of later plans that
// name a dropped or unknown sequence are skipped (no forward work) and answered with token 0
// — the scheduler has finished those sequences and ignores the value.

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "runtime/core/ids.h"
#include "runtime/core/result.h"
#include "runtime/model/model_config.h"
#include "runtime/sampling/sampling_params.h"
#include "runtime/sched/step_plan.h"

namespace pagedserve {

class checkpoint;

// How a new sequence samples. Sent with the plan that first schedules it.
struct sequence_sampling {
  seq_id seq;
  sampling_params params;
  std::uint64_t sequence_index = 0;  // which of the request's n completions (random stream)
};

struct step_executor_config {
  model_config model;
  std::shared_ptr<const checkpoint> weights;  // host weights; uploaded at create()
  std::string backend = "cpu";                // "cpu" (only one in the CPU build)
  std::uint32_t block_size = 16;
  std::uint32_t num_blocks = 0;  // KV pool size
  // Test hook: called before each step's forward with the step index; may throw to inject
  // a failure into that step.
  std::function<void(std::uint64_t step)> before_step;
};

class step_executor {
 public:
  // Errors: unsupported backend, weights that do not match the model.
  [[nodiscard]] static result<std::unique_ptr<step_executor>> create(step_executor_config config);
  virtual ~step_executor() = default;

  // Registers sampling for sequences new in `plan`, then runs it. The plan's `finished`
  // sequences are dropped first; `preempted` ones lose their tokens but keep their sampler
  // state (their next entry is `resumed` with full data). Error: the step failed.
  [[nodiscard]] virtual result<sched::step_output> run(
      const sched::step_plan& plan, std::span<const sequence_sampling> new_sequences) = 0;

  [[nodiscard]] virtual std::size_t num_live_sequences() const = 0;
};

}  // namespace pagedserve
