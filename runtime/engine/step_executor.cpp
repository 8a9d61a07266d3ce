// The model-backed step_executor: keeps each live sequence's tokens, block table and
// sampler state from the plans' deltas (the same bookkeeping as sched::fake_executor), runs
// each plan as one flattened forward batch and samples where the plan asks: on the device
// when the backend can (then the step stays in flight until collect), else on the host.

#include "runtime/engine/step_executor.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <exception>
#include <limits>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "kernels/cpu/cpu_backend.h"
#include "runtime/forward/decode_graphs.h"
#include "runtime/forward/kv_pool_sizing.h"
#include "runtime/forward/model_forward.h"
#include "runtime/model/checkpoint.h"
#include "runtime/sampling/logprobs.h"
#include "runtime/sampling/sampler.h"

namespace pagedserve {
namespace {

using sched::schedule_kind;
using sched::scheduled_sequence;
using sched::step_plan;
using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point start) {
  return std::chrono::duration<double>(clock_type::now() - start).count();
}

// A token sampled on the device that the host has not read yet: the sequence's last token
// is a placeholder for row `row` of step `step`'s samples.
struct pending_sample {
  std::uint64_t step = 0;
  std::int32_t row = 0;
  std::size_t position = 0;
};

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
  std::uint32_t num_computed = 0;     // positions whose K/V are in the cache (or queued)
  std::optional<pending_sample> pending;
};

// One sampling entry of a step, answered at collect.
struct answer {
  seq_id seq;
  std::int32_t row = -1;  // the entry's row in the step's logits; -1: skipped (token 0)
  std::optional<std::int32_t> logprobs;
  token_id token = 0;  // host sampling: known at submit
  std::optional<logprobs_result> host_logprobs;
};

// The answer to an entry whose sequence is unknown (dropped by a failed step).
answer skipped(seq_id seq) { return {seq, -1, std::nullopt, 0, std::nullopt}; }

// A submitted step, until collected.
struct in_flight_step {
  std::uint64_t step = 0;
  std::vector<seq_id> members;  // every scheduled sequence (dropped if the step fails)
  std::vector<answer> answers;  // plan order
  std::optional<std::string> failure;
  bool on_device = false;  // its samples are still on the device
  bool replayed_graph = false;
  std::optional<std::uint64_t> previous_device_step;  // ran just before it on the stream
  double host_s = 0.0;
};

[[noreturn]] void die(std::uint64_t step, seq_id seq, const std::string& what) {
  std::fprintf(stderr, "step_executor: step %llu, sequence %llu: %s\n",
               static_cast<unsigned long long>(step), static_cast<unsigned long long>(seq.value()),
               what.c_str());
  std::abort();
}

[[noreturn]] void die(const std::string& what) {
  std::fprintf(stderr, "step_executor: %s\n", what.c_str());
  std::abort();
}

struct executor_parts {
  std::unique_ptr<kernels::backend> backend;
  std::unique_ptr<forward::model_forward> forward;
  std::unique_ptr<forward::paged_kv_cache> cache;
  std::unique_ptr<device_sampler> sampler;  // null: the host samples
  step_executor_setup setup;
};

class model_step_executor final : public step_executor {
 public:
  model_step_executor(step_executor_config config, executor_parts parts)
      : before_step_(std::move(config.before_step)),
        block_size_(config.block_size),
        vocab_size_(config.model.vocab_size),
        backend_(std::move(parts.backend)),
        forward_(std::move(parts.forward)),
        cache_(std::move(parts.cache)),
        sampler_(std::move(parts.sampler)),
        setup_(parts.setup) {}

  ~model_step_executor() override {
    // The device may still run queued steps that read this executor's memory.
    if (backend_) backend_->synchronize();
  }

  void submit(const step_plan& plan, std::span<const sequence_sampling> new_sequences) override;
  collected_step collect() override;
  [[nodiscard]] std::size_t num_in_flight() const override { return queue_.size(); }
  [[nodiscard]] bool oldest_ready() override;

