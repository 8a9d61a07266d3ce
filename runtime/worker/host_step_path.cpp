// model_step_executor's host path (backends without device sampling): the step runs to the
// end in submit() and the host samples every row.

#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include "runtime/worker/model_step_executor.h"

namespace pagedserve::detail {

// Runs the step to the end and samples on the host (backends without device sampling).
void model_step_executor::run_on_host(const step_plan& plan,
                                      const std::vector<live_sequence*>& members,
                                      in_flight_step& f) {
  const std::vector<std::uint32_t> num_proposed = propose_tokens(plan, members);
  forward::forward_batch batch = batch_of(plan, members, num_proposed);
  // Prompt rows and proposed tokens' rows are read back after the forward; a step of
  // decodes only has every row's logits made in the forward's one output-layer pass.
  batch.eager = reads_prompt_rows(members) || !num_proposed.empty();
  batch.return_all_logits = !num_proposed.empty() && all_decodes(plan, members);
  batch.only_all_logits = batch.return_all_logits;
  forward::forward_output out;
  if (!batch.sequences.empty()) out = forward_->run(batch, *cache_);
  if (reads_prompt_rows(members)) {
    gather_prompt_logprobs(plan, members);
    gather_pooled_rows(plan, members);
  }
  prefill_draft(plan, members);
  std::vector<verification_rows> verification;
  if (batch.return_all_logits) {
    verification =
        verification_from_all_rows(plan, members, num_proposed, std::move(out.all_logits));
  } else if (!num_proposed.empty()) {
    verification = read_verification_logits(plan, members, num_proposed);
  }
  std::size_t row = 0;  // members[i]'s row in out.last_logits
  for (std::size_t i = 0; i < members.size(); ++i) {
    const scheduled_sequence& entry = plan.scheduled[i];
    live_sequence* s = members[i];
    if (s == nullptr) {
      if (entry.samples) f.answers.push_back(skipped(entry.seq));
      continue;
    }
    const std::size_t this_row = row++;
    const std::uint32_t proposed = num_proposed.empty() ? 0 : num_proposed[i];
    s->num_computed = entry.first_position + entry.num_scheduled_tokens;
    if (!entry.samples) continue;
    if (proposed > 0) {
      const verification_rows& v = verification[i];
      const auto size =
          static_cast<std::size_t>(proposed + 1) * static_cast<std::size_t>(vocab_size_);
      verify_proposed(entry, *s, proposed,
                      std::span<const float>(*v.logits).subspan(v.offset, size), f);
      continue;
    }
    const std::span<const float> logits = out.last(this_row);
    const token_id next = sample_on_host(logits, *s);
    take_host_sample(*s, next);
    answer& a = f.answers.emplace_back(
        answer{entry.seq, static_cast<std::int32_t>(this_row), std::nullopt, next, std::nullopt});
    // The raw distribution (before temperature and truncation), as vLLM reports by default.
    if (s->params.logprobs) a.host_logprobs = compute_logprobs(logits, next, *s->params.logprobs);
    take_prompt_logprobs(*s, a);
    take_embedding(*s, a);
  }
}

void model_step_executor::take_host_sample(live_sequence& s, token_id token) {
  s.tokens.push_back(token);
  if (s.params.has_penalties()) s.counts.add_generated(token);
}

// The sampler's pick from the logits after the sequence's processing (logits_processing.h).
token_id model_step_executor::sample_on_host(std::span<const float> logits, live_sequence& s) {
  return sample(process_on_host(logits, s), s.params, s.sampler);
}

std::span<const float> model_step_executor::process_on_host(std::span<const float> logits,
                                                            live_sequence& s) {
  std::vector<logit_edit> edits = s.edits();
  if (edits.empty() && !s.params.has_penalties() && s.params.allowed_token_ids.empty() &&
      !s.matcher) {
    return logits;
  }
  thread_local std::vector<float> processed;
  processed.assign(logits.begin(), logits.end());
  if (!s.matcher) {
    process_logits(processed, s.params, edits, &s.counts);
    return processed;
  }
  thread_local std::vector<std::uint32_t> mask;
  s.fill_grammar_mask(mask);
  apply_token_bitmask(processed, mask);
  std::span<const token_id> allowed = s.params.allowed_token_ids;
  if (live_sequence::yield_to_grammar(mask, edits, allowed) &&
      !s.params.allowed_token_ids.empty()) {
    sampling_params without_allowed = s.params;  // rare: a copy for this one step
    without_allowed.allowed_token_ids.clear();
    process_logits(processed, without_allowed, edits, &s.counts);
  } else {
    process_logits(processed, s.params, edits, &s.counts);
  }
  return processed;
}

sched::step_output model_step_executor::host_output(in_flight_step& f) {
  sched::step_output output;
  output.step = f.step;
  for (answer& a : f.answers) {
    sched::sampled_token& sampled = output.sampled.emplace_back(a.seq, a.token);
    sampled.logprobs = std::move(a.host_logprobs);
    sampled.prompt_logprobs = std::move(a.prompt_logprobs);
    sampled.embedding = std::move(a.embedding);
    sampled.num_draft_tokens = a.num_draft_tokens;
  }
  return output;
}

}  // namespace pagedserve::detail
