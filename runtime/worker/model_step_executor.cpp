// model_step_executor's bookkeeping: each live sequence's mirror and sampler state from the
// plans' deltas, submit and collect (model_step_executor.h).

#include "runtime/worker/model_step_executor.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <utility>

#include "runtime/sampling/bad_words.h"
#include "runtime/sched/steps_in_flight.h"

namespace pagedserve::detail {
namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point start) {
  return std::chrono::duration<double>(clock_type::now() - start).count();
}

}  // namespace

void die(std::uint64_t step, seq_id seq, const std::string& what) {
  std::fprintf(stderr, "step_executor: step %llu, sequence %llu: %s\n",
               static_cast<unsigned long long>(step), static_cast<unsigned long long>(seq.value()),
               what.c_str());
  std::abort();
}

void die(const std::string& what) {
  std::fprintf(stderr, "step_executor: %s\n", what.c_str());
  std::abort();
}

model_step_executor::model_step_executor(step_executor_parts parts,
                                         std::unique_ptr<forward::paged_kv_cache> cache,
                                         std::unique_ptr<device_sampler> sampler,
                                         std::size_t num_decode_graphs,
                                         std::unique_ptr<spec::proposer> proposer,
                                         std::unique_ptr<spec::draft_model_proposer> draft)
    : plan_(std::move(parts.plan)),
      before_step_(std::move(parts.before_step)),
      vocab_size_(parts.forward->config().vocab_size),
      backend_(std::move(parts.backend)),
      forward_(std::move(parts.forward)),
      cache_(std::move(cache)),
      sampler_(std::move(sampler)),
      num_decode_graphs_(num_decode_graphs),
      proposer_(std::move(proposer)),
      draft_(std::move(draft)) {}

void model_step_executor::submit(const step_plan& plan,
                                 std::span<const sequence_sampling> new_sequences) {
  const auto start = clock_type::now();
  if (queue_.size() >= k_max_steps_in_flight) {
    die("step " + std::to_string(plan.step) + " submitted with " + std::to_string(queue_.size()) +
        " steps in flight (collect first)");
  }
  forget(plan);
  register_sampling(plan, new_sequences);
  const std::vector<live_sequence*> members = take_entries(plan);
  in_flight_step f;
  f.step = plan.step;
  for (const scheduled_sequence& entry : plan.scheduled) f.members.push_back(entry.seq);
  try {
    if (before_step_) before_step_(plan.step);
    if (sampler_ != nullptr) {
      enqueue_on_device(plan, members, f);
    } else {
      run_on_host(plan, members, f);
    }
    f.expert_load_slot = forward_->last_expert_load_slot();
  } catch (const std::exception& e) {
    drop(f.members);
    f.failure = "step " + std::to_string(plan.step) + " failed: " + e.what();
  } catch (...) {
    drop(f.members);
    f.failure = "step " + std::to_string(plan.step) + " failed: unknown exception";
  }
  f.host_s = seconds_since(start);
  queue_.push_back(std::move(f));
}

bool model_step_executor::oldest_ready() {
  if (queue_.empty()) return false;
  const in_flight_step& f = queue_.front();
  return f.failure || !f.on_device || sampler_->ready(f.step);
}

collected_step model_step_executor::collect() {
  if (queue_.empty()) die("collect with no step in flight");
  const auto start = clock_type::now();
  in_flight_step f = std::move(queue_.front());
  queue_.pop_front();
  collected_step c;
  c.step = f.step;
  c.replayed_graph = f.replayed_graph;
  double waited_s = 0.0;
  if (f.failure) {
    c.output = make_error(error_code::internal, *f.failure);
  } else if (f.on_device) {
    try {
      const auto wait_start = clock_type::now();
      sampler_->wait(f.step);
      waited_s = seconds_since(wait_start);
      c.output = read_device_samples(f);
      const device_step_timing timing = sampler_->timing(f.step, f.previous_device_step);
      c.device_busy_s = timing.busy_s;
      c.device_idle_before_s = timing.idle_before_s;
    } catch (const std::exception& e) {
      c.output = make_error(error_code::internal,
                            "step " + std::to_string(f.step) + " failed: " + e.what());
    }
    if (!c.output) drop(f.members);
  } else {
    c.output = host_output(f);
  }
  if (c.output) {
    const std::span<const std::int32_t> load = forward_->expert_load_copy(f.expert_load_slot);
    c.expert_load.assign(load.begin(), load.end());
    c.num_experts = static_cast<std::int32_t>(forward_->config().moe.num_experts);
  }
  c.host_s = f.host_s + seconds_since(start) - waited_s;
  return c;
}

