#pragma once
// shutdown_report: what an engine's shutdown did (engine::shutdown, shutdown_atom).

#include <cstdint>

namespace pagedserve {

struct shutdown_report {
  std::uint64_t num_drained = 0;        // finished normally during the drain
  std::uint64_t num_cancelled = 0;      // cancelled when the timeout passed
  std::uint64_t num_leaked_blocks = 0;  // blocks not back in the pool afterwards: must be 0
  bool timed_out = false;
};

}  // namespace pagedserve
