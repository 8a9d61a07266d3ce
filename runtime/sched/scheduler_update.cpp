// scheduler::update_from_output(): the step ran; its computed tokens now have KV, and the
// sequences that sampled grow by one token each and may stop.

#include <algorithm>
#include <optional>

#include "runtime/sched/sched_check.h"
#include "runtime/sched/scheduler.h"

namespace pagedserve::sched {

void scheduler::update_from_output(const step_output& output, double now) {
  sched_check(num_in_flight_ > 0, "update_from_output() without a step in flight");
  in_flight_step& rec = oldest_in_flight();
  sched_check(output.step == rec.step, "step_output of another step than the oldest in flight");
  applying_step_ = rec.step;
  const std::span<const sampled_token> sampled = output.sampled;
  std::size_t num_consumed = 0;
  for (const in_flight_entry& entry : rec.entries) {
    std::span<const sampled_token> run;
    if (entry.samples) {
      sched_check(num_consumed < sampled.size(), "a sampling sequence has no token");
      const seq_id seq = entry.t->seq.id();
      sched_check(sampled[num_consumed].seq == seq, "sampled tokens out of the plan's order");
      std::size_t end = num_consumed + 1;
      while (end < sampled.size() && sampled[end].seq == seq) ++end;
      sched_check(end - num_consumed <= std::size_t{entry.num_speculative} + 1 &&
                      sampled[num_consumed].num_draft_tokens <= entry.num_speculative,
                  "more speculative tokens than lookahead slots");
      run = sampled.subspan(num_consumed, end - num_consumed);
      num_consumed = end;
    }
    apply_entry(entry, run, now);
  }
  sched_check(num_consumed == sampled.size(), "more sampled tokens than sampling entries");
  observe_applied_step(rec, sampled);
  if (rec.speculative) --num_speculative_in_flight_;
  rec.entries.clear();
  in_flight_head_ = (in_flight_head_ + 1) % k_max_steps_in_flight;
  --num_in_flight_;
  drop_finished();
  free_retired(*applying_step_);
  applying_step_.reset();
}

std::vector<seq_id> scheduler::abort_step(std::uint64_t step, double now) {
  sched_check(num_in_flight_ > 0, "abort_step() without a step in flight");
  in_flight_step& rec = oldest_in_flight();
  sched_check(step == rec.step, "abort_step() of another step than the oldest in flight");
  applying_step_ = rec.step;
  std::vector<seq_id> aborted;
  for (const in_flight_entry& entry : rec.entries) {
    tracked& t = *entry.t;
    if (t.seq.is_finished()) continue;
    aborted.push_back(t.seq.id());
    // Its tokens sampled by this step never come: nothing of it may be planned again.
    if (t.seq.status() == sequence_status::preempted) waiting_.erase(t.key);
    finish(t, finish_reason::error, now);
  }
  if (rec.speculative) --num_speculative_in_flight_;
  rec.entries.clear();
  in_flight_head_ = (in_flight_head_ + 1) % k_max_steps_in_flight;
  --num_in_flight_;
  drop_finished();
  free_retired(step);
  applying_step_.reset();
  return aborted;
}

// One entry of the step being applied and its run of sampled tokens (empty when it does
// not sample). Its KV is now written: full blocks go to the prefix cache, unless the
// sequence lost them to a preemption planned after this step. A run ends at its first stop
// (step_plan.h), so every token of it belongs to the sequence.
void scheduler::apply_entry(const in_flight_entry& entry, std::span<const sampled_token> run,
                            double now) {
  tracked& t = *entry.t;
  if (entry.num_speculative > 0) t.speculating = false;
  if (t.seq.is_finished()) return;  // cancelled or stopped since this step was planned
  const bool same_blocks =
      t.seq.status() == sequence_status::running && t.seq.num_preemptions() == entry.incarnation;
  std::optional<finish_reason> stop;
  for (std::size_t i = 0; i < run.size(); ++i) {
    sched_check(!stop, "a sampled token after the one that stopped its sequence");
    stop = apply_sampled(t, run[i].token, i == 0, now);
  }
  const std::uint32_t block_size = kv_.block_size();
  const std::uint32_t before = entry.num_computed_after - entry.num_scheduled;
  // Accepted proposed tokens computed their positions too.
  const std::uint32_t after =
      entry.num_computed_after + static_cast<std::uint32_t>(run.empty() ? 0 : run.size() - 1);
  // Only a step that filled a block can give the prefix cache something new.
  if (same_blocks && after / block_size != before / block_size) {
    kv_.cache_blocks(t.seq.id(), t.seq.all_token_ids(), after);
  }
  if (stop) {
    end_by_stop(t, *stop, now);
  } else if (entry.num_speculative > 0 && !run.empty() && same_blocks) {
    after_speculative_run(entry, run);
  }
}

std::optional<finish_reason> scheduler::apply_sampled(tracked& t, token_id token, bool first,
                                                      double now) {
  if (first) {
    t.seq.append_output(token);
  } else {
    t.seq.append_speculated(token);
  }
  if (t.seq.num_output_tokens() == 1) {
    events_.emplace_back(first_token{stamp(t, event_step(), now)});
  }
  return t.seq.check_stop(token);
}

void scheduler::end_by_stop(tracked& t, finish_reason reason, double now) {
  // Preempted while this step ran: it waits to resume, and stops from the queue instead.
  if (t.seq.status() == sequence_status::preempted) waiting_.erase(t.key);
  finish(t, reason, now);
}

// Finished sequences leave the running list in one pass (not one erase each), then die.
// Most steps finish nothing and skip the pass.
void scheduler::drop_finished() {
  if (num_finished_in_update_ > 0) {
    std::erase_if(running_, [](const tracked* t) { return t->seq.is_finished(); });
  }
  num_finished_in_update_ = 0;
}

void scheduler::free_retired(std::uint64_t applied_step) {
  std::erase_if(retired_,
                [applied_step](const retired_sequence& r) { return r.last_step <= applied_step; });
}

}  // namespace pagedserve::sched
