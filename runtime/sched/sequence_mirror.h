#pragma once
// sequence_mirror: an executor's copy of one scheduled sequence, kept from the step plans'
// deltas alone (step_plan.h): every known token, the whole block table, and how many
// positions have their K/V computed. The model executor (runtime/engine) and the
// simulator's fake_executor both keep their sequences this way; each adds its own state
// (sampler, hash) by deriving from it.
//
// A new or resumed entry loads the mirror with its full data (positions before
// first_position are the prefix cache's, computed already); a continuing entry appends its
// new blocks. Either way the entry then advances num_computed past its scheduled tokens.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/ids.h"
#include "common/types.h"
#include "runtime/sched/step_plan.h"

namespace pagedserve::sched {

struct sequence_mirror {
  bool loaded = false;
  std::vector<token_id> tokens;       // prompt + outputs, including what the executor sampled
  std::vector<block_id> block_table;  // the whole table
  std::uint32_t num_computed = 0;     // positions whose K/V are in the cache (or queued)

  // Preempted: the tokens and the table go (the next entry is `resumed`, with full data).
  void unload();

  // Takes `entry`'s data and advances num_computed to the entry's end. Returns why the
  // entry contradicts the mirror (then nothing of it is taken past the load), or nullopt.
  [[nodiscard]] std::optional<std::string> apply(const scheduled_sequence& entry,
                                                 std::uint32_t block_size);
};

}  // namespace pagedserve::sched
