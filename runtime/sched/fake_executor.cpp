#include "runtime/sched/fake_executor.h"

namespace pagedserve::sched {

namespace {

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
    if (entry.kind != schedule_kind::continuing) load(entry);
    const auto it = sequences_.find(entry.seq);
    expect(it != sequences_.end());
    if (it == sequences_.end()) continue;
    seq_state& state = it->second;
    expect(entry.first_position == state.num_computed);
    state.num_blocks += entry.kind == schedule_kind::continuing ? entry.block_ids.size() : 0;
    state.num_computed = entry.first_position + entry.num_scheduled_tokens;
    expect(state.num_computed <= state.tokens.size());
    if (block_size_ > 0) expect(state.num_blocks * block_size_ >= state.num_computed);
    expect(entry.samples == (state.num_computed == state.tokens.size()));
    if (!entry.samples) continue;
    const token_id token = next_token(state.hash);
    state.tokens.push_back(token);
    state.hash = extend_hash(state.hash, token);
    output.sampled.push_back(sampled_token{entry.seq, token});
  }
  return output;
}

// New or resumed: everything known about the sequence arrives now; nothing is computed yet
// beyond first_position (the prefix cache's part).
void fake_executor::load(const scheduled_sequence& entry) {
  seq_state state;
  state.tokens = entry.token_ids;
  for (const token_id token : state.tokens) state.hash = extend_hash(state.hash, token);
  state.num_computed = entry.first_position;
  state.num_blocks = entry.block_ids.size();
  expect(!sequences_.contains(entry.seq));
  sequences_[entry.seq] = std::move(state);
}

}  // namespace pagedserve::sched
