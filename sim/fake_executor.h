#pragma once
// fake_executor: stands in for the model in the simulator (see simulator.h). Its state comes
// only from step plans (the same sequence_mirror as the model executor's), so it also
// checks that plans carry what an executor needs.
//
// Speculative entries (lookahead slots) are answered as a greedy verifier would: the
// proposed tokens are the model's own next tokens for a stretch (its length from the
// context's hash, so some stretches cover every slot and some none) and then a wrong one;
// the run is the accepted stretch and the model's token after it. A scheduler that handles
// runs right therefore yields exactly the tokens it yields without speculation.

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "common/ids.h"
#include "common/types.h"
#include "runtime/sched/sequence_mirror.h"
#include "runtime/sched/step_plan.h"

namespace pagedserve::sim {

class fake_executor {
 public:
  // Every plan's block tables are checked to cover its positions at `block_size`.
  explicit fake_executor(std::uint32_t block_size) : block_size_(block_size) {}

  [[nodiscard]] sched::step_output run(const sched::step_plan& plan);

  // Plans that contradicted what this executor knew; 0 when the protocol holds.
  [[nodiscard]] std::uint64_t num_protocol_errors() const { return num_protocol_errors_; }
  [[nodiscard]] std::size_t num_sequences() const { return sequences_.size(); }

  // The deterministic "model": next token of a context whose rolling hash is `hash`.
  [[nodiscard]] static token_id next_token(std::uint64_t context_hash);
  [[nodiscard]] static std::uint64_t extend_hash(std::uint64_t hash, token_id token);

 private:
  struct seq_state : sched::sequence_mirror {
    std::uint64_t hash = 0;  // over every token in `tokens`
  };

  seq_state* take_entry(const sched::scheduled_sequence& entry);
  // The token the model samples next for `state`, appended to it and to `output`.
  void sample_into(seq_state& state, seq_id seq, sched::step_output& output,
                   std::uint32_t num_draft_tokens);
  void run_speculative(const sched::scheduled_sequence& entry, seq_state& state,
                       sched::step_output& output);
  void expect(bool condition) { num_protocol_errors_ += condition ? 0 : 1; }

  std::uint32_t block_size_ = 0;
  std::unordered_map<seq_id, seq_state> sequences_;
  std::uint64_t num_protocol_errors_ = 0;
};

}  // namespace pagedserve::sim
