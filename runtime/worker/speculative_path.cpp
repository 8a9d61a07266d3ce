// model_step_executor's speculative decoding (host path). An entry with lookahead slots
// (scheduled_sequence::num_speculative_tokens) gets up to that many proposed tokens from the
// proposer; they are fed after its scheduled token in the same forward, and the logits at
// their rows verify them one position at a time (speculative_sampling.h):
//
//   row 0 (the scheduled token) -> the distribution of the token after it; the first
//   proposed token is accepted or replaced there; row j verifies proposed token j + 1; the
//   row after the last accepted one gives one more token (the bonus when all are accepted).
//
// Each position's distribution is the sequence's full sampling (penalties over the tokens
// before it, logit bias, min_tokens, bad words, the grammar's mask), computed with the
// accepted tokens already appended: the state after accepting is the state a non-speculative
// step would have, so nothing is rolled back and the grammar never sees a rejected token.
// The run ends at the first stop token (the scheduler stops there too). KV written for the
// rejected positions is simply overwritten later: the scheduler's next entry starts there.

#include <algorithm>
#include <memory>
#include <vector>

#include "runtime/sampling/sampler.h"
#include "runtime/sampling/speculative_sampling.h"
#include "runtime/worker/model_step_executor.h"

namespace pagedserve::detail {
namespace {

bool is_stop(const live_sequence& s, token_id token) {
  return std::find(s.held_stop_token_ids.begin(), s.held_stop_token_ids.end(), token) !=
         s.held_stop_token_ids.end();
}

// Whether the member has lookahead slots to fill.
bool speculates(const scheduled_sequence& entry, const live_sequence* s) {
  return s != nullptr && entry.num_speculative_tokens > 0 && entry.samples;
}

}  // namespace

std::vector<std::uint32_t> model_step_executor::propose_tokens(
    const step_plan& plan, const std::vector<live_sequence*>& members) {
  if (draft_ != nullptr) return propose_with_draft(plan, members);
  std::vector<std::uint32_t> num_proposed;
  if (proposer_ == nullptr) return num_proposed;
  thread_local std::vector<token_id> proposed;
  for (std::size_t i = 0; i < members.size(); ++i) {
    const scheduled_sequence& entry = plan.scheduled[i];
    live_sequence* s = members[i];
    if (!speculates(entry, s)) continue;
    proposer_->propose(s->tokens, entry.num_speculative_tokens, proposed);
    if (proposed.empty()) continue;
    if (num_proposed.empty()) num_proposed.assign(members.size(), 0);
    // Held in the sequence's tokens for the forward (batch_of reads them there); taken out
    // again before verification appends what is accepted.
    s->tokens.insert(s->tokens.end(), proposed.begin(), proposed.end());
    num_proposed[i] = static_cast<std::uint32_t>(proposed.size());
  }
  return num_proposed;
}

// The draft model proposes for every speculating member in one batched forward per
// position (draft_model_proposer.h); each member's draft K/V count goes with it.
std::vector<std::uint32_t> model_step_executor::propose_with_draft(
    const step_plan& plan, const std::vector<live_sequence*>& members) {
  std::vector<std::uint32_t> num_proposed;
  thread_local std::vector<spec::draft_request> requests;
  thread_local std::vector<std::size_t> owners;
  requests.clear();
  owners.clear();
  for (std::size_t i = 0; i < members.size(); ++i) {
    live_sequence* s = members[i];
    if (!speculates(plan.scheduled[i], s)) continue;
    requests.push_back({s->tokens,
                        s->block_table,
                        plan.scheduled[i].num_speculative_tokens,
                        s->draft_computed,
                        {}});
    owners.push_back(i);
  }
  if (requests.empty()) return num_proposed;
  draft_->propose(requests);
  num_proposed.assign(members.size(), 0);
  for (std::size_t r = 0; r < requests.size(); ++r) {
    live_sequence* s = members[owners[r]];
    s->draft_computed = requests[r].num_computed;
    s->tokens.insert(s->tokens.end(), requests[r].proposed.begin(), requests[r].proposed.end());
    num_proposed[owners[r]] = static_cast<std::uint32_t>(requests[r].proposed.size());
  }
  return num_proposed;
}

void model_step_executor::prefill_draft(const step_plan& plan,
                                        const std::vector<live_sequence*>& members) {
  if (draft_ == nullptr) return;
  thread_local std::vector<spec::draft_request> requests;
  thread_local std::vector<live_sequence*> owners;
  requests.clear();
  owners.clear();
  for (std::size_t i = 0; i < members.size(); ++i) {
    const scheduled_sequence& entry = plan.scheduled[i];
    live_sequence* s = members[i];
    if (s == nullptr || !entry.samples || entry.num_scheduled_tokens < 2) continue;
    const std::uint32_t computed = entry.first_position + entry.num_scheduled_tokens;
    if (s->draft_computed >= computed) continue;
    requests.push_back({std::span<const token_id>(s->tokens).first(computed),
                        s->block_table,
                        0,
                        s->draft_computed,
                        {}});
    owners.push_back(s);
  }
  if (requests.empty()) return;
  draft_->catch_up(requests);
  for (std::size_t r = 0; r < requests.size(); ++r)
    owners[r]->draft_computed = requests[r].num_computed;
}

void model_step_executor::verify_proposed(const scheduled_sequence& entry, live_sequence& s,
                                          std::uint32_t num_proposed, std::span<const float> logits,
                                          in_flight_step& f) {
  const std::vector<token_id> proposed(s.tokens.end() - num_proposed, s.tokens.end());
  s.tokens.resize(s.tokens.size() - num_proposed);
  const auto vocab = static_cast<std::size_t>(vocab_size_);
  thread_local std::vector<float> weights;
  const std::size_t first_answer = f.answers.size();
  for (std::uint32_t j = 0; j <= num_proposed; ++j) {
    const std::span<const float> row = logits.subspan(j * vocab, vocab);
    sampling_weights(process_on_host(row, s), s.params, weights);
    token_id token = 0;
    bool accepted = false;
    if (j < num_proposed) {
      accepted = accept_proposed(weights, proposed[j], s.sampler.next_uniform());
      token = accepted ? proposed[j]
                       : sample_after_rejection(weights, proposed[j], s.sampler.next_uniform());
    } else {
      token = draw_weighted(weights, s.sampler.next_uniform());
    }
    take_host_sample(s, token);
    answer& a = f.answers.emplace_back(answer{entry.seq, -1, std::nullopt, token, std::nullopt});
    if (s.params.logprobs) a.host_logprobs = compute_logprobs(row, token, *s.params.logprobs);
    if (!accepted || is_stop(s, token)) break;
    ++s.num_computed;  // the accepted token's position was computed by this step
  }
  f.answers[first_answer].num_draft_tokens = num_proposed;
}

bool model_step_executor::all_decodes(const step_plan& plan,
                                      const std::vector<live_sequence*>& members) {
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (members[i] != nullptr && plan.scheduled[i].num_scheduled_tokens != 1) return false;
  }
  return !reads_prompt_rows(members);
}

