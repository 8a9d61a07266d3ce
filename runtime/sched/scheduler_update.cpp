// scheduler::update_from_output(): the step ran; its computed tokens now have KV, and the
// sequences that sampled grow by one token each and may stop.

#include <algorithm>
#include <optional>

#include "runtime/sched/sched_check.h"
#include "runtime/sched/scheduler.h"

namespace pagedserve::sched {

void scheduler::update_from_output(const step_output& output, double now) {
  sched_check(step_in_flight_, "update_from_output() without a step in flight");
  sched_check(output.step + 1 == next_step_, "step_output of another step than the last plan");
  const std::uint32_t block_size = kv_->block_size();
  std::size_t num_consumed = 0;
  for (tracked* t : in_flight_) {
    const std::uint32_t num_computed = t->num_scheduled;
    std::optional<token_id> token;
    if (t->samples) {
      sched_check(num_consumed < output.sampled.size(), "a sampling sequence has no token");
      const sampled_token& sampled = output.sampled[num_consumed++];
      sched_check(sampled.seq == t->seq.id(), "sampled tokens out of the plan's order");
      token = sampled.token;
    }
    t->num_scheduled = 0;
    t->samples = false;
    t->in_flight = false;
    if (t->seq.is_finished()) continue;  // cancelled while the step ran
    t->seq.advance_computed(num_computed);
    // Only a step that filled a block can give the prefix cache something new.
    const std::uint32_t after = t->seq.num_computed_tokens();
    if (after / block_size != (after - num_computed) / block_size) {
      kv_->commit(t->seq.id(), t->seq.all_token_ids(), after);
    }
    if (token) apply_sampled(*t, *token, now);
  }
  sched_check(num_consumed == output.sampled.size(), "more sampled tokens than sampling entries");
  in_flight_.clear();
  drop_finished();
  step_in_flight_ = false;
}

void scheduler::apply_sampled(tracked& t, token_id token, double now) {
  t.seq.append_output(token);
  if (t.seq.num_output_tokens() == 1) {
    events_.emplace_back(first_token{stamp(t, next_step_ - 1, now)});
  }
  if (const std::optional<finish_reason> reason = t.seq.check_stop(token)) {
    finish(t, *reason, now);
  }
}

// Finished sequences leave the running list in one pass (not one erase each), then die.
// Most steps finish nothing and skip the pass.
void scheduler::drop_finished() {
  if (num_finished_in_update_ > 0) {
    std::erase_if(running_, [](const tracked* t) { return t->seq.is_finished(); });
  }
  num_finished_in_update_ = 0;
  retired_.clear();
}

}  // namespace pagedserve::sched
