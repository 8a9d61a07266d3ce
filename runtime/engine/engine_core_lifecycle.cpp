// engine_core's request_lifecycle events, for the requests that set report_lifecycle: the
// scheduler's events become lifecycle events, held in a lifecycle_queue until the output of
// their step is applied, then sent before that step's tokens. See request_lifecycle.h.

#include "runtime/engine/engine_core.h"

namespace pagedserve {

void engine_core_base::hold_lifecycle(request_id request, std::uint32_t index,
                                      const sched::scheduler_event& e) {
  if (auto lifecycle = lifecycle_of(e, request, index)) lifecycle_.hold(*lifecycle);
}

void engine_core_base::release_lifecycle(std::uint64_t step, std::vector<event>& events) {
  if (lifecycle_.empty()) return;
  lifecycle_scratch_.clear();
  lifecycle_.release(step, lifecycle_scratch_);
  for (const request_lifecycle& held : lifecycle_scratch_) push_lifecycle(held, events);
}

// What the completion still has held (up to the step that ended it), then `finished`: its
// last event, right before its final. at_ is the apply, fail or cancel running now.
void engine_core_base::report_finished(request_id request, std::uint32_t index,
                                       std::vector<event>& events) {
  lifecycle_scratch_.clear();
  lifecycle_.release_completion(request, index, at_.step, lifecycle_scratch_);
  for (const request_lifecycle& held : lifecycle_scratch_) push_lifecycle(held, events);
  request_lifecycle finished;
  finished.request = request;
  finished.index = index;
  finished.stage = lifecycle_stage::finished;
  finished.step = at_.step;
  finished.time = at_.time;
  push_lifecycle(finished, events);
}

void engine_core_base::push_lifecycle(const request_lifecycle& lifecycle,
                                      std::vector<event>& events) {
  event& e = events.emplace_back();  // built in place, as emit_token's chunks (GCC 12)
  e.request = lifecycle.request;
  e.payload.emplace<request_lifecycle>(lifecycle);
}

}  // namespace pagedserve
