// engine_core: requests in, step plans out, sampled tokens to text and finals. See the header.

#include "runtime/engine/engine_core.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "runtime/engine/engine_core_state.h"
#include "runtime/engine/output_stream.h"

namespace pagedserve {

engine_core_base::engine_core_base(engine_core_setup setup)
    : setup_(std::move(setup)),
      limits_(request_limits_of(*setup_.plan, setup_.vocab_size, setup_.tok)),
      scheduler_(std::make_unique<sched::scheduler>(setup_.plan->sched)) {
  if (setup_.tok) {
    grammars_ =
        std::make_unique<grammar_compiler>(setup_.tok, setup_.vocab_size, setup_.eos_token_ids);
  }
}

engine_core_base::~engine_core_base() = default;

bool engine_core_base::has_work() const {
  return scheduler_->has_unfinished() || scheduler_->num_steps_in_flight() > 0;
}

std::size_t engine_core_base::num_in_flight_steps() const {
  return scheduler_->num_steps_in_flight();
}

bool engine_core_base::can_plan_step() const {
  return scheduler_->num_steps_in_flight() < k_max_steps_in_flight && scheduler_->can_plan();
}

std::uint64_t engine_core_base::num_blocks_held() const {
  return scheduler_->kv().num_blocks_held();
}

void engine_core_base::record_executor_time(const executor_step_figures& figures) {
  totals_.executor_idle_s += figures.idle_s;
  totals_.executor_busy_s += figures.busy_s;
  totals_.executor_host_s += figures.host_s;
  totals_.device_idle_s += figures.device_idle_s;
  totals_.device_busy_s += figures.device_busy_s;
  if (figures.replayed_graph) ++totals_.num_graph_steps;
  scheduler_->observe_step_time(figures.busy_s, figures.idle_s);
}

void engine_core_base::record_expert_load(std::span<const std::int32_t> load,
                                          std::int32_t num_experts) {
  if (load.empty() || num_experts <= 0) return;
  std::vector<std::uint64_t>& totals = totals_.moe_expert_tokens;
  if (totals.size() != load.size()) {
    totals.assign(load.size(), 0);
    last_expert_load_.assign(load.size(), 0);
    totals_.moe_num_experts = static_cast<std::uint32_t>(num_experts);
  }
  for (std::size_t i = 0; i < load.size(); ++i) {
    const auto now = static_cast<std::uint32_t>(load[i]);
    totals[i] += static_cast<std::uint32_t>(now - last_expert_load_[i]);  // modulo 2^32
    last_expert_load_[i] = now;
  }
}

std::vector<request_id> engine_core_base::live_requests() const {
  std::vector<request_id> ids;
  ids.reserve(requests_.size());
  for (const auto& [id, state] : requests_) ids.push_back(id);
  return ids;
}

// ---- admission ----

// The one request check (request_check.h), then the queue limit.
status engine_core_base::check_admission(generation_request& request) const {
  if (status ok = prepare_request(limits_, request); !ok) return ok;
  const std::uint32_t limit = setup_.plan->max_waiting_requests;
  if (scheduler_->num_waiting() + request.sampling.n > limit) {
    return make_error(error_code::overloaded, "too many waiting requests (limit " +
                                                  std::to_string(limit) + "): retry later");
  }
  return status::success();
}

result<compiled_grammar_ptr> engine_core_base::grammar_for(const generation_request& request) {
  if (!request.sampling.structured_outputs) return compiled_grammar_ptr{};
  if (!grammars_) {
    return make_error(error_code::invalid_argument,
                      "structured outputs need a tokenizer; this engine has none");
  }
  return grammars_->compile(*request.sampling.structured_outputs);
}

sched::request_spec engine_core_base::spec_for(const request_state& r, seq_id seq,
                                               double now) const {
  const generation_request& req = r.request;
  sched::request_spec spec;
  spec.id = seq;
  spec.prompt_token_ids = r.prompt_ids;
  spec.max_tokens = req.sampling.max_tokens;
  spec.priority = req.priority;
  spec.arrival_time = now;
  spec.ignore_eos = req.sampling.ignore_eos;
  // Every EOS id stops (the scheduler knows one EOS; several are stop ids here).
  spec.stop_token_ids = req.sampling.stop_token_ids;
  if (!req.sampling.ignore_eos) {
    spec.stop_token_ids.insert(spec.stop_token_ids.end(), setup_.eos_token_ids.begin(),
                               setup_.eos_token_ids.end());
  }
  // Only completion 0 computes the prompt logprobs (its siblings share the prompt). Mean and
  // CLS pooling read every position's hidden state: none may come from the cache.
  const std::optional<pooling_params>& pooling = req.sampling.pooling;
  spec.skip_reading_prefix_cache =
      (req.sampling.prompt_logprobs.has_value() && seq == r.completions.front().seq) ||
      (pooling && pooling->type != pooling_type::last);
  return spec;
}

result<request_id> engine_core_base::add_request(generation_request request, double now) {
  auto reject = [this](error e) -> result<request_id> {
    ++totals_.num_rejected;
    return e;
  };
  // An embedding request generates nothing: its one sample only ends the prefill.
  if (request.sampling.pooling) request.sampling.max_tokens = 1;
  if (const status valid = check_admission(request); !valid) return reject(valid.err());
  result<compiled_grammar_ptr> grammar = grammar_for(request);
  if (!grammar) return reject(grammar.err());

  auto state = std::make_unique<request_state>();
  state->id = request_id{next_request_++};
  state->arrival_time = now;
  state->prompt_ids = std::move(request.prompt_token_ids);
  state->request = std::move(request);
  state->grammar = std::move(*grammar);
  state->request.prompt_token_ids.clear();
  state->request.prompt.clear();
  const std::uint32_t n = state->request.sampling.n;
  state->completions.resize(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    completion& c = state->completions[i];
    c.owner = state.get();
    c.index = i;
    c.seq = seq_id{next_seq_++};
    const generation_request& r = state->request;
    c.stream = std::make_unique<output_stream>(
        setup_.tok,
        text_options{r.sampling.stop, r.sampling.skip_special_tokens, r.sampling.min_tokens,
                     r.sampling.include_stop_str_in_output},
        state->prompt_ids);
  }
  // Completion 0 goes first; its siblings follow once its prompt is computed (see
  // add_siblings), so they find the prompt's full blocks in the prefix cache.
  completion& first = state->completions[0];
  auto added = scheduler_->add_request(spec_for(*state, first.seq, now), now);
  if (!added) return reject(added.err());
  first.queued = true;
  by_seq_.emplace(first.seq, &first);
  // Its arrival event stays with the scheduler and is routed with the next step's: events
  // of a step already planned may be waiting there too, and none may be dropped.
  const request_id id = state->id;
  ++totals_.num_requests;
  totals_.num_prompt_tokens += static_cast<std::uint64_t>(state->prompt_ids.size()) * n;
  requests_.emplace(id, std::move(state));
  return id;
}

// ---- steps ----

bool engine_core_base::plan(double now, step_message& msg) {
  if (!can_plan_step()) return false;
  scheduler_->schedule(now, msg.plan);
  msg.new_sequences.clear();
  for (const sched::scheduled_sequence& entry : msg.plan.scheduled) {
    if (entry.kind != sched::schedule_kind::new_sequence) continue;
    completion& c = *by_seq_.at(entry.seq);
    if (!c.first_scheduled) c.first_scheduled = now;
    const request_state& owner = *c.owner;
    sequence_sampling added{entry.seq, owner.request.sampling, c.index};
    if (c.index != 0) added.params.prompt_logprobs.reset();
    added.num_prompt_tokens = static_cast<std::uint32_t>(owner.prompt_ids.size());
    added.grammar = owner.grammar;
    added.held_stop_token_ids = owner.request.sampling.stop_token_ids;
    if (!owner.request.sampling.ignore_eos) {
      added.held_stop_token_ids.insert(added.held_stop_token_ids.end(),
                                       setup_.eos_token_ids.begin(), setup_.eos_token_ids.end());
    }
    msg.new_sequences.push_back(std::move(added));
  }
  count_step(msg.plan);
  return true;
}

void engine_core_base::count_step(const sched::step_plan& plan) {
  ++totals_.num_steps;
  // Steps that compute nothing (everything waiting is blocked on memory) are not iterations.
  if (!plan.empty()) totals_.iteration_tokens.observe(plan.num_batched_tokens);
  totals_.sum_batch_size += static_cast<double>(plan.scheduled.size());
  if (plan.stats.num_kv_slots_allocated > 0) {
    totals_.kv_utilization_sum += static_cast<double>(plan.stats.num_kv_tokens_held) /
                                  static_cast<double>(plan.stats.num_kv_slots_allocated);
  }
}

void engine_core_base::apply(const sched::step_output& output, double now,
                             std::vector<event>& events) {
  at_ = moment{output.step, now};
  route_scheduler_events(events);  // arrivals, admissions and preemptions since the last call
  release_lifecycle(output.step, events);  // this step's, before its tokens
  scheduler_->update_from_output(output, now);
  count_speculation(output);
  emit_tokens(output, now, events);
  route_scheduler_events(events);
  release_lifecycle(output.step, events);  // siblings queued by this step's first token
}

// Tokens of completions still going become chunks. A token of a completion already done
// (work planned before it stopped) is discarded, as the scheduler discards it.
void engine_core_base::emit_tokens(const sched::step_output& output, double now,
                                   std::vector<event>& events) {
  for (const sched::sampled_token& sampled : output.sampled) {
    const auto it = by_seq_.find(sampled.seq);
    if (it == by_seq_.end() || it->second->done) continue;
    emit_token(*it->second, sampled, now, events);
  }
}

// A speculative run: its first token names how many tokens were proposed; the tokens of
// the same sequence after it are the accepted ones, then one sampled token.
void engine_core_base::count_speculation(const sched::step_output& output) {
  const std::vector<sched::sampled_token>& sampled = output.sampled;
  for (std::size_t i = 0; i < sampled.size(); ++i) {
    const std::uint32_t num_proposed = sampled[i].num_draft_tokens;
    if (num_proposed == 0) continue;
    std::size_t end = i + 1;
    while (end < sampled.size() && sampled[end].seq == sampled[i].seq) ++end;
    const std::size_t num_accepted = end - i - 1;
    ++totals_.spec_decode_num_drafts;
    totals_.spec_decode_num_draft_tokens += num_proposed;
    totals_.spec_decode_num_accepted_tokens += num_accepted;
    std::vector<std::uint64_t>& per_pos = totals_.spec_decode_accepted_per_pos;
    if (per_pos.size() < num_proposed) per_pos.resize(num_proposed, 0);
    for (std::size_t pos = 0; pos < num_accepted; ++pos) ++per_pos[pos];
    i = end - 1;
  }
}

// n > 1: the siblings of completion 0 join when its first token arrives. Its prompt's full
// blocks were committed to the prefix cache just before, so each sibling only computes the
// prompt's last partial block (a fork without copy-on-write). Every sibling has the same
// prompt and limits as completion 0, which was accepted, so none can be rejected.
void engine_core_base::add_siblings(request_state& r, double now) {
  for (completion& c : r.completions) {
    if (c.queued || c.done) continue;
    auto added = scheduler_->add_request(spec_for(r, c.seq, now), now);
    if (!added) {
      std::fprintf(stderr, "pagedserve::engine_core: sibling of an accepted request rejected: %s\n",
                   added.err().message.c_str());
      std::abort();
    }
    c.queued = true;
    by_seq_.emplace(c.seq, &c);
  }
}

void engine_core_base::emit_token(completion& c, const sched::sampled_token& sampled, double now,
                                  std::vector<event>& events) {
  if (c.owner->request.sampling.pooling) {
    emit_embedding(c, sampled, now, events);
    return;
  }
  if (c.index == 0 && c.num_generated == 0) add_siblings(*c.owner, now);
  ++c.num_generated;
  ++totals_.num_generation_tokens;
  output_stream::delta delta = c.stream->push(sampled.token);
  // Built in place: moving a variant of these structs trips GCC 12's -Wmaybe-uninitialized.
  event& e = events.emplace_back();
  e.request = c.owner->id;
  auto& chunk = e.payload.emplace<token_chunk>();
  chunk.request = c.owner->id;
  chunk.index = c.index;
  chunk.token_ids = std::move(delta.token_ids);
  chunk.text = std::move(delta.text);
  if (c.owner->request.sampling.logprobs) attach_logprobs(c, sampled, chunk);
  if (!sampled.prompt_logprobs.empty()) attach_prompt_logprobs(c, sampled, chunk);
  if (!delta.stop_string) return;
  // The text reached a stop string: the scheduler stops the sequence now (its blocks go
  // back at once); its own finished event is then ignored since the completion is done.
  (void)scheduler_->finish_request(c.seq, finish_reason::stop, now);
  end_completion(c, finish_reason::stop, std::string(), events, std::move(delta.stop_string));
}

// An embedding request's one sample: a chunk with the embedding and no token, then its end
// (the scheduler releases the blocks now; the sampled token is never shown or counted).
void engine_core_base::emit_embedding(completion& c, const sched::sampled_token& sampled,
                                      double now, std::vector<event>& events) {
  event& e = events.emplace_back();
  e.request = c.owner->id;
  auto& chunk = e.payload.emplace<token_chunk>();
  chunk.request = c.owner->id;
  chunk.index = c.index;
  chunk.embedding = sampled.embedding;
  (void)scheduler_->finish_request(c.seq, finish_reason::stop, now);
  end_completion(c, finish_reason::stop, std::string(), events);
}

// Lifecycle events from the scheduler: cached prefix lengths, the client's lifecycle events
// (report_lifecycle; held until their step is applied), and the ends it decided (length,
// EOS/stop ids, cancel, abort).
void engine_core_base::route_scheduler_events(std::vector<event>& events) {
  scheduler_->take_events(scheduler_events_);
  for (const sched::scheduler_event& e : scheduler_events_) {
    const auto it = by_seq_.find(sched::stamp_of(e).seq);
    if (it == by_seq_.end() || it->second->done) continue;
    completion& c = *it->second;
    if (c.owner->request.report_lifecycle) hold_lifecycle(c.owner->id, c.index, e);
    if (const auto* admitted = std::get_if<sched::request_scheduled>(&e)) {
      c.num_cached_tokens = admitted->num_cached_tokens;
    } else if (const auto* done = std::get_if<sched::request_finished>(&e)) {
      const finish_reason kind = (done->reason);
      std::string why = kind == finish_reason::error ? abort_reason_ : std::string();
      end_completion(c, kind, why, events);
      // Completion 0 ended before its first token: its siblings never start.
      if (c.index == 0 && c.num_generated == 0) end_unqueued(*c.owner, kind, why, events);
    }
  }
}

void engine_core_base::end_unqueued(request_state& r, finish_reason reason, const std::string& why,
                                    std::vector<event>& events) {
  for (completion& c : r.completions) {
    if (!c.queued && !c.done) end_completion(c, reason, why, events);
  }
}

// The final of `c`: what the stream still held (not after an abort or a cancel's
// truncation: a cancelled completion still gets its held text, it was generated).
void engine_core_base::end_completion(completion& c, finish_reason reason,
                                      std::string error_message, std::vector<event>& events,
                                      std::optional<std::string> stop_string) {
  if (c.owner->request.report_lifecycle) report_finished(c.owner->id, c.index, events);
  request_final final_event;
  final_event.stop_string = std::move(stop_string);
  final_event.request = c.owner->id;
  final_event.index = c.index;
  final_event.reason = reason;
  final_event.error_message = std::move(error_message);
  if (reason != finish_reason::error) final_event.text = c.stream->flush();
  final_event.usage = request_usage{static_cast<std::uint32_t>(c.owner->prompt_ids.size()),
                                    c.num_generated, c.num_cached_tokens};
  if (c.first_scheduled) final_event.queue_time_s = *c.first_scheduled - c.owner->arrival_time;
  c.done = true;
  final_event.finished = ++c.owner->num_done == c.owner->completions.size();
  if (final_event.finished) ended_.push_back(c.owner->id);
  ++totals_.num_finished_by(reason);
  events.push_back(event{c.owner->id, std::move(final_event)});
}

void engine_core_base::fail(std::uint64_t step, const std::string& why, double now,
                            std::vector<event>& events) {
  ++totals_.num_failed_steps;
  at_ = moment{step, now};
  route_scheduler_events(events);
  release_lifecycle(step, events);
  abort_reason_ = why;
  (void)scheduler_->abort_step(step, now);
  route_scheduler_events(events);
  abort_reason_.clear();
}

bool engine_core_base::cancel_request(request_id id, double now, std::vector<event>& events) {
  const auto it = requests_.find(id);
  if (it == requests_.end()) return false;
  at_ = moment{scheduler_->totals().num_steps, now};  // the step the next plan will get
  route_scheduler_events(events);
  for (completion& c : it->second->completions) {
    if (!c.done && c.queued) (void)scheduler_->cancel(c.seq, now);
  }
  route_scheduler_events(events);
  end_unqueued(*it->second, finish_reason::cancelled, std::string(), events);
  return true;
}

// Requests whose every completion has ended leave; their ids go to the caller once.
void engine_core_base::take_ended(std::vector<request_id>& out) {
  out.clear();
  out.swap(ended_);
  for (const request_id id : out) {
    const auto it = requests_.find(id);
    for (const completion& c : it->second->completions) {
      if (c.queued) by_seq_.erase(c.seq);
    }
    requests_.erase(it);
  }
}

engine_stats engine_core_base::stats() const {
  engine_stats s = totals_;
  const sched::scheduler_totals& t = scheduler_->totals();
  s.num_running = scheduler_->num_running();
  s.num_waiting = scheduler_->num_waiting();
  s.num_total_blocks = setup_.plan->sched.num_blocks;
  s.num_free_blocks = s.num_total_blocks - scheduler_->kv().num_blocks_held();
  s.kv_usage = scheduler_->kv().usage();
  s.num_preemptions = t.num_preemptions;
  s.prefix_cache_queries = t.prefix_queries;
  s.prefix_cache_hits = t.prefix_hits;
  return s;
}

}  // namespace pagedserve
