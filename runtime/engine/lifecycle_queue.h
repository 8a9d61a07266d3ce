#pragma once
// lifecycle_queue: the request_lifecycle events of the completions that asked for them,
// held until the step they belong to has been applied (engine_core's part of the ordering
// in request_lifecycle.h).
//
// Why hold them: the scheduler decides admissions and preemptions while it *plans* a step,
// up to two steps ahead of the outputs being applied. A preemption planned for step N+1
// must not overtake the token that step N (already running) still delivers to the same
// completion, and an admission planned for step N must not wait past step N's first token.
// So an event of step S leaves with the output of step S, before that output's tokens.

#include <cstdint>
#include <optional>
#include <vector>

#include "api/request_lifecycle.h"
#include "common/ids.h"
#include "runtime/sched/events.h"

namespace pagedserve {

// The client's view of a scheduler event of completion `index` of `request`: nothing for
// first_token (the chunk says it) and request_finished (engine_core reports the end itself,
// right before the final, whoever decided it).
[[nodiscard]] std::optional<request_lifecycle> lifecycle_of(const sched::scheduler_event& event,
                                                            request_id request,
                                                            std::uint32_t index);

class lifecycle_queue {
 public:
  [[nodiscard]] bool empty() const { return held_.empty(); }
  void hold(const request_lifecycle& event) { held_.push_back(event); }

  // Appends to `out`, in the order they were held, the events of a step <= `step`.
  void release(std::uint64_t step, std::vector<request_lifecycle>& out);
  // A completion ends at `step`: its events up to `step` go to `out`, later ones (a
  // preemption planned after the step that ended it) are dropped.
  void release_completion(request_id request, std::uint32_t index, std::uint64_t step,
                          std::vector<request_lifecycle>& out);

 private:
  std::vector<request_lifecycle> held_;  // in the order the scheduler reported them
};

}  // namespace pagedserve
