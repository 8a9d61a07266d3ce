// The model-backed step_executor: keeps each live sequence's tokens, block table and
// sampler state from the plans' deltas (the same bookkeeping as sched::fake_executor), runs
// each plan as one flattened forward batch and samples where the plan asks.

#include "runtime/engine/step_executor.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "kernels/cpu/cpu_backend.h"
#include "runtime/forward/model_forward.h"
#include "runtime/model/checkpoint.h"
#include "runtime/sampling/logprobs.h"
#include "runtime/sampling/sampler.h"

namespace pagedserve {
namespace {

using sched::schedule_kind;
using sched::scheduled_sequence;
using sched::step_plan;

// Everything the executor knows about one live sequence. Registered (sampling only) when
// its first plan arrives; loaded by its new_sequence entry; unloaded by a preemption and
// loaded again by its resumed entry. The sampler state survives preemption, so a resumed
// sequence continues its random stream where it stopped.
struct live_sequence {
  live_sequence(const sampling_params& p, std::uint64_t sequence_index)
      : params(p), sampler(sampler_state::create(p, sequence_index)) {}

  sampling_params params;
  sampler_state sampler;
  bool loaded = false;
  std::vector<token_id> tokens;       // prompt + outputs, including this executor's samples
  std::vector<block_id> block_table;  // the whole table
  std::uint32_t num_computed = 0;     // positions whose K/V are in the cache
};

[[noreturn]] void die(std::uint64_t step, seq_id seq, const std::string& what) {
  std::fprintf(stderr, "step_executor: step %llu, sequence %llu: %s\n",
               static_cast<unsigned long long>(step), static_cast<unsigned long long>(seq.value()),
               what.c_str());
  std::abort();
}

class model_step_executor final : public step_executor {
 public:
  model_step_executor(step_executor_config config, std::unique_ptr<kernels::backend> backend,
                      forward::model_weights weights)
      : before_step_(std::move(config.before_step)),
        block_size_(config.block_size),
        backend_(std::move(backend)),
        forward_(*backend_, config.model, std::move(weights)),
        cache_(*backend_, forward::kv_cache_layout::for_model(config.model, config.num_blocks,
                                                              config.block_size)) {}

  result<sched::step_output> run(const step_plan& plan,
                                 std::span<const sequence_sampling> new_sequences) override;

  [[nodiscard]] std::size_t num_live_sequences() const override { return sequences_.size(); }

 private:
  void forget(const step_plan& plan);
  void register_sampling(const step_plan& plan, std::span<const sequence_sampling> added);
  [[nodiscard]] std::vector<live_sequence*> take_entries(const step_plan& plan);
  live_sequence* take_entry(std::uint64_t step, const scheduled_sequence& entry);
  void check_entry(std::uint64_t step, const scheduled_sequence& entry,
                   const live_sequence& s) const;
  [[nodiscard]] sched::step_output execute(const step_plan& plan,
                                           const std::vector<live_sequence*>& members);
  void drop_step(const step_plan& plan);