  [[nodiscard]] std::size_t num_live_sequences() const override { return sequences_.size(); }
  [[nodiscard]] const step_executor_setup& setup() const override { return setup_; }

 private:
  void forget(const step_plan& plan);
  void register_sampling(const step_plan& plan, std::span<const sequence_sampling> added);
  [[nodiscard]] std::vector<live_sequence*> take_entries(const step_plan& plan);
  live_sequence* take_entry(std::uint64_t step, const scheduled_sequence& entry);
  void check_entry(std::uint64_t step, const scheduled_sequence& entry,
                   const live_sequence& s) const;
  [[nodiscard]] forward::forward_batch batch_of(const step_plan& plan,
                                                const std::vector<live_sequence*>& members) const;
  void enqueue_on_device(const step_plan& plan, const std::vector<live_sequence*>& members,
                         in_flight_step& f);
  void run_on_host(const step_plan& plan, const std::vector<live_sequence*>& members,
                   in_flight_step& f);
  [[nodiscard]] result<sched::step_output> read_device_samples(const in_flight_step& f);
  [[nodiscard]] static sched::step_output host_output(in_flight_step& f);
  void drop(const std::vector<seq_id>& members);

  std::function<void(std::uint64_t)> before_step_;
  std::uint32_t block_size_;
  std::int64_t vocab_size_;
  std::unique_ptr<kernels::backend> backend_;  // outlives the members below
  std::unique_ptr<forward::model_forward> forward_;
  std::unique_ptr<forward::paged_kv_cache> cache_;
  std::unique_ptr<device_sampler> sampler_;
  step_executor_setup setup_;
  std::unordered_map<seq_id, live_sequence> sequences_;
  std::deque<in_flight_step> queue_;
  std::optional<std::uint64_t> last_device_step_;
};

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
  c.host_s = f.host_s + seconds_since(start) - waited_s;
  return c;
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
    s.pending.reset();
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
    s.pending.reset();
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

// The step's forward batch: one row per member that is not skipped, in plan order.
forward::forward_batch model_step_executor::batch_of(
    const step_plan& plan, const std::vector<live_sequence*>& members) const {
  forward::forward_batch batch;
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (members[i] == nullptr) continue;
    const scheduled_sequence& entry = plan.scheduled[i];
    batch.sequences.push_back({std::span<const token_id>(members[i]->tokens)
                                   .subspan(entry.first_position, entry.num_scheduled_tokens),
                               entry.first_position, members[i]->block_table});
  }
  return batch;
}

// Enqueues the forward and the device sampling of every row. A member's token that is
// still a placeholder comes from the previous step's samples on the device; each sampled
// token becomes a placeholder until collect.
void model_step_executor::enqueue_on_device(const step_plan& plan,
                                            const std::vector<live_sequence*>& members,
                                            in_flight_step& f) {
  std::vector<forward::device_token> device_tokens;
  std::vector<std::int32_t> trailer;
  std::optional<std::uint64_t> source_step;
  std::int32_t token_row = 0;
  std::int32_t row = 0;
  bool keep_logits = false;
  for (std::size_t i = 0; i < members.size(); ++i) {
    const scheduled_sequence& entry = plan.scheduled[i];
    live_sequence* s = members[i];
    if (s == nullptr) {
      if (entry.samples) f.answers.push_back(skipped(entry.seq));
      continue;
    }
    if (s->pending && s->pending->position >= entry.first_position &&
        s->pending->position < std::size_t{entry.first_position} + entry.num_scheduled_tokens) {
      if (source_step && *source_step != s->pending->step) {
        die(plan.step, entry.seq, "device tokens from two different steps");
      }
      source_step = s->pending->step;
      device_tokens.push_back(
          {token_row + static_cast<std::int32_t>(s->pending->position - entry.first_position),
           s->pending->row});
    }
    token_row += static_cast<std::int32_t>(entry.num_scheduled_tokens);
    s->num_computed = entry.first_position + entry.num_scheduled_tokens;
    if (entry.samples) {
      append_words(take_sampling_row(s->params, s->sampler), trailer);
      s->tokens.push_back(0);  // placeholder: the device knows it
      s->pending = pending_sample{plan.step, row, s->tokens.size() - 1};
      f.answers.push_back({entry.seq, row, s->params.logprobs, 0, std::nullopt});
      keep_logits = keep_logits || s->params.logprobs.has_value();
    } else {
      append_words(unused_sampling_row(), trailer);
    }
    ++row;
  }
  if (row == 0) return;
  // After the placeholders went in: the batch's spans point into the token vectors.
  forward::forward_batch batch = batch_of(plan, members);
  batch.device_tokens = std::move(device_tokens);
  if (source_step) batch.token_source = sampler_->tokens_on_device(*source_step);
  batch.trailer = trailer;
  sampler_->begin(plan.step);
  forward_->enqueue(batch, *cache_);
  f.replayed_graph = forward_->last_replayed_graph();
  sampler_->sample(plan.step, forward_->last_logits(), forward_->last_trailer(), keep_logits);
  f.on_device = true;
  f.previous_device_step = last_device_step_;
  last_device_step_ = plan.step;
}

