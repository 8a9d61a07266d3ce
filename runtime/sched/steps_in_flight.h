#pragma once
// k_max_steps_in_flight: how deep the engine pipelines. The scheduler plans step N+1 while
// step N runs, so at most two steps are planned and not yet applied; the executor keeps as
// many queued and the device sampler rotates one slot more than that (worker/). One
// constant for all three: a deeper pipeline changes them together.

#include <cstddef>

namespace pagedserve {

inline constexpr std::size_t k_max_steps_in_flight = 2;

}  // namespace pagedserve
