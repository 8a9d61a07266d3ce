#pragma once
// step_executor: runs step plans on the model. It owns the backend, the weights and the KV
// memory, keeps each live sequence's tokens (from the plans' full data plus every token it
// samples itself) and its sampler state, and answers each plan with one sampled token per
// sampling entry, in plan order. A sequence whose sampling_params ask for logprobs gets them
// with each token (the raw log_softmax of its logits row: runtime/sampling/logprobs.h).
//
// Pipelined: submit() enqueues a step and returns; collect() waits for the oldest submitted
// step and returns its output. Up to k_max_steps_in_flight (2) steps are in flight, so the
// device runs step N while the host prepares N+1. A `continuing` entry's new tokens are read
// from the executor's own copy at positions [first_position, first_position +
// num_scheduled_tokens), which includes the token it sampled for that sequence in the
// previous step: on a backend that samples on the device (CUDA) that token may not have
// reached the host yet, and then it goes from the previous step's device buffer straight
// into this step's inputs (device_sampling.h); the host learns it at collect().
// On the CPU every step has finished when submit() returns.
//
// Start-up: the executor is made from an engine_plan (engine_plan.h: the pool's size, the
// decode graphs to capture) and the model's forward on its backend; engine_start.h makes
// all three. It allocates the planned pool and captures the planned graphs.
//
// Failure: if a step throws (backend error, injected fault), every sequence of that step is
// dropped from the executor's state and its collect() returns the error; entries of later
// plans that name a dropped or unknown sequence are skipped (no forward work) and answered
// with token 0 — the scheduler has finished those sequences and ignores the value.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/ids.h"
#include "common/result.h"
#include "kernels/backend.h"
#include "runtime/plan/engine_plan.h"
#include "runtime/sched/step_plan.h"
#include "runtime/worker/device_sampling.h"
#include "runtime/worker/step_message.h"

namespace pagedserve {

namespace forward {
class model_forward;
}

// What an executor is made of.
struct step_executor_parts {
  std::unique_ptr<kernels::backend> backend;
  std::unique_ptr<forward::model_forward> forward;  // the model's weights on *backend
  // speculative_config draft_model: the draft's weights on *backend (its K/V share the pool).
  std::unique_ptr<forward::model_forward> draft;
  std::shared_ptr<const engine_plan> plan;
  // Test hook: called before each step's forward with the step index; may throw to inject
  // a failure into that step.
  std::function<void(std::uint64_t step)> before_step;
};

// One collected step: its output or why it failed, and what it cost.
struct collected_step {
  std::uint64_t step = 0;
  result<sched::step_output> output = sched::step_output{};
  double host_s = 0.0;  // host time in submit() and collect(), waits for the device excluded
  std::optional<double> device_busy_s;         // nullopt: no device clock (CPU)
  std::optional<double> device_idle_before_s;  // since the previous step ended on the device
  bool replayed_graph = false;
  // MoE models: tokens each expert has run so far, [layers, experts] u32 counters that wrap
  // (model_forward::expert_load), as of this step; empty for a dense model.
  std::vector<std::int32_t> expert_load;
  std::int32_t num_experts = 0;  // per layer: expert_load's row width
};

class step_executor {
 public:
  // Allocates the plan's KV pool, the device sampler where the backend samples, and
  // captures the plan's decode graphs.
  [[nodiscard]] static std::unique_ptr<step_executor> create(step_executor_parts parts);
  virtual ~step_executor() = default;

  // Registers sampling for sequences new in `plan` and enqueues it. The plan's `finished`
  // sequences are dropped first; `preempted` ones lose their tokens but keep their sampler
  // state (their next entry is `resumed` with full data). At most k_max_steps_in_flight
  // steps may be in flight (collect first; more is a broken invariant: abort).
  virtual void submit(const sched::step_plan& plan,
                      std::span<const sequence_sampling> new_sequences) = 0;
  // Waits for the oldest step in flight (there must be one) and returns it.
  [[nodiscard]] virtual collected_step collect() = 0;
  [[nodiscard]] virtual std::size_t num_in_flight() const = 0;
  // Whether collect() would return without waiting for the device.
  [[nodiscard]] virtual bool oldest_ready() = 0;

  // submit + collect, with nothing else in flight. Error: the step failed.
  [[nodiscard]] result<sched::step_output> run(const sched::step_plan& plan,
                                               std::span<const sequence_sampling> new_sequences) {
    submit(plan, new_sequences);
    return collect().output;
  }

  [[nodiscard]] virtual std::size_t num_live_sequences() const = 0;
  [[nodiscard]] virtual const engine_plan& plan() const = 0;
  // Decode graphs captured at create(); 0: eager.
  [[nodiscard]] virtual std::size_t num_decode_graphs() const = 0;
};

}  // namespace pagedserve
