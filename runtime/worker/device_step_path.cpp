// model_step_executor's device path: the forward and the sampling of a step enqueued on the
// device; tokens sampled there feed the next step without a round trip through the host.

#include <bit>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/worker/model_step_executor.h"

namespace pagedserve::detail {

// Enqueues the forward and the device sampling of every row. A member's token that is
// still a placeholder comes from the previous step's samples on the device; each sampled
// token becomes a placeholder until collect.
void model_step_executor::enqueue_on_device(const step_plan& plan,
                                            const std::vector<live_sequence*>& members,
                                            in_flight_step& f) {
  std::vector<forward::device_token> device_tokens;
  std::vector<std::int32_t> trailer;
  step_processing processing;
  std::optional<std::uint64_t> source_step;
  std::int32_t token_row = 0;
  std::int32_t row = 0;
  bool keep_logits = false;
  std::vector<std::pair<std::size_t, live_sequence*>> prompt_takers;  // answer index
  for (std::size_t i = 0; i < members.size(); ++i) {
    const scheduled_sequence& entry = plan.scheduled[i];
    live_sequence* s = members[i];
    if (s == nullptr) {
      if (entry.samples) f.answers.push_back(skipped(entry.seq));
      continue;
    }
    if (s->pending && s->waits_for_samples) resolve_pending(*s);
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
    // Its first entry takes the counts' slot, inside the step: growing the counts may fail
    // (device memory), and then the step fails and drops its sequences.
    if (s->params.has_penalties() && s->penalty_slot < 0) {
      s->penalty_slot = sampler_->counts().acquire();
    }
    if (entry.kind != schedule_kind::continuing) add_count_load(*s, processing);
    token_row += static_cast<std::int32_t>(entry.num_scheduled_tokens);
    s->num_computed = entry.first_position + entry.num_scheduled_tokens;
    if (entry.samples) {
      kernels::sampling_row sampling = take_sampling_row(s->params, s->sampler);
      add_processing(*s, sampling, processing);
      append_words(sampling, trailer);
      s->tokens.push_back(0);  // placeholder: the device knows it
      s->pending = pending_sample{plan.step, row, s->tokens.size() - 1};
      if ((s->params.prompt_logprobs && !s->prompt_logprobs_sent) ||
          (s->params.pooling && !s->embedding_sent)) {
        prompt_takers.emplace_back(f.answers.size(), s);
      }
      f.answers.push_back({entry.seq, row, s->params.logprobs, 0, std::nullopt});
      keep_logits = keep_logits || s->params.logprobs.has_value();
    } else {
      append_words(unused_sampling_row(), trailer);
    }
    ++row;
  }
  if (row == 0) return;
  // After the placeholders went in: the batch's spans point into the token vectors.
  forward::forward_batch batch = batch_of(plan, members, {});
  batch.device_tokens = std::move(device_tokens);
  if (source_step) batch.token_source = sampler_->tokens_on_device(*source_step);
  batch.trailer = trailer;
  batch.eager = reads_prompt_rows(members);
  sampler_->begin(plan.step);
  forward_->enqueue(batch, *cache_);
  f.replayed_graph = forward_->last_replayed_graph();
  if (batch.eager) {
    gather_prompt_logprobs(plan, members);
    gather_pooled_rows(plan, members);
  }
  for (const auto& [index, s] : prompt_takers) {
    take_prompt_logprobs(*s, f.answers[index]);
    take_embedding(*s, f.answers[index]);
  }
  sampler_->sample(plan.step, forward_->last_logits(), forward_->last_trailer(), keep_logits,
                   processing);
  f.on_device = true;
  f.previous_device_step = last_device_step_;
  last_device_step_ = plan.step;
}

void model_step_executor::add_processing(live_sequence& s, kernels::sampling_row& row,
                                         step_processing& processing) {
  row.penalty_slot = s.penalty_slot;
  std::vector<logit_edit> edits = s.edits();
  std::span<const token_id> allowed = s.params.allowed_token_ids;
  thread_local std::vector<std::uint32_t> mask;
  if (s.matcher) {
    s.fill_grammar_mask(mask);
    live_sequence::yield_to_grammar(mask, edits, allowed);
  }
  row.edit_begin = static_cast<std::int32_t>(processing.edits.size() / 2);
  row.edit_count = static_cast<std::int32_t>(edits.size());
  for (const logit_edit& e : edits) {
    processing.edits.push_back(e.token);
    processing.edits.push_back(std::bit_cast<std::int32_t>(e.bias));
  }
  // allowed_token_ids ride in the edits array as (token, 0) pairs, ascending.
  row.allow_begin = static_cast<std::int32_t>(processing.edits.size() / 2);
  row.allow_count = static_cast<std::int32_t>(allowed.size());
  for (const token_id t : allowed) {
    processing.edits.push_back(t);
    processing.edits.push_back(0);
  }
  // The grammar's bitmask rides there too, its words two per pair.
  if (s.matcher) {
    row.mask_begin = static_cast<std::int32_t>(processing.edits.size() / 2);
    row.mask_words = static_cast<std::int32_t>(mask.size());
    for (const std::uint32_t word : mask)
      processing.edits.push_back(std::bit_cast<std::int32_t>(word));
    if (mask.size() % 2 != 0) processing.edits.push_back(0);
  }
  processing.processes = processing.processes || !edits.empty() || s.penalty_slot >= 0 ||
                         row.allow_count > 0 || row.mask_words > 0;
  processing.counts = processing.counts || s.penalty_slot >= 0;
}

void model_step_executor::resolve_pending(live_sequence& s) {
  sampler_->wait(s.pending->step);
  const token_id token =
      sampler_->tokens(s.pending->step)[static_cast<std::size_t>(s.pending->row)];
  if (token < 0 || token >= vocab_size_) die("the device sampled a token outside the vocabulary");
  s.tokens[s.pending->position] = token;
  s.pending.reset();
}

// A (re)loaded sequence's device counts, from every token it has (none is pending then).
void model_step_executor::add_count_load(const live_sequence& s, step_processing& processing) {
  if (s.penalty_slot < 0) return;
  processing.cleared_slots.push_back(s.penalty_slot);
  auto add = [&](std::span<const token_id> tokens, std::int32_t kind) {
    for (const token_id t : tokens) {
      processing.count_entries.insert(processing.count_entries.end(), {s.penalty_slot, t, kind});
    }
  };
  add(s.prompt(), 0);
  add(s.generated(), 1);
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
    sampled.prompt_logprobs = a.prompt_logprobs;  // f is const: the step is read once
    sampled.embedding = a.embedding;
    if (a.row >= 0 && a.logprobs) {
      sampled.logprobs = compute_logprobs(sampler_->logits_row(f.step, a.row), token, *a.logprobs);
    }
  }
  return output;
}

}  // namespace pagedserve::detail