std::vector<logit_edit> live_sequence::edits() const {
  if (params.logit_bias.empty() && num_generated() >= params.min_tokens &&
      params.bad_words_token_ids.empty()) {
    return {};
  }
  const std::vector<token_id> banned = bad_word_bans(params.bad_words_token_ids, generated());
  return logit_edits(params, held_stop_token_ids, num_generated(), banned);
}

// A sequence goes with its device counts' slot.
void model_step_executor::erase(seq_id seq) {
  const auto it = sequences_.find(seq);
  if (it == sequences_.end()) return;
  if (it->second.penalty_slot >= 0) sampler_->counts().release(it->second.penalty_slot);
  sequences_.erase(it);
}

// Finished sequences go entirely; preempted ones keep only their sampling.
void model_step_executor::forget(const step_plan& plan) {
  for (const seq_id gone : plan.finished) {
    // A proposer that learns across requests (suffix decoding) keeps what it generated.
    const auto it = sequences_.find(gone);
    if (proposer_ != nullptr && it != sequences_.end() && it->second.loaded &&
        !it->second.params.pooling) {
      proposer_->add_finished(it->second.generated());
    }
    erase(gone);
  }
  for (const seq_id gone : plan.preempted) {
    const auto it = sequences_.find(gone);
    if (it == sequences_.end()) continue;  // dropped by a failed step
    it->second.unload();
    it->second.pending.reset();
  }
}

void model_step_executor::register_sampling(const step_plan& plan,
                                            std::span<const sequence_sampling> added) {
  for (const sequence_sampling& a : added) {
    if (!sequences_.try_emplace(a.seq, a).second) {
      die(plan.step, a.seq, "sampling registered twice for a live sequence");
    }
  }
}

// Applies every entry's data to the state; the member of an entry is null when the
// entry is skipped (its sequence is unknown or was dropped by a failed step).
std::vector<live_sequence*> model_step_executor::take_entries(const step_plan& plan) {
  std::vector<live_sequence*> members;
  members.reserve(plan.scheduled.size());
  for (const scheduled_sequence& entry : plan.scheduled) {
    members.push_back(take_entry(plan.step, entry));
  }
  return members;
}

live_sequence* model_step_executor::take_entry(std::uint64_t step,
                                               const scheduled_sequence& entry) {
  const auto it = sequences_.find(entry.seq);
  if (it == sequences_.end()) {
    // A new sequence always arrives with its sampling, so only a dropped one is unknown.
    if (entry.kind == schedule_kind::new_sequence) {
      die(step, entry.seq, "new sequence scheduled without its sequence_sampling");
    }
    return nullptr;
  }
  live_sequence& s = it->second;
  if (entry.kind != schedule_kind::continuing) {
    s.pending.reset();
    s.draft_computed = 0;  // new blocks: the draft's K/V in them are not known to be its own
  }
  // The plan must agree with what this executor knows (a broken protocol: abort).
  if (auto why = s.apply(entry, plan_->sched.block_size)) die(step, entry.seq, *why);
  // (Re)loaded: the host's counts start again from the entry's tokens (the device's are
  // rebuilt by the step, add_count_load).
  if (entry.kind != schedule_kind::continuing && s.params.has_penalties() && sampler_ == nullptr) {
    s.counts.reset(s.prompt(), s.generated());
  }
  return &s;
}

// The step's forward batch: one row per member that is not skipped, in plan order.
forward::forward_batch model_step_executor::batch_of(
    const step_plan& plan, const std::vector<live_sequence*>& members,
    std::span<const std::uint32_t> num_proposed) const {
  forward::forward_batch batch;
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (members[i] == nullptr) continue;
    const scheduled_sequence& entry = plan.scheduled[i];
    const std::size_t count =
        entry.num_scheduled_tokens + (num_proposed.empty() ? 0 : num_proposed[i]);
    batch.sequences.push_back(
        {std::span<const token_id>(members[i]->tokens).subspan(entry.first_position, count),
         entry.first_position, members[i]->block_table});
  }
  return batch;
}

// Every sequence of a failed step goes: its cache contents and sampler state are unknown.
void model_step_executor::drop(const std::vector<seq_id>& members) {
  for (const seq_id seq : members) erase(seq);
}

}  // namespace pagedserve::detail