// Runs the step to the end and samples on the host (backends without device sampling).
void model_step_executor::run_on_host(const step_plan& plan,
                                      const std::vector<live_sequence*>& members,
                                      in_flight_step& f) {
  const forward::forward_batch batch = batch_of(plan, members);
  forward::forward_output out;
  if (!batch.sequences.empty()) out = forward_->run(batch, *cache_);
  std::size_t row = 0;  // members[i]'s row in out.last_logits
  for (std::size_t i = 0; i < members.size(); ++i) {
    const scheduled_sequence& entry = plan.scheduled[i];
    live_sequence* s = members[i];
    if (s == nullptr) {
      if (entry.samples) f.answers.push_back(skipped(entry.seq));
      continue;
    }
    const std::size_t this_row = row++;
    s->num_computed = entry.first_position + entry.num_scheduled_tokens;
    if (!entry.samples) continue;
    const std::span<const float> logits = out.last(this_row);
    const token_id next = sample(logits, s->params, s->sampler);
    s->tokens.push_back(next);
    answer& a = f.answers.emplace_back(
        answer{entry.seq, static_cast<std::int32_t>(this_row), std::nullopt, next, std::nullopt});
    // The raw distribution (before temperature and truncation), as vLLM reports by default.
    if (s->params.logprobs) a.host_logprobs = compute_logprobs(logits, next, *s->params.logprobs);
  }
}

sched::step_output model_step_executor::host_output(in_flight_step& f) {
  sched::step_output output;
  output.step = f.step;
  for (answer& a : f.answers) {
    sched::sampled_token& sampled = output.sampled.emplace_back(a.seq, a.token);
    sampled.logprobs = std::move(a.host_logprobs);
  }
  return output;
}

// The step's samples, read from the host copy; each placeholder they answer is replaced
// (unless its sequence was preempted, finished or dropped since).
result<sched::step_output> model_step_executor::read_device_samples(const in_flight_step& f) {
  const std::span<const std::int32_t> ids = sampler_->tokens(f.step);
  sched::step_output output;
  output.step = f.step;
  for (const answer& a : f.answers) {
    token_id token = 0;
    if (a.row >= 0) {
      token = ids[static_cast<std::size_t>(a.row)];
      if (token < 0 || token >= vocab_size_) {
        return make_error(error_code::internal,
                          "step " + std::to_string(f.step) + ": the device sampled token " +
                              std::to_string(token) + ", outside the vocabulary");
      }
      const auto it = sequences_.find(a.seq);
      if (it != sequences_.end() && it->second.pending && it->second.pending->step == f.step) {
        live_sequence& s = it->second;
        s.tokens[s.pending->position] = token;
        s.pending.reset();
      }
    }
    sched::sampled_token& sampled = output.sampled.emplace_back(a.seq, token);
    if (a.row >= 0 && a.logprobs) {
      sampled.logprobs = compute_logprobs(sampler_->logits_row(f.step, a.row), token, *a.logprobs);
    }
  }
  return output;
}

