#include "runtime/engine/lifecycle_queue.h"

#include <algorithm>
#include <type_traits>
#include <variant>

namespace pagedserve {
namespace {

request_lifecycle make(const sched::event_stamp& at, request_id request, std::uint32_t index,
                       lifecycle_stage stage) {
  request_lifecycle out;
  out.request = request;
  out.index = index;
  out.stage = stage;
  out.step = at.step;
  out.time = at.time;
  return out;
}

}  // namespace

std::optional<request_lifecycle> lifecycle_of(const sched::scheduler_event& event,
                                              request_id request, std::uint32_t index) {
  return std::visit(
      [&](const auto& e) -> std::optional<request_lifecycle> {
        using type = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<type, sched::request_arrived>) {
          return make(e.at, request, index, lifecycle_stage::queued);
        } else if constexpr (std::is_same_v<type, sched::request_scheduled>) {
          request_lifecycle out = make(e.at, request, index, lifecycle_stage::scheduled);
          out.num_cached_tokens = e.num_cached_tokens;
          return out;
        } else if constexpr (std::is_same_v<type, sched::request_preempted>) {
          request_lifecycle out = make(e.at, request, index, lifecycle_stage::preempted);
          out.num_computed_tokens_lost = e.num_computed_tokens_lost;
          return out;
        } else if constexpr (std::is_same_v<type, sched::request_resumed>) {
          request_lifecycle out = make(e.at, request, index, lifecycle_stage::resumed);
          out.num_cached_tokens = e.num_cached_tokens;
          return out;
        } else {
          return std::nullopt;  // first_token, request_finished
        }
      },
      event);
}

void lifecycle_queue::release(std::uint64_t step, std::vector<request_lifecycle>& out) {
  // Stable: what stays keeps its order, what leaves goes out in order.
  const auto kept = std::stable_partition(
      held_.begin(), held_.end(), [step](const request_lifecycle& e) { return e.step > step; });
  out.insert(out.end(), kept, held_.end());
  held_.erase(kept, held_.end());
}

void lifecycle_queue::release_completion(request_id request, std::uint32_t index,
                                         std::uint64_t step, std::vector<request_lifecycle>& out) {
  std::erase_if(held_, [&](const request_lifecycle& e) {
    if (e.request != request || e.index != index) return false;
    if (e.step <= step) out.push_back(e);
    return true;
  });
}

}  // namespace pagedserve
