// The scheduler's side of speculative decoding (config num_speculative_tokens > 0): which
// decoding sequences get lookahead slots and how many (speculation_depth.h), and what a
// speculative step's output does to them: several tokens at once, the acceptance record,
// and the lookahead blocks that rejected tokens leave unused going back to the pool.
//
// No step is planned behind one with lookahead slots until its output is applied (how many
// tokens its speculating sequences add is unknown before; a step planned without them would
// leave them out, and they would run every other step). Steps without slots keep two in
// flight as before.

#include <algorithm>

#include "runtime/sched/sched_check.h"
#include "runtime/sched/scheduler.h"

namespace pagedserve::sched {

// A running sequence whose next step decodes one token (its last sampled one, possibly
// still pending) and may have proposed tokens verified after it.
bool scheduler::may_speculate(const tracked& t) const {
  const sequence& seq = t.seq;
  return seq.status() == sequence_status::running && !t.speculating && !seq.pending_is_last() &&
         seq.num_uncomputed_tokens() == 1 &&
         seq.num_output_tokens() + seq.num_pending_outputs() > 0;
}

// Chooses every running sequence's depth for the plan being built (tracked::chosen_depth).
// The step's other tokens: every running sequence's next chunk, as phase 1 will give them.
void scheduler::plan_speculation(const token_budget& budget) {
  depth_candidates_.clear();
  depth_sequences_.clear();
  std::uint64_t num_other = 0;
  for (tracked* t : running_) {
    t->chosen_depth = 0;
    if (t->speculating || t->seq.pending_is_last()) continue;
    num_other += num_tokens_to_schedule(t->seq, budget);
    if (!may_speculate(*t)) continue;
    const sequence& seq = t->seq;
    // Tokens this step may add: max_tokens less the outputs known and pending, less the one
    // it samples anyway.
    const std::uint32_t left =
        seq.spec().max_tokens - seq.num_output_tokens() - seq.num_pending_outputs();
    depth_candidates_.push_back({t->acceptance.rate(), left > 0 ? left - 1 : 0});
    depth_sequences_.push_back(t);
  }
  const auto other =
      static_cast<std::uint32_t>(std::min<std::uint64_t>(num_other, budget.num_left));
  if (config_.adaptive_speculation) {
    depth_.choose(depth_candidates_, other, depth_choice_);
  } else {
    depth_choice_.clear();
    for (const speculation_depth::candidate& c : depth_candidates_) {
      depth_choice_.push_back(std::min(c.max_depth, config_.num_speculative_tokens));
    }
  }
  for (std::size_t i = 0; i < depth_sequences_.size(); ++i) {
    tracked& t = *depth_sequences_[i];
    t.chosen_depth = depth_choice_[i];
    if (t.chosen_depth == 0) t.acceptance.fade();
  }
}

// Gives the entry just added for `t` its lookahead slots: as many of the chosen depth as
// the budget and the free blocks allow (lookahead never preempts anyone).
void scheduler::add_lookahead(tracked& t, step_plan& plan, token_budget& budget) {
  scheduled_sequence& entry = plan.scheduled.back();
  sched_check(entry.seq == t.seq.id(), "lookahead for another sequence than the last entry");
  std::uint32_t depth = std::min(t.chosen_depth, budget.num_left);
  t.chosen_depth = 0;
  if (!entry.samples || entry.num_scheduled_tokens != 1) return;
  const std::uint32_t computed = t.seq.num_computed_tokens();
  while (depth > 0 && !kv_.can_allocate(t.seq.id(), computed + depth)) --depth;
  if (depth == 0) return;
  const std::size_t num_blocks_before = t.num_table_blocks;
  const bool allocated = kv_.allocate_slots(t.seq.id(), computed + depth);
  sched_check(allocated, "lookahead allocation failed although it fit");
  refresh_allocation(t);
  const std::span<const block_id> table = kv_.block_table(t.seq.id());
  entry.block_ids.insert(entry.block_ids.end(),
                         table.begin() + static_cast<std::ptrdiff_t>(num_blocks_before),
                         table.end());
  entry.num_speculative_tokens = depth;
  t.num_speculative = depth;
  budget.num_left -= depth;
}

// After a speculative entry's run was applied to a sequence still running on the same
// blocks: acceptance is recorded and the blocks past its tokens (lookahead that rejected
// proposals left unused) go back to the pool; the next entry tells the executor.
void scheduler::after_speculative_run(const in_flight_entry& entry,
                                      std::span<const sampled_token> run) {
  tracked& t = *entry.t;
  t.speculating = false;
  const std::uint32_t num_proposed = run.front().num_draft_tokens;
  if (num_proposed > 0) {
    const auto num_accepted = static_cast<std::uint32_t>(run.size() - 1);
    t.acceptance.observe(num_accepted);
    engine_acceptance_.observe(num_accepted);
    depth_.observe_run(num_proposed, num_accepted);
  }
  if (t.seq.status() != sequence_status::running) return;
  kv_.trim_slots(t.seq.id(), t.seq.num_tokens());
  refresh_allocation(t);
}

void scheduler::observe_step_time(double seconds, double idle_before_s) {
  if (config_.num_speculative_tokens == 0) return;
  if (verifying_step_cost_) {
    const auto [num_tokens, busy] = *verifying_step_cost_;
    depth_.observe_step(num_tokens, busy + idle_before_s, true);
    verifying_step_cost_.reset();
  }
  if (num_in_flight_ > 0) oldest_in_flight().seconds = seconds;
}

// The tokens a step computed: its scheduled tokens and the proposed tokens it verified.
void scheduler::observe_applied_step(const in_flight_step& rec,
                                     std::span<const sampled_token> sampled) {
  if (!rec.seconds) return;
  std::uint64_t num_tokens = 0;
  std::uint64_t num_proposed = 0;
  for (const in_flight_entry& e : rec.entries) num_tokens += e.num_scheduled;
  for (const sampled_token& s : sampled) num_proposed += s.num_draft_tokens;
  const auto n =
      static_cast<std::uint32_t>(std::min<std::uint64_t>(num_tokens + num_proposed, UINT32_MAX));
  if (num_proposed > 0) {
    verifying_step_cost_.emplace(n, *rec.seconds);  // completed by the next step's wait
  } else {
    depth_.observe_step(n, *rec.seconds, false);
  }
}

}  // namespace pagedserve::sched
