#pragma once
// request_lifecycle: where one completion is in the engine, for a client that asked
// (generation_request::report_lifecycle). A plain struct (no CAF); actors/ inspects it.
//
// Per completion the sink receives, interleaved with its token_chunks:
//
//   queued -> scheduled -> [preempted -> resumed]* -> finished -> request_final
//
// - queued: handed to the scheduler (completion 0 on submit; with n > 1 its siblings when
//   completion 0's first token arrives). A sibling that never starts has no queued.
// - scheduled: admitted for the first time; num_cached_tokens of its prompt were found in
//   the prefix cache.
// - preempted: its KV blocks went back to the pool (recompute preemption);
//   num_computed_tokens_lost is what must be computed again.
// - resumed: admitted again; num_cached_tokens of its prompt + output so far came from the
//   prefix cache (the rest is recomputed).
// - finished: always the last event, immediately before the completion's request_final
//   (which carries the reason); it gives the step and time of the end.
//
// Ordering: an event belongs to a step (`step`); the engine holds it until that step's
// output is applied, then sends it before that step's tokens. So `scheduled` precedes the
// first token, no token arrives between `preempted` and `resumed`, and a completion's
// events have non-decreasing steps.

#include <cstdint>
#include <string_view>

#include "common/ids.h"

namespace pagedserve {

enum class lifecycle_stage : std::uint8_t { queued, scheduled, preempted, resumed, finished };

struct request_lifecycle {
  request_id request;
  std::uint32_t index = 0;  // which of the n completions
  lifecycle_stage stage = lifecycle_stage::queued;
  std::uint32_t num_cached_tokens = 0;         // scheduled, resumed: from the prefix cache
  std::uint32_t num_computed_tokens_lost = 0;  // preempted: to be computed again
  // The engine step this happened in (for queued and a cancel: the next step to be planned).
  std::uint64_t step = 0;
  // The engine's clock: seconds since the engine started (the `now` of engine_core's calls).
  double time = 0.0;
};

// "queued", "scheduled", "preempted", "resumed", "finished".
[[nodiscard]] constexpr std::string_view to_string(lifecycle_stage stage) {
  switch (stage) {
    case lifecycle_stage::queued:
      return "queued";
    case lifecycle_stage::scheduled:
      return "scheduled";
    case lifecycle_stage::preempted:
      return "preempted";
    case lifecycle_stage::resumed:
      return "resumed";
    case lifecycle_stage::finished:
      return "finished";
  }
  return "unknown";
}

}  // namespace pagedserve