  std::function<void(std::uint64_t)> before_step_;
  std::uint32_t block_size_;
  std::unique_ptr<kernels::backend> backend_;  // outlives forward_ and cache_
  forward::model_forward forward_;
  forward::paged_kv_cache cache_;
  std::unordered_map<seq_id, live_sequence> sequences_;
};

result<sched::step_output> model_step_executor::run(
    const step_plan& plan, std::span<const sequence_sampling> new_sequences) {
  forget(plan);
  register_sampling(plan, new_sequences);
  const std::vector<live_sequence*> members = take_entries(plan);
  try {
    if (before_step_) before_step_(plan.step);
    return execute(plan, members);
  } catch (const std::exception& e) {
    drop_step(plan);
    return make_error(error_code::internal,
                      "step " + std::to_string(plan.step) + " failed: " + e.what());
  } catch (...) {
    drop_step(plan);
    return make_error(error_code::internal,
                      "step " + std::to_string(plan.step) + " failed: unknown exception");
  }
}

// Finished sequences go entirely; preempted ones keep only their sampling.
void model_step_executor::forget(const step_plan& plan) {
  for (const seq_id gone : plan.finished) sequences_.erase(gone);
  for (const seq_id gone : plan.preempted) {
    const auto it = sequences_.find(gone);
    if (it == sequences_.end()) continue;  // dropped by a failed step
    live_sequence& s = it->second;
    s.loaded = false;
    s.tokens.clear();
    s.block_table.clear();
    s.num_computed = 0;
  }
}

void model_step_executor::register_sampling(const step_plan& plan,
                                            std::span<const sequence_sampling> added) {
  for (const sequence_sampling& a : added) {
    if (!sequences_.try_emplace(a.seq, a.params, a.sequence_index).second) {
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
  if (entry.kind == schedule_kind::continuing) {
    if (!s.loaded) die(step, entry.seq, "continuing entry for a sequence with no data");
    s.block_table.insert(s.block_table.end(), entry.block_ids.begin(), entry.block_ids.end());
  } else {
    if (s.loaded) die(step, entry.seq, "new or resumed entry for a sequence already loaded");
    s.loaded = true;
    s.tokens = entry.token_ids;
    s.block_table = entry.block_ids;
    s.num_computed = entry.first_position;  // earlier positions: the prefix cache's blocks
  }
  check_entry(step, entry, s);
  return &s;
}

// The plan must agree with what this executor knows (broken protocol: abort).
void model_step_executor::check_entry(std::uint64_t step, const scheduled_sequence& entry,
                                      const live_sequence& s) const {
  const std::uint64_t end =
      std::uint64_t{entry.first_position} + std::uint64_t{entry.num_scheduled_tokens};
  const std::string where = "positions [" + std::to_string(entry.first_position) + ", " +
                            std::to_string(end) + ") with " + std::to_string(s.tokens.size()) +
                            " tokens known, " + std::to_string(s.num_computed) + " computed";
  if (entry.num_scheduled_tokens == 0) die(step, entry.seq, "no tokens scheduled");
  if (entry.first_position != s.num_computed) die(step, entry.seq, "gap or overlap: " + where);
  if (end > s.tokens.size()) die(step, entry.seq, "tokens not known yet: " + where);
  if (entry.samples && end != s.tokens.size()) {
    die(step, entry.seq, "samples before the last known token: " + where);
  }
  if (std::uint64_t{s.block_table.size()} * block_size_ < end) {
    die(step, entry.seq,
        "block table of " + std::to_string(s.block_table.size()) + " blocks too short: " + where);
  }
}

sched::step_output model_step_executor::execute(const step_plan& plan,
                                                const std::vector<live_sequence*>& members) {
  forward::forward_batch batch;
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (members[i] == nullptr) continue;
    const scheduled_sequence& entry = plan.scheduled[i];
    batch.sequences.push_back({std::span<const token_id>(members[i]->tokens)
                                   .subspan(entry.first_position, entry.num_scheduled_tokens),
                               entry.first_position, members[i]->block_table});
  }
  forward::forward_output out;
  if (!batch.sequences.empty()) out = forward_.run(batch, cache_);

  sched::step_output output;
  output.step = plan.step;
  std::size_t row = 0;  // members[i]'s row in out.last_logits
  for (std::size_t i = 0; i < members.size(); ++i) {
    const scheduled_sequence& entry = plan.scheduled[i];
    live_sequence* s = members[i];
    if (s == nullptr) {
      if (entry.samples) output.sampled.push_back({entry.seq, 0});
      continue;
    }
    const std::size_t this_row = row++;
    s->num_computed = entry.first_position + entry.num_scheduled_tokens;
    if (!entry.samples) continue;
    const std::span<const float> logits = out.last(this_row);
    const token_id next = sample(logits, s->params, s->sampler);
    s->tokens.push_back(next);
    sched::sampled_token& sampled = output.sampled.emplace_back(entry.seq, next);
    // The raw distribution (before temperature and truncation), as vLLM reports by default.
    if (s->params.logprobs) sampled.logprobs = compute_logprobs(logits, next, *s->params.logprobs);
  }
  return output;
}

// Every sequence of a failed step goes: its cache contents and sampler state are unknown.
void model_step_executor::drop_step(const step_plan& plan) {
  for (const scheduled_sequence& entry : plan.scheduled) sequences_.erase(entry.seq);
}

}  // namespace

result<std::unique_ptr<step_executor>> step_executor::create(step_executor_config config) {
  if (config.backend != "cpu") {
    return make_error(error_code::unsupported, "step_executor: backend '" + config.backend +
                                                   "' is not supported (yet); use cpu");
  }
  if (!config.weights) return make_error(error_code::invalid_argument, "step_executor: no weights");
  if (config.block_size == 0 || config.num_blocks == 0) {
    return make_error(error_code::invalid_argument,
                      "step_executor: block_size and num_blocks must be >= 1 (got " +
                          std::to_string(config.block_size) + " and " +
                          std::to_string(config.num_blocks) + ")");
  }
  auto backend = kernels::make_cpu_backend();
  auto weights = forward::upload_model_weights(*backend, config.model, *config.weights);
  if (!weights) return make_error(weights.err().code, "step_executor: " + weights.err().message);
  return std::unique_ptr<step_executor>(std::make_unique<model_step_executor>(
      std::move(config), std::move(backend), std::move(*weights)));
}

}  // namespace pagedserve
