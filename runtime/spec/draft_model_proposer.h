#pragma once
// draft_model_proposer: speculative decoding's draft_model method. A smaller model that
// shares the target's tokenizer proposes greedily, one token per forward, for every
// speculating sequence of a step at once (one batched draft forward per proposed position).
//
// Its K/V live in the target's block pool: the draft has its own paged_kv_cache with the
// pool's num_blocks and block_size, indexed by the same block tables, so the scheduler's
// blocks (and their lookahead slots, and the blocks given back after rejections) hold both
// models' K/V at once and nothing else allocates (vLLM does the same: the draft's layers
// share the target's block table). The pool's bytes per block count both (engine_plan).
//
// Which of the draft's positions are valid is the caller's count per sequence
// (draft_request::num_computed): the draft catches up from there to the sequence's last
// token in its first forward, then feeds each proposal back. Verification needs nothing
// more: a run keeps some proposals (fed, valid) and ends with a token the draft did not
// feed, at the first position that may hold a rejected proposal's K/V, and the last token is
// always recomputed; so the count may run past the sequence. A sequence given new blocks
// (new, resumed) starts again from 0: prefix-cached
// blocks hold the target's K/V but not necessarily the draft's, so the draft recomputes its
// own over the cached positions (the same values whoever writes them: harmless to a
// sequence that shares the block).

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "common/ids.h"
#include "common/types.h"
#include "runtime/forward/model_forward.h"
#include "runtime/forward/paged_kv_cache.h"

namespace pagedserve::spec {

struct draft_request {
  // Prompt and outputs; the last one is the token the target decodes in this step.
  std::span<const token_id> tokens;
  // Covers positions [0, tokens.size() - 1 + max_tokens): the step's lookahead slots.
  std::span<const block_id> block_table;
  std::uint32_t max_tokens = 0;
  // In: the positions whose draft K/V are valid, up to the last token (which is always
  // recomputed). Out: the positions fed to the draft (tokens and all proposals but the last).
  std::uint32_t num_computed = 0;
  std::vector<token_id> proposed;  // out: max_tokens tokens
};

class draft_model_proposer {
 public:
  // `cache` must have the target pool's num_blocks and block_size, and the draft's layout.
  draft_model_proposer(std::unique_ptr<forward::model_forward> draft,
                       std::unique_ptr<forward::paged_kv_cache> cache);

  // Fills every request's proposal (requests with max_tokens 0 are left alone).
  void propose(std::span<draft_request> requests);
  // Feeds every request's tokens past its num_computed, proposing nothing (max_tokens and
  // the last-token rule do not apply: every token given must have a slot in the table).
  // The executor runs it in the step that completes a prompt, so the draft prefills with
  // the target and a sequence's first proposals cost no more than its later ones.
  void catch_up(std::span<draft_request> requests);

  [[nodiscard]] const forward::model_forward& model() const { return *draft_; }

 private:
  std::unique_ptr<forward::model_forward> draft_;
  std::unique_ptr<forward::paged_kv_cache> cache_;
};

}  // namespace pagedserve::spec
