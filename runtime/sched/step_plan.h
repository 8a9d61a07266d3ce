#pragma once
// step_plan: what one forward pass computes, built by scheduler::schedule(); step_output:
// what it sampled, handed back to scheduler::update_from_output().
//
// Messages are deltas: a sequence that is new (or resumed after a preemption) is sent with
// all its known tokens and its whole block table once; afterwards it is `continuing` and
// only the blocks appended this step are sent (the executor already holds its tokens,
// including every token it sampled).

#include <cstdint>
#include <optional>
#include <vector>

#include "common/ids.h"
#include "common/types.h"
#include "runtime/sampling/logprobs.h"
#include "runtime/sched/events.h"

namespace pagedserve::sched {

enum class schedule_kind {
  new_sequence,  // first time scheduled: full data
  resumed,       // first step after a preemption: full data again (recompute)
  continuing,    // deltas only
};

struct scheduled_sequence {
  seq_id seq;
  schedule_kind kind = schedule_kind::continuing;
  std::uint32_t first_position = 0;  // == num_computed_tokens before the step
  std::uint32_t num_scheduled_tokens = 0;
  // True when the step's last scheduled position is the sequence's last known token, so
  // the step yields a logit to sample from; false for a non-final prefill chunk.
  bool samples = false;
  // new_sequence/resumed: every known token (prompt + outputs so far). continuing: empty.
  std::vector<token_id> token_ids;
  // new_sequence/resumed: the whole block table. continuing: blocks appended this step.
  // Empty under the static allocator, which places a sequence in one contiguous region.
  std::vector<block_id> block_ids;
  // continuing: the table's length before block_ids are appended. Shorter than the table the
  // executor holds when the scheduler took back lookahead blocks after a speculative step:
  // the executor cuts its copy to this length first. k_table_end: append to the table as is.
  static constexpr std::uint32_t k_table_end = 0xffffffffu;
  std::uint32_t first_block_index = k_table_end;
  // Speculative decoding: lookahead slots after the scheduled token (allocated in the block
  // table) that the executor may fill with proposed tokens and verify in this step; only on
  // an entry that samples one decode token. 0: an ordinary entry.
  std::uint32_t num_speculative_tokens = 0;
};

struct step_plan {
  std::uint64_t step = 0;
  std::vector<scheduled_sequence> scheduled;  // running ones first, then admitted ones
  std::vector<seq_id> preempted;  // preempted while building this plan: drop their state
  std::vector<seq_id> finished;   // finished or cancelled since the previous plan
  std::uint32_t num_batched_tokens = 0;
  step_stats stats;

  [[nodiscard]] bool empty() const { return scheduled.empty(); }
};

struct sampled_token {
  // Not an aggregate, so `{seq, token}` stays the short form where no logprobs are wanted.
  sampled_token() = default;
  sampled_token(seq_id s, token_id t) : seq(s), token(t) {}

  seq_id seq;
  token_id token = 0;
  // Only for sequences whose sampling asked for logprobs (absent costs no allocation): the
  // raw distribution's logprob of `token` and its top alternatives. The scheduler ignores it.
  std::optional<logprobs_result> logprobs;
  // With the sequence's first sample, when its sampling asked for prompt_logprobs: for
  // prompt positions 1..num_prompt_tokens-1 in order, the logprob of the prompt token there
  // (from the logits of the position before). The scheduler ignores it.
  std::vector<logprobs_result> prompt_logprobs;
  // With the first sample of a sequence whose sampling has `pooling`: its prompt's pooled
  // hidden states (api/pooling_params.h). The scheduler ignores it.
  std::vector<float> embedding;
  // Speculative entries, on the first token of the sequence's run: how many proposed tokens
  // the step verified (0 when the proposer had none). The run holds the accepted ones and
  // the token sampled after them.
  std::uint32_t num_draft_tokens = 0;
};

// One run of sampled tokens per scheduled sequence with `samples`, in the plan's order: one
// token, or for an entry with num_speculative_tokens the accepted proposed tokens and the
// token after them (at most num_speculative_tokens + 1, each with its own logprobs). A run
// ends at the first token that stops its sequence (a stop token id or EOS): the executor
// does not return tokens past it.
struct step_output {
  std::uint64_t step = 0;
  std::vector<sampled_token> sampled;
};

}  // namespace pagedserve::sched
