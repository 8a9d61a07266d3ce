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
// Start-up on CUDA: with num_blocks = 0 the KV pool takes what gpu_memory_utilization of the
// device leaves after a profiling forward (runtime/forward/kv_pool_sizing.h); decode graphs
// are captured for vLLM's ladder of batch sizes up to max_num_seqs at max_model_len, unless
// enforce_eager.
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

#include "kernels/backend.h"
#include "runtime/core/ids.h"
#include "runtime/core/result.h"
#include "runtime/engine/device_sampling.h"
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
  std::unique_ptr<kernels::backend> backend;  // null: the CPU reference backend
  std::uint32_t block_size = 16;
  // KV pool size; 0: planned from the device's memory (backends with memory figures only).
  std::uint32_t num_blocks = 0;
  double gpu_memory_utilization = 0.9;
  // The largest step the scheduler plans (the workspace is reserved for it before graph
  // capture, and the profiling forward runs it).
  std::uint32_t max_num_batched_tokens = 2048;
  std::uint32_t max_num_seqs = 256;
  std::uint32_t max_model_len = 4096;
  bool enforce_eager = false;  // no decode graphs
  // Test hook: called before each step's forward with the step index; may throw to inject
  // a failure into that step.
  std::function<void(std::uint64_t step)> before_step;
};

// What create() set up, for the start-up log.
struct step_executor_setup {
  std::uint32_t num_blocks = 0;
  std::int64_t bytes_per_block = 0;
  std::int64_t kv_bytes = 0;         // the whole pool, padding block included
  bool planned_from_memory = false;  // num_blocks came from gpu_memory_utilization
  std::int64_t device_total_bytes = 0;
  std::int64_t in_use_bytes = 0;      // after profiling, before the KV pool
  double max_concurrency = 0.0;       // sequences of max_model_len the pool holds at once
  std::size_t num_decode_graphs = 0;  // 0: eager
  bool samples_on_device = false;
};

// One collected step: its output or why it failed, and what it cost.
struct collected_step {
  std::uint64_t step = 0;
  result<sched::step_output> output = sched::step_output{};
  double host_s = 0.0;  // host time in submit() and collect(), waits for the device excluded
  std::optional<double> device_busy_s;         // nullopt: no device clock (CPU)
  std::optional<double> device_idle_before_s;  // since the previous step ended on the device
  bool replayed_graph = false;
};

class step_executor {
 public:
  // Errors: weights that do not match the model, a KV pool that cannot hold one sequence of
  // max_model_len, num_blocks 0 on a backend without memory figures.
  [[nodiscard]] static result<std::unique_ptr<step_executor>> create(step_executor_config config);
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
  [[nodiscard]] virtual const step_executor_setup& setup() const = 0;
};

}  // namespace pagedserve
