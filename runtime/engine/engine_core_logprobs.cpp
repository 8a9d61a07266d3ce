// engine_core's logprobs: a sampled token's, and the prompt's with a sequence's first sample.

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "runtime/engine/engine_core.h"
#include "runtime/engine/engine_core_state.h"

namespace pagedserve {

// The stream never holds token ids back (only text), so a chunk carries the one token just
// sampled (or none, past a stop): its logprobs line up with token_ids one to one.
void engine_core_base::attach_logprobs(const completion& c, const sched::sampled_token& sampled,
                                       token_chunk& chunk) const {
  if (chunk.token_ids.empty()) return;
  if (!sampled.logprobs) {
    std::fprintf(stderr,
                 "pagedserve::engine_core: request %llu asked for logprobs but the executor sent "
                 "none for sequence %llu\n",
                 static_cast<unsigned long long>(c.owner->id.value()),
                 static_cast<unsigned long long>(sampled.seq.value()));
    std::abort();
  }
  chunk.logprobs.push_back(chunk_logprob{sampled.token, sampled.logprobs->chosen_logprob,
                                         sampled.logprobs->top, sampled.logprobs->chosen_rank});
}

// The executor's prompt logprobs cover positions 1.. of the prompt, in order.
void engine_core_base::attach_prompt_logprobs(const completion& c,
                                              const sched::sampled_token& sampled,
                                              token_chunk& chunk) const {
  const std::vector<token_id>& prompt = c.owner->prompt_ids;
  chunk.prompt_logprobs.reserve(sampled.prompt_logprobs.size());
  for (std::size_t i = 0; i < sampled.prompt_logprobs.size() && i + 1 < prompt.size(); ++i) {
    const logprobs_result& lp = sampled.prompt_logprobs[i];
    chunk.prompt_logprobs.push_back(
        chunk_logprob{prompt[i + 1], lp.chosen_logprob, lp.top, lp.chosen_rank});
  }
}

}  // namespace pagedserve
