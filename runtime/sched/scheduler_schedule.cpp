// scheduler::schedule(): phase 1 (running sequences), phase 2 (waiting sequences), then the
// plan's statistics. Preemption lives here too: it only ever happens while building a plan.

#include <algorithm>
#include <cmath>
#include <utility>

#include "runtime/sched/sched_check.h"
#include "runtime/sched/scheduler.h"

namespace pagedserve::sched {

step_plan scheduler::schedule(double now) {
  step_plan plan;
  schedule(now, plan);
  return plan;
}

void scheduler::schedule(double now, step_plan& plan) {
  sched_check(num_in_flight_ < k_max_steps_in_flight,
              "schedule() with two steps in flight: apply an output first");
  plan.step = next_step_;
  plan.scheduled.clear();
  plan.preempted.clear();
  plan.finished.swap(finished_since_plan_);
  finished_since_plan_.clear();
  plan.num_batched_tokens = 0;
  plan.stats = step_stats{};
  num_decode_tokens_in_plan_ = 0;
  plan.scheduled.reserve(running_.size() + 8);
  planned_.clear();
  token_budget budget{config_.max_num_batched_tokens};
  schedule_running(plan, budget, now);
  if (plan.preempted.empty()) schedule_waiting(plan, budget, now);
  finish_plan(plan);
  record_in_flight(plan.step);
  ++next_step_;
  ++totals_.num_steps;
}

// The plan's entries become the newest step in flight; the tracked fields are free again.
void scheduler::record_in_flight(std::uint64_t step) {
  in_flight_step& rec = in_flight_[(in_flight_head_ + num_in_flight_) % k_max_steps_in_flight];
  ++num_in_flight_;
  rec.step = step;
  rec.seconds.reset();
  rec.speculative = false;
  rec.entries.clear();
  for (tracked* t : planned_) {
    rec.entries.push_back(in_flight_entry{t, t->num_scheduled, t->seq.num_computed_tokens(),
                                          t->seq.num_preemptions(), t->num_speculative,
                                          t->samples});
    t->speculating = t->num_speculative > 0;
    rec.speculative = rec.speculative || t->speculating;
    t->num_scheduled = 0;
    t->num_speculative = 0;
    t->samples = false;
  }
  if (rec.speculative) ++num_speculative_in_flight_;
}

bool scheduler::can_plan() const {
  if (num_speculative_in_flight_ > 0) return false;
  if (!waiting_.empty()) return true;
  return std::any_of(running_.begin(), running_.end(), [](const tracked* t) {
    return t->seq.num_uncomputed_tokens() > 0 && !t->seq.pending_is_last() && !t->speculating;
  });
}

// Tokens `seq` gets this step: its uncomputed tokens, capped by the chunk limit and the
// budget. Every step at most one chunk, so a long prompt spreads over several steps.
std::uint32_t scheduler::num_tokens_to_schedule(const sequence& seq,
                                                const token_budget& budget) const {
  std::uint32_t num_new = seq.num_uncomputed_tokens();
  if (config_.long_prefill_token_threshold > 0) {
    num_new = std::min(num_new, config_.long_prefill_token_threshold);
  }
  return std::min(num_new, budget.num_left);
}

// Phase 1. Iterates over a snapshot because preemption removes sequences from running_;
// a sequence preempted earlier in this walk is skipped.
void scheduler::schedule_running(step_plan& plan, token_budget& budget, double now) {
  if (config_.num_speculative_tokens > 0) plan_speculation(budget);
  running_snapshot_.assign(running_.begin(), running_.end());
  for (tracked* t : running_snapshot_) {
    if (budget.num_left == 0) break;
    if (t->seq.status() != sequence_status::running) continue;
    if (t->seq.pending_is_last()) continue;  // its last token is on its way
    if (t->speculating) continue;            // how many tokens it adds is still unknown
    const std::uint32_t num_new = num_tokens_to_schedule(t->seq, budget);
    if (num_new == 0) continue;
    const std::size_t num_blocks_before = t->num_table_blocks;
    if (!make_room(*t, num_new, plan, budget, now)) continue;
    add_to_plan(*t, schedule_kind::continuing, num_new, num_blocks_before, plan, budget);
    if (t->chosen_depth > 0) add_lookahead(*t, plan, budget);
  }
}

bool scheduler::make_room(tracked& t, std::uint32_t num_new, step_plan& plan, token_budget& budget,
                          double now) {
  const std::uint32_t num_after = t.seq.num_computed_tokens() + num_new;
  if (num_after <= t.num_slots) return true;
  while (!kv_.allocate_slots(t.seq.id(), num_after)) {
    tracked& victim = pick_victim();
    preempt(victim, plan, budget, now);
    if (&victim == &t) return false;
  }
  refresh_allocation(t);
  return true;
}

void scheduler::refresh_allocation(tracked& t) {
  t.num_table_blocks = static_cast<std::uint32_t>(kv_.block_table(t.seq.id()).size());
  t.num_slots = std::uint64_t{t.num_table_blocks} * kv_.block_size();
}

// The last running sequence in policy order: lowest priority (largest value) under the
// priority policy, then newest arrival, then newest sequence id.
scheduler::tracked& scheduler::pick_victim() {
  sched_check(!running_.empty(), "preemption with nothing running");
  const bool by_priority = config_.policy == scheduling_policy::priority;
  auto order = [by_priority](const tracked* a, const tracked* b) {
    const auto key = [by_priority](const tracked* t) {
      return std::tuple(by_priority ? t->seq.priority() : 0, t->seq.arrival_time(),
                        t->seq.id().value());
    };
    return key(a) < key(b);
  };
  return **std::max_element(running_.begin(), running_.end(), order);
}

// Recompute preemption: the victim's blocks go back to the pool (full ones stay in the prefix
// cache), it keeps its generated tokens and waits to be admitted again.
void scheduler::preempt(tracked& victim, step_plan& plan, token_budget& budget, double now) {
  if (victim.num_scheduled > 0) unschedule(victim, plan, budget);
  const std::uint32_t num_lost = victim.seq.num_computed_tokens();
  kv_.free(victim.seq.id());
  victim.num_slots = 0;
  victim.num_table_blocks = 0;
  remove_running(victim);
  victim.seq.preempt();
  enqueue_waiting(victim);
  plan.preempted.push_back(victim.seq.id());
  ++plan.stats.num_preemptions;
  ++totals_.num_preemptions;
  events_.emplace_back(request_preempted{stamp(victim, plan.step, now), num_lost});
}

// Takes an already scheduled victim back out of the plan (priority policy only: under fcfs
// the victim always comes after the sequence being served).
void scheduler::unschedule(tracked& t, step_plan& plan, token_budget& budget) {
  const auto it = std::find_if(plan.scheduled.begin(), plan.scheduled.end(),
                               [&t](const scheduled_sequence& s) { return s.seq == t.seq.id(); });
  sched_check(it != plan.scheduled.end(), "scheduled sequence missing from the plan");
  t.seq.unadvance_computed(t.num_scheduled, t.samples);
  account(*it, t, plan, -1);
  plan.scheduled.erase(it);
  planned_.erase(std::find(planned_.begin(), planned_.end(), &t));
  budget.num_left += t.num_scheduled + t.num_speculative;
  plan.num_batched_tokens -= t.num_scheduled;
  t.num_scheduled = 0;
  t.num_speculative = 0;
  t.samples = false;
}

// Phase 2. Stops at the first sequence that cannot be admitted, so the policy order holds.
void scheduler::schedule_waiting(step_plan& plan, token_budget& budget, double now) {
  while (!waiting_.empty() && budget.num_left > 0 && running_.size() < config_.max_num_seqs) {
    if (!try_admit(*waiting_.begin()->second, plan, budget, now)) break;
  }
}

bool scheduler::try_admit(tracked& t, step_plan& plan, token_budget& budget, double now) {
  // Preempted while its last step ran: resumable once that step's token has arrived.
  if (t.seq.num_pending_outputs() > 0) return false;
  const kv::computed_blocks computed = t.seq.spec().skip_reading_prefix_cache
                                           ? kv::computed_blocks{}
                                           : kv_.get_computed_blocks(t.seq.all_token_ids());
  const std::uint32_t num_cached = computed.num_computed_tokens;
  const std::uint32_t num_uncomputed = t.seq.num_tokens() - num_cached;
  std::uint32_t num_new = std::min(num_uncomputed, budget.num_left);
  if (config_.long_prefill_token_threshold > 0) {
    num_new = std::min(num_new, config_.long_prefill_token_threshold);
  }
  if (!config_.enable_chunked_prefill && num_new < num_uncomputed) return false;
  const std::uint32_t num_after = num_cached + num_new;
  if (!fits_with_watermark(t, num_after, computed)) return false;
  const bool allocated = kv_.allocate_slots(t.seq.id(), num_after, &computed);
  sched_check(allocated, "allocate_slots failed although the blocks were free");
  refresh_allocation(t);

  const bool resumed = t.seq.status() == sequence_status::preempted;
  waiting_.erase(t.key);
  t.seq.start_running(num_cached);
  running_.push_back(&t);
  ++totals_.num_admitted;
  count_prefix_lookup(t.seq.num_tokens(), num_cached, plan.stats);
  if (resumed) {
    events_.emplace_back(request_resumed{stamp(t, plan.step, now), num_cached});
  } else {
    events_.emplace_back(request_scheduled{stamp(t, plan.step, now), num_cached});
  }
  add_to_plan(t, resumed ? schedule_kind::resumed : schedule_kind::new_sequence, num_new, 0, plan,
              budget);
  return true;
}

// Watermark: after admitting `t` at least ceil(watermark * num_blocks) blocks stay free, so
// a fresh admission does not force a preemption at once (vLLM's watermark_blocks). It guards
// running sequences; with none running it could only block forever.
bool scheduler::fits_with_watermark(const tracked& t, std::uint32_t num_after,
                                    const kv::computed_blocks& computed) const {
  const double watermark = running_.empty() ? 0.0 : config_.watermark;
  const auto num_kept =
      static_cast<std::uint64_t>(std::ceil(watermark * static_cast<double>(kv_.num_blocks())));
  const std::uint64_t num_needed = kv_.get_num_blocks_to_allocate(t.seq.id(), num_after, &computed);
  return num_needed + num_kept <= kv_.num_free_blocks();
}

// Prefix-cache figures count admissions, not lookups: the head of the waiting queue is
// looked up again every step it fails to fit, which would inflate the queries.
void scheduler::count_prefix_lookup(std::uint32_t num_tokens, std::uint32_t num_cached,
                                    step_stats& stats) {
  if (!config_.enable_prefix_caching) return;
  stats.prefix_queries += num_tokens;
  stats.prefix_hits += num_cached;
  totals_.prefix_queries += num_tokens;
  totals_.prefix_hits += num_cached;
}

// Appends `t`'s entry. New and resumed sequences carry all their data, continuing ones only
// the blocks appended since `num_blocks_before`.
void scheduler::add_to_plan(tracked& t, schedule_kind kind, std::uint32_t num_new,
                            std::size_t num_blocks_before, step_plan& plan, token_budget& budget) {
  const sequence& seq = t.seq;
  // Built in place: a steady decode entry has no data to copy, only its fields.
  scheduled_sequence& entry = plan.scheduled.emplace_back();
  entry.seq = seq.id();
  entry.kind = kind;
  entry.first_position = seq.num_computed_tokens();
  entry.first_block_index = static_cast<std::uint32_t>(num_blocks_before);
  entry.num_scheduled_tokens = num_new;
  entry.samples =
      seq.num_computed_tokens() + num_new == seq.num_tokens() + seq.num_pending_outputs();
  if (t.num_table_blocks > num_blocks_before) {
    const std::span<const block_id> table = kv_.block_table(seq.id());
    entry.block_ids.assign(table.begin() + static_cast<std::ptrdiff_t>(num_blocks_before),
                           table.end());
  }
  if (kind != schedule_kind::continuing) {
    entry.token_ids.assign(seq.all_token_ids().begin(), seq.all_token_ids().end());
  }
  account(entry, t, plan, +1);
  t.num_scheduled = num_new;
  t.samples = entry.samples;
  t.seq.advance_computed(num_new, entry.samples);
  planned_.push_back(&t);
  budget.num_left -= num_new;
  plan.num_batched_tokens += num_new;
}

// Adds (sign +1) or takes back (sign -1, unschedule) one entry's share of the plan's
// statistics. Counted while the entry is built, when its sequence is still in the cache.
void scheduler::account(const scheduled_sequence& entry, const tracked& t, step_plan& plan,
                        int sign) {
  // A decode feeds back the one sampled token that is not yet computed (it may still be
  // pending). Evaluated with the sequence as before the entry was planned.
  const bool decode =
      entry.num_scheduled_tokens == 1 &&
      entry.first_position + 1 == t.seq.num_tokens() + t.seq.num_pending_outputs() &&
      entry.first_position >= t.seq.num_prompt_tokens();
  const auto num_prefill =
      static_cast<std::uint32_t>(entry.num_scheduled_tokens - (decode ? 1 : 0));
  const std::uint64_t num_held = entry.first_position + entry.num_scheduled_tokens;
  step_stats& stats = plan.stats;
  if (sign > 0) {
    stats.num_prefill_tokens += num_prefill;
    stats.num_kv_tokens_held += num_held;
    stats.num_kv_slots_allocated += t.num_slots;
    num_decode_tokens_in_plan_ += decode ? 1 : 0;
  } else {
    stats.num_prefill_tokens -= num_prefill;
    stats.num_kv_tokens_held -= num_held;
    stats.num_kv_slots_allocated -= t.num_slots;
    num_decode_tokens_in_plan_ -= decode ? 1 : 0;
  }
}

// Statistics of the finished plan; the scheduled entries were counted by account().
void scheduler::finish_plan(step_plan& plan) {
  step_stats& stats = plan.stats;
  stats.step = plan.step;
  stats.num_running = static_cast<std::uint32_t>(running_.size());
  stats.num_scheduled = static_cast<std::uint32_t>(plan.scheduled.size());
  stats.num_waiting = static_cast<std::uint32_t>(waiting_.size());
  stats.num_batched_tokens = plan.num_batched_tokens;
  stats.kv_usage = kv_.usage();
  sched_check(planned_.size() == plan.scheduled.size(), "planned list out of step");
  // Running sequences left out of this step (budget spent) hold KV too; usually none.
  if (running_.size() > planned_.size()) {
    for (const tracked* t : running_) {
      if (t->num_scheduled > 0) continue;
      stats.num_kv_tokens_held += t->seq.num_computed_tokens();
      stats.num_kv_slots_allocated += t->num_slots;
    }
  }
  totals_.num_prefill_tokens += stats.num_prefill_tokens;
  totals_.num_decode_tokens += num_decode_tokens_in_plan_;
}

}  // namespace pagedserve::sched
