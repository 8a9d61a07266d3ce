#pragma once
// Lifecycle events and per-step statistics: what metrics, logs and tests observe.
// Every event carries the step index it belongs to and the caller's time (no clocks here).
// Step index: the index of the plan being built or whose output is being applied; events
// from add_request/cancel carry the index the next plan will get.

#include <cstdint>
#include <variant>

#include "common/ids.h"
#include "runtime/sched/sequence.h"

namespace pagedserve::sched {

struct event_stamp {
  seq_id seq;
  std::uint64_t step = 0;
  double time = 0.0;
};

struct request_arrived {
  event_stamp at;
};
// Admitted for the first time; num_cached_tokens came from the prefix cache.
struct request_scheduled {
  event_stamp at;
  std::uint32_t num_cached_tokens = 0;
};
struct first_token {
  event_stamp at;
};
struct request_preempted {
  event_stamp at;
  std::uint32_t num_computed_tokens_lost = 0;  // the recompute tax of this preemption
};
// Admitted again after a preemption; its prompt + outputs so far are recomputed as prefill.
struct request_resumed {
  event_stamp at;
  std::uint32_t num_cached_tokens = 0;
};
struct request_finished {
  event_stamp at;
  finish_reason reason = finish_reason::length;
  std::uint32_t num_output_tokens = 0;
};

using scheduler_event = std::variant<request_arrived, request_scheduled, first_token,
                                     request_preempted, request_resumed, request_finished>;

[[nodiscard]] inline const event_stamp& stamp_of(const scheduler_event& event) {
  return std::visit([](const auto& e) -> const event_stamp& { return e.at; }, event);
}

// One step's figures, taken when its plan is built (after allocation).
struct step_stats {
  std::uint64_t step = 0;
  std::uint32_t num_running = 0;    // running after admission (scheduled or not)
  std::uint32_t num_scheduled = 0;  // sequences in the plan
  std::uint32_t num_waiting = 0;    // left waiting (including preempted)
  std::uint32_t num_batched_tokens = 0;
  std::uint32_t num_prefill_tokens = 0;  // batched tokens other than one-token decodes
  std::uint32_t num_preemptions = 0;     // this step
  double kv_usage = 0.0;                 // fraction of the pool in use
  // Over running sequences: tokens whose KV will sit in the cache after this step, and the
  // slots allocated to hold them. Their ratio is the KV utilization (internal waste).
  std::uint64_t num_kv_tokens_held = 0;
  std::uint64_t num_kv_slots_allocated = 0;
  // Prefix cache, over the sequences admitted this step (retried lookups not counted).
  std::uint64_t prefix_queries = 0;  // their tokens
  std::uint64_t prefix_hits = 0;     // of which found cached
};

}  // namespace pagedserve::sched
