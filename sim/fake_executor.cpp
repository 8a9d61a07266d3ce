#include "sim/fake_executor.h"

#include <algorithm>

namespace pagedserve::sim {

namespace {

using sched::sampled_token;
using sched::schedule_kind;
using sched::scheduled_sequence;
using sched::step_output;
using sched::step_plan;

// splitmix64's finaliser: a cheap, well-mixed 64-bit hash step.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

constexpr std::uint64_t vocab_size = 32000;

}  // namespace

std::uint64_t fake_executor::extend_hash(std::uint64_t hash, token_id token) {
  return mix(hash ^ static_cast<std::uint32_t>(token));
}

token_id fake_executor::next_token(std::uint64_t context_hash) {
  return static_cast<token_id>(mix(context_hash) % vocab_size);
}

step_output fake_executor::run(const step_plan& plan) {
  for (const seq_id gone : plan.finished) sequences_.erase(gone);
  for (const seq_id gone : plan.preempted) sequences_.erase(gone);
  step_output output;
  output.step = plan.step;
  for (const scheduled_sequence& entry : plan.scheduled) {
    seq_state* state = take_entry(entry);
    if (state == nullptr || !entry.samples) continue;
    if (entry.num_speculative_tokens > 0) {
      run_speculative(entry, *state, output);
    } else {
      sample_into(*state, entry.seq, output, 0);
    }
  }
  return output;
}

void fake_executor::sample_into(seq_state& state, seq_id seq, step_output& output,
                                std::uint32_t num_draft_tokens) {
  const token_id token = next_token(state.hash);
  state.tokens.push_back(token);
  state.hash = extend_hash(state.hash, token);
  sampled_token& sampled = output.sampled.emplace_back(seq, token);
  sampled.num_draft_tokens = num_draft_tokens;
}

// k slots; the first `right` proposals are the model's own tokens, then one wrong one.
void fake_executor::run_speculative(const scheduled_sequence& entry, seq_state& state,
                                    step_output& output) {
  const std::uint32_t k = entry.num_speculative_tokens;
  const auto right = static_cast<std::uint32_t>(mix(state.hash ^ 0x5eedULL) % (k + 2));
  const std::uint32_t num_proposed = std::min(k, right + 1);
  const std::size_t first = output.sampled.size();
  for (std::uint32_t i = 0; i < std::min(right, k); ++i) {  // accepted proposals
    sample_into(state, entry.seq, output, 0);
    ++state.num_computed;  // the accepted token's position was fed and computed
  }
  sample_into(state, entry.seq, output, 0);  // the correction, or the token after all k
  output.sampled[first].num_draft_tokens = num_proposed;
}

// The entry's data into the mirror; null (a protocol error counted) when they disagree.
fake_executor::seq_state* fake_executor::take_entry(const scheduled_sequence& entry) {
  if (entry.kind != schedule_kind::continuing) {
    // New or resumed: a finished or preempted sequence left no state behind.
    expect(!sequences_.contains(entry.seq));
    sequences_[entry.seq] = seq_state{};
  }
  const auto it = sequences_.find(entry.seq);
  expect(it != sequences_.end());
  if (it == sequences_.end()) return nullptr;
  seq_state& state = it->second;
  const std::optional<std::string> why = state.apply(entry, block_size_);
  expect(!why.has_value());
  if (why) return nullptr;
  if (entry.kind != schedule_kind::continuing) {
    state.hash = 0;
    for (const token_id token : state.tokens) state.hash = extend_hash(state.hash, token);
  }
  // Stricter than the mirror: an entry that reaches the last known token must sample.
  expect(entry.samples || state.num_computed < state.tokens.size());
  return &state;
}

}  // namespace pagedserve::sim