// Each verifying member's rows out of every row's logits (the step's forward made them).
std::vector<verification_rows> model_step_executor::verification_from_all_rows(
    const step_plan& plan, const std::vector<live_sequence*>& members,
    std::span<const std::uint32_t> num_proposed, std::vector<float> all_logits) {
  std::vector<verification_rows> out(members.size());
  const auto logits = std::make_shared<const std::vector<float>>(std::move(all_logits));
  const auto vocab = static_cast<std::size_t>(vocab_size_);
  std::size_t row = 0;
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (members[i] == nullptr) continue;
    if (num_proposed[i] > 0) out[i] = {logits, row * vocab};
    row += plan.scheduled[i].num_scheduled_tokens + num_proposed[i];
  }
  return out;
}

// Every verifying member's rows (its scheduled token's and its proposed tokens') read in as
// few row_logits calls as memory allows: one lm_head pass for the step, not one per sequence.
std::vector<verification_rows> model_step_executor::read_verification_logits(
    const step_plan& plan, const std::vector<live_sequence*>& members,
    std::span<const std::uint32_t> num_proposed) {
  std::vector<verification_rows> out(members.size());
  const auto vocab = static_cast<std::size_t>(vocab_size_);
  const std::size_t rows_per_read = std::max<std::size_t>(1, k_max_verification_logits / vocab);
  std::vector<std::int32_t> rows;
  std::vector<std::size_t> owners;  // member of each read's group
  std::int32_t token_row = 0;
  const auto flush = [&] {
    if (rows.empty()) return;
    auto logits = std::make_shared<const std::vector<float>>(forward_->row_logits(rows));
    std::size_t offset = 0;
    for (const std::size_t i : owners) {
      out[i] = {logits, offset};
      offset += (num_proposed[i] + 1) * vocab;
    }
    rows.clear();
    owners.clear();
  };
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (members[i] == nullptr) continue;
    const std::uint32_t count = plan.scheduled[i].num_scheduled_tokens + num_proposed[i];
    if (num_proposed[i] > 0) {
      if (rows.size() + num_proposed[i] + 1 > rows_per_read) flush();
      for (std::uint32_t j = 0; j <= num_proposed[i]; ++j) {
        rows.push_back(token_row + static_cast<std::int32_t>(count - 1 - num_proposed[i] + j));
      }
      owners.push_back(i);
    }
    token_row += static_cast<std::int32_t>(count);
  }
  flush();
  return out;
}

}  // namespace pagedserve::detail