// Every sequence of a failed step goes: its cache contents and sampler state are unknown.
void model_step_executor::drop(const std::vector<seq_id>& members) {
  for (const seq_id seq : members) sequences_.erase(seq);
}

// The KV pool: num_blocks when given, else planned from the device's memory.
result<std::uint32_t> size_pool(const step_executor_config& config, forward::model_forward& fwd,
                                step_executor_setup& setup) {
  if (config.num_blocks > 0) return config.num_blocks;
  forward::kv_pool_request request;
  request.gpu_memory_utilization = config.gpu_memory_utilization;
  request.block_size = config.block_size;
  request.max_num_batched_tokens = config.max_num_batched_tokens;
  request.max_num_seqs = config.max_num_seqs;
  request.max_model_len = config.max_model_len;
  auto plan = forward::plan_kv_pool(fwd, request);
  if (!plan) return make_error(plan.err().code, "step_executor: " + plan.err().message);
  setup.planned_from_memory = true;
  setup.device_total_bytes = plan->total_bytes;
  setup.in_use_bytes = plan->in_use_bytes;
  return static_cast<std::uint32_t>(
      std::min<std::int64_t>(plan->num_blocks, std::numeric_limits<std::uint32_t>::max() - 1));
}

// Decode graphs for the scheduler's whole range, on backends with a device (the ones that
// capture). The workspace is reserved first for the largest step the scheduler plans:
// capture freezes it.
std::size_t capture_graphs(const step_executor_config& config, kernels::backend& backend,
                           forward::model_forward& fwd, forward::paged_kv_cache& cache) {
  if (config.enforce_eager || !backend.memory()) return 0;
  const std::int64_t width =
      (std::int64_t{config.max_model_len} + config.block_size - 1) / config.block_size;
  fwd.workspace().reserve(config.max_num_batched_tokens, config.max_num_seqs, width);
  forward::decode_graph_options options;
  options.batch_sizes = forward::default_decode_batch_sizes(config.max_num_seqs);
  options.max_context_len = config.max_model_len;
  return fwd.enable_decode_graphs(cache, options);
}

}  // namespace

result<std::unique_ptr<step_executor>> step_executor::create(step_executor_config config) {
  if (!config.weights) return make_error(error_code::invalid_argument, "step_executor: no weights");
  if (config.block_size == 0 || config.max_num_seqs == 0 || config.max_model_len == 0) {
    return make_error(error_code::invalid_argument,
                      "step_executor: block_size, max_num_seqs and max_model_len must be >= 1");
  }
  executor_parts parts;
  parts.backend = config.backend ? std::move(config.backend) : kernels::make_cpu_backend();
  kernels::backend& backend = *parts.backend;
  auto weights = forward::upload_model_weights(backend, config.model, *config.weights);
  if (!weights) return make_error(weights.err().code, "step_executor: " + weights.err().message);
  parts.forward =
      std::make_unique<forward::model_forward>(backend, config.model, std::move(*weights));
  auto num_blocks = size_pool(config, *parts.forward, parts.setup);
  if (!num_blocks) return num_blocks.err();
  const auto layout =
      forward::kv_cache_layout::for_model(config.model, *num_blocks, config.block_size);
  parts.cache = std::make_unique<forward::paged_kv_cache>(backend, layout);
  step_executor_setup& setup = parts.setup;
  setup.num_blocks = *num_blocks;
  setup.bytes_per_block = layout.bytes_per_block(backend.compute_type());
  setup.kv_bytes = layout.bytes(backend.compute_type());
  setup.max_concurrency = static_cast<double>(std::uint64_t{*num_blocks} * config.block_size) /
                          static_cast<double>(config.max_model_len);
  setup.samples_on_device = backend.samples_on_device();
  if (setup.samples_on_device) {
    parts.sampler = std::make_unique<device_sampler>(backend, config.max_num_seqs);
  }
  setup.num_decode_graphs = capture_graphs(config, backend, *parts.forward, *parts.cache);
  return std::unique_ptr<step_executor>(
      std::make_unique<model_step_executor>(std::move(config), std::move(parts)));
}

}  // namespace pagedserve
