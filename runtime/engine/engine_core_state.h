#pragma once
// engine_core's per-request state (internal to runtime/engine): what engine_core.cpp and
// its companion files (engine_core_logprobs.cpp) share.

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "runtime/engine/engine_core.h"
#include "runtime/engine/output_stream.h"

namespace pagedserve {

// One of a request's n sequences. Lives inside its request_state.
struct engine_core_base::completion {
  request_state* owner = nullptr;
  std::uint32_t index = 0;
  seq_id seq;           // its one id: the scheduler's, the executor's, the block table's
  bool queued = false;  // handed to the scheduler
  std::unique_ptr<output_stream> stream;
  std::uint32_t num_generated = 0;
  std::uint32_t num_cached_tokens = 0;
  std::optional<double> first_scheduled;  // the first step that scheduled it (queue time)
  bool done = false;
};

struct engine_core_base::request_state {
  request_id id;
  generation_request request;  // prompt moved out into prompt_ids
  std::vector<token_id> prompt_ids;
  std::vector<completion> completions;
  std::uint32_t num_done = 0;
  double arrival_time = 0.0;     // engine_core::add's `now`
  compiled_grammar_ptr grammar;  // sampling.structured_outputs compiled; null without
};

}  // namespace pagedserve
