// draft_model_proposer (draft_model_proposer.h): round 0 feeds every request the tokens its
// draft K/V lack (a catch-up, the whole prompt the first time) and proposes one token from
// the last row; round r feeds proposal r - 1 back at its position and proposes token r.
// Requests that want fewer tokens leave the batch early.

#include "runtime/spec/draft_model_proposer.h"

#include <algorithm>
#include <utility>

#include "runtime/sampling/sampler.h"

namespace pagedserve::spec {

draft_model_proposer::draft_model_proposer(std::unique_ptr<forward::model_forward> draft,
                                           std::unique_ptr<forward::paged_kv_cache> cache)
    : draft_(std::move(draft)), cache_(std::move(cache)) {}

void draft_model_proposer::propose(std::span<draft_request> requests) {
  std::vector<draft_request*> active;
  for (draft_request& r : requests) {
    r.proposed.clear();
    if (r.max_tokens > 0 && !r.tokens.empty()) active.push_back(&r);
  }
  forward::forward_batch batch;
  for (std::uint32_t round = 0; !active.empty(); ++round) {
    batch.sequences.clear();
    for (draft_request* r : active) {
      const auto end = static_cast<std::uint32_t>(r->tokens.size());
      if (round == 0) {
        const std::uint32_t from = std::min(r->num_computed, end - 1);
        batch.sequences.push_back({r->tokens.subspan(from), from, r->block_table});
        r->num_computed = end;
      } else {
        batch.sequences.push_back(
            {std::span<const token_id>(&r->proposed.back(), 1), r->num_computed, r->block_table});
        ++r->num_computed;
      }
    }
    const forward::forward_output out = draft_->run(batch, *cache_);
    std::size_t kept = 0;
    for (std::size_t i = 0; i < active.size(); ++i) {
      draft_request* r = active[i];
      r->proposed.push_back(greedy_sample(out.last(i)));
      if (r->proposed.size() < r->max_tokens) active[kept++] = r;
    }
    active.resize(kept);
  }
}

void draft_model_proposer::catch_up(std::span<draft_request> requests) {
  forward::forward_batch batch;
  for (draft_request& r : requests) {
    r.proposed.clear();
    if (r.num_computed >= r.tokens.size()) continue;
    batch.sequences.push_back({r.tokens.subspan(r.num_computed), r.num_computed, r.block_table});
    r.num_computed = static_cast<std::uint32_t>(r.tokens.size());
  }
  if (!batch.sequences.empty()) (void)draft_->run(batch, *cache_);
}

}  // namespace pagedserve::spec
