// scheduler: construction, admission of requests, cancellation and shared helpers.
// The phases of schedule() live in scheduler_schedule.cpp, update_from_output() in
// scheduler_update.cpp.

#include "runtime/sched/scheduler.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "runtime/sched/sched_check.h"

namespace pagedserve::sched {

kv::kv_cache_config kv_cache_config_of(const scheduler_config& config) {
  return kv::kv_cache_config{config.num_blocks, config.block_size, config.enable_prefix_caching};
}

scheduler::scheduler(scheduler_config config) : scheduler(config, kv_cache_config_of(config)) {}

scheduler::scheduler(scheduler_config config, kv::kv_cache_config kv_config)
    : config_(config), kv_(kv_config), depth_(config.num_speculative_tokens) {
  const status valid = validate(config_);
  sched_check(valid.ok(), valid.ok() ? "" : valid.err().message);
  sched_check(
      kv_config.num_blocks == config.num_blocks && kv_config.block_size == config.block_size,
      "the KV pool disagrees with the scheduler config");
}

scheduler::~scheduler() = default;

result<seq_id> scheduler::add_request(request_spec spec, double now) {
  auto reject = [this](error_code code, std::string message) -> result<seq_id> {
    ++totals_.num_rejected;
    return make_error(code, std::move(message));
  };
  const std::uint64_t num_prompt = spec.prompt_token_ids.size();
  const std::uint64_t num_max = num_prompt + spec.max_tokens;
  const std::string which = "request " + std::to_string(spec.id.value()) + ": ";
  if (num_prompt == 0) return reject(error_code::invalid_argument, which + "empty prompt");
  if (spec.max_tokens == 0) return reject(error_code::invalid_argument, which + "max_tokens 0");
  if (sequences_.contains(spec.id)) {
    return reject(error_code::invalid_argument, which + "id already in use");
  }
  if (num_max > config_.max_model_len) {
    return reject(error_code::capacity_exceeded,
                  which + "prompt (" + std::to_string(num_prompt) + ") + max_tokens (" +
                      std::to_string(spec.max_tokens) + ") exceeds max_model_len (" +
                      std::to_string(config_.max_model_len) + ")");
  }
  if (num_max > kv_.max_tokens_per_sequence()) {
    return reject(error_code::capacity_exceeded,
                  which + "prompt + max_tokens (" + std::to_string(num_max) +
                      " tokens) exceeds the whole KV cache (" +
                      std::to_string(kv_.max_tokens_per_sequence()) + " tokens)");
  }
  const seq_id id = spec.id;
  auto owned = std::make_unique<tracked>(sequence(std::move(spec)));
  tracked& t = *owned;
  t.acceptance = engine_acceptance_.with_weight_at_most(4.0f);
  sequences_.emplace(id, std::move(owned));
  enqueue_waiting(t);
  events_.emplace_back(request_arrived{stamp(t, event_step(), now)});
  return id;
}

bool scheduler::cancel(seq_id seq, double now) {
  return finish_request(seq, finish_reason::cancelled, now);
}

bool scheduler::finish_request(seq_id seq, finish_reason reason, double now) {
  const auto it = sequences_.find(seq);
  if (it == sequences_.end()) return false;
  tracked& t = *it->second;
  const sequence_status was = t.seq.status();
  if (was == sequence_status::waiting || was == sequence_status::preempted) {
    waiting_.erase(t.key);
  }
  if (was == sequence_status::running) remove_running(t);
  finish(t, reason, now);
  if (num_in_flight_ == 0) retired_.clear();
  return true;
}

std::vector<scheduler_event> scheduler::take_events() { return std::exchange(events_, {}); }

void scheduler::take_events(std::vector<scheduler_event>& out) {
  out.clear();
  out.swap(events_);
}

std::uint32_t scheduler::num_running() const { return static_cast<std::uint32_t>(running_.size()); }

std::uint32_t scheduler::num_waiting() const { return static_cast<std::uint32_t>(waiting_.size()); }

const sequence* scheduler::find(seq_id seq) const {
  const auto it = sequences_.find(seq);
  return it == sequences_.end() ? nullptr : &it->second->seq;
}

// Ends `t` for `reason`: its memory goes back at once (even while a step that uses it runs:
// the executor runs steps in order, so a later step that reuses the blocks writes them
// after), the executor hears of it in the next plan, and it stays alive in retired_ until
// every step in flight that may name it has been applied.
void scheduler::finish(tracked& t, finish_reason reason, double now) {
  const bool was_running = t.seq.status() == sequence_status::running;
  t.seq.finish(reason);
  if (was_running) kv_.free(t.seq.id());
  // A preempted sequence still has state in the executor (its sampler), so it is named too.
  if (t.seq.was_ever_scheduled()) finished_since_plan_.push_back(t.seq.id());
  if (was_running && applying_step_) ++num_finished_in_update_;
  events_.emplace_back(
      request_finished{stamp(t, event_step(), now), reason, t.seq.num_output_tokens()});
  const auto it = sequences_.find(t.seq.id());
  const std::uint64_t last_step =
      num_in_flight_ == 0
          ? 0
          : in_flight_[(in_flight_head_ + num_in_flight_ - 1) % k_max_steps_in_flight].step;
  retired_.push_back(retired_sequence{last_step, std::move(it->second)});
  sequences_.erase(it);
}

// Events from add_request/cancel name the next plan's step; those from applying an output
// name that output's step.
std::uint64_t scheduler::event_step() const { return applying_step_.value_or(next_step_); }

void scheduler::enqueue_waiting(tracked& t) {
  const bool fcfs = config_.policy == scheduling_policy::fcfs;
  const bool preempted = t.seq.status() == sequence_status::preempted;
  t.key = waiting_key{fcfs && preempted ? 0 : 1, fcfs ? 0 : t.seq.priority(), t.seq.arrival_time(),
                      t.seq.id().value()};
  const bool inserted = waiting_.emplace(t.key, &t).second;
  sched_check(inserted, "sequence queued twice");
}

void scheduler::remove_running(const tracked& t) {
  const auto it = std::find(running_.begin(), running_.end(), &t);
  sched_check(it != running_.end(), "sequence not in the running list");
  running_.erase(it);
}

event_stamp scheduler::stamp(const tracked& t, std::uint64_t step, double now) const {
  return event_stamp{t.seq.id(), step, now};
}

}  // namespace pagedserve::sched
