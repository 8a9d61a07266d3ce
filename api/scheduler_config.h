#pragma once
// scheduler_config: the knobs of the continuous-batching loop, fixed at construction
// (names follow vLLM's where the meaning is the same).

#include <cstdint>
#include <string_view>

#include "common/result.h"

namespace pagedserve::sched {

// Order of the waiting queue and choice of preemption victim.
//   fcfs:     by arrival time; a preempted sequence goes back to the front of waiting.
//   priority: by (priority, arrival time); a SMALLER priority value is served first and
//             preempted last (vLLM's convention).
enum class scheduling_policy { fcfs, priority };

struct scheduler_config {
  std::uint32_t max_num_seqs = 256;             // running sequences per step
  std::uint32_t max_num_batched_tokens = 8192;  // token budget per step
  std::uint32_t max_model_len = 2048;           // prompt + output tokens of one sequence
  std::uint32_t block_size = 16;                // tokens per KV block
  std::uint32_t num_blocks = 0;                 // KV blocks in the pool
  bool enable_prefix_caching = true;
  scheduling_policy policy = scheduling_policy::fcfs;
  // Fraction of blocks kept free when admitting waiting sequences while others run, so a
  // fresh admission does not immediately force a preemption (thrashing).
  double watermark = 0.01;
  // Without chunked prefill a sequence is admitted only if all its uncomputed tokens fit in
  // this step's budget.
  bool enable_chunked_prefill = true;
  // Most tokens one sequence may be scheduled in one step (0: no limit beyond the budget).
  // Keeps one long prompt from taking the whole budget while decodes wait.
  std::uint32_t long_prefill_token_threshold = 0;
  // Speculative decoding (api/speculative_config.h): the most lookahead slots a decoding
  // sequence gets per step for proposed tokens (0: off). Set by the engine plan from the
  // speculative_config; not a key of its own.
  std::uint32_t num_speculative_tokens = 0;
  // false: every decoding sequence gets num_speculative_tokens slots (as the budget, the
  // free blocks and max_tokens allow), whatever they cost (speculative_config::adaptive).
  bool adaptive_speculation = true;
};

// Rejects configurations that could never schedule anything or contradict themselves.
[[nodiscard]] status validate(const scheduler_config& config);

[[nodiscard]] std::string_view to_string(scheduling_policy policy);

}  // namespace pagedserve::sched
