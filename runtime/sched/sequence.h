#pragma once
// sequence: one request's generation state as the scheduler sees it. There are no prefill or
// decode phases: a sequence has `num_tokens` known tokens (prompt + outputs) of which the
// first `num_computed_tokens` have their KV in the cache once the scheduled steps have run;
// each step it is scheduled some of the rest. It samples a token when a step's last
// scheduled position is its last token.
//
// Steps are planned ahead (step N+1 is planned while step N runs), so num_computed_tokens
// advances when a step is planned, and a token sampled by a step still in flight is
// `pending`: its position exists (the executor feeds it from its own sample) but its value
// is not known here yet.
//
//   tokens:   [ p0 p1 ... p(P-1) | o0 o1 ... o(k-1) ] [ pending ]   num_tokens = P + k
//   computed: [ ............ num_computed_tokens ........ )
//             always <= num_tokens + num_pending_outputs; one pending output per step in
//             flight that samples this sequence (at most 2)

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "api/finish_reason.h"
#include "common/ids.h"
#include "common/types.h"

namespace pagedserve::sched {

enum class sequence_status { waiting, running, preempted, finished };

[[nodiscard]] std::string_view to_string(sequence_status status);

// What the caller asks for; the scheduler checks it in add_request.
struct request_spec {
  seq_id id;  // the caller's, unique among the live sequences
  std::vector<token_id> prompt_token_ids;
  std::uint32_t max_tokens = 16;
  std::int32_t priority = 0;             // smaller is served first under the priority policy
  double arrival_time = 0.0;             // caller's clock, seconds; no clocks inside
  std::optional<token_id> eos_token_id;  // ends generation unless ignore_eos
  bool ignore_eos = false;
  std::vector<token_id> stop_token_ids;  // end generation (even with ignore_eos)
  // vLLM's skip_reading_prefix_cache: every prompt position is computed (prompt logprobs
  // need each position's logits). Its blocks are still cached for others.
  bool skip_reading_prefix_cache = false;
};

class sequence {
 public:
  explicit sequence(request_spec spec);

  [[nodiscard]] seq_id id() const { return id_; }
  [[nodiscard]] const request_spec& spec() const { return spec_; }
  [[nodiscard]] std::int32_t priority() const { return spec_.priority; }
  [[nodiscard]] double arrival_time() const { return spec_.arrival_time; }

  [[nodiscard]] std::span<const token_id> all_token_ids() const { return tokens_; }
  [[nodiscard]] std::span<const token_id> prompt_token_ids() const;
  [[nodiscard]] std::span<const token_id> output_token_ids() const;
  // The per-step accessors are inline: a step calls them for every running sequence.
  [[nodiscard]] std::uint32_t num_tokens() const {
    return static_cast<std::uint32_t>(tokens_.size());
  }
  [[nodiscard]] std::uint32_t num_prompt_tokens() const { return num_prompt_tokens_; }
  [[nodiscard]] std::uint32_t num_output_tokens() const {
    return num_tokens() - num_prompt_tokens_;
  }
  [[nodiscard]] std::uint32_t num_computed_tokens() const { return num_computed_tokens_; }
  // Positions not yet scheduled, the pending token's included.
  [[nodiscard]] std::uint32_t num_uncomputed_tokens() const {
    return num_tokens() + num_pending_outputs_ - num_computed_tokens_;
  }
  // Tokens sampled by steps in flight whose values have not arrived.
  [[nodiscard]] std::uint32_t num_pending_outputs() const { return num_pending_outputs_; }
  // Tokens this sequence may ever hold: prompt + max_tokens.
  [[nodiscard]] std::uint32_t max_num_tokens() const { return num_prompt_tokens_ + max_tokens_; }
  // True when the pending token will be the last one max_tokens allows: nothing is left to
  // plan until it arrives and ends the sequence.
  [[nodiscard]] bool pending_is_last() const {
    return num_pending_outputs_ > 0 && num_output_tokens() + num_pending_outputs_ >= max_tokens_;
  }

  [[nodiscard]] sequence_status status() const { return status_; }
  [[nodiscard]] std::optional<finish_reason> reason() const { return reason_; }
  [[nodiscard]] bool is_finished() const { return status_ == sequence_status::finished; }
  [[nodiscard]] std::uint32_t num_preemptions() const { return num_preemptions_; }
  [[nodiscard]] bool was_ever_scheduled() const { return was_ever_scheduled_; }

  // Transitions; each aborts when called from a state it does not expect.
  void start_running(std::uint32_t num_cached_tokens);  // waiting/preempted -> running
  // When a step is planned: `num_new` more positions will have KV once it has run; when
  // the step samples, the sampled token is pending until append_output.
  void advance_computed(std::uint32_t num_new, bool samples) {
    if (num_new > num_uncomputed_tokens()) die("computed past the known tokens");
    num_computed_tokens_ += num_new;
    if (samples) ++num_pending_outputs_;
  }
  // Takes back a planned step (its sequence was preempted while the plan was built).
  void unadvance_computed(std::uint32_t num_new, bool samples) {
    num_computed_tokens_ -= num_new;
    if (samples) --num_pending_outputs_;
  }
  // The pending token arrived. A sequence preempted while its step ran still gets it.
  void append_output(token_id token) {
    if (status_ != sequence_status::running && status_ != sequence_status::preempted) {
      die("append_output while neither running nor preempted");
    }
    if (num_pending_outputs_ == 0) die("append_output without a pending output");
    --num_pending_outputs_;
    tokens_.push_back(token);
  }
  // A further token of a speculative step's run (after append_output took its first): a
  // proposed token the target accepted, or the one sampled after them. Its position's KV
  // was written by that step, so it counts as computed, unless the sequence was preempted
  // while the step ran (then everything is recomputed).
  void append_speculated(token_id token) {
    if (status_ == sequence_status::running) {
      ++num_computed_tokens_;
    } else if (status_ != sequence_status::preempted) {
      die("append_speculated while neither running nor preempted");
    }
    tokens_.push_back(token);
  }
  void preempt();  // running -> preempted, num_computed_tokens back to 0 (recompute)
  void finish(finish_reason reason);

  // The stop condition after `token` was appended, if any.
  [[nodiscard]] std::optional<finish_reason> check_stop(token_id token) const {
    if (may_stop_on_token_ && stops_on(token)) return finish_reason::stop;
    if (num_output_tokens() >= max_tokens_) return finish_reason::length;
    return std::nullopt;
  }

 private:
  [[noreturn]] void die(const char* what) const;
  [[nodiscard]] bool stops_on(token_id token) const;  // a stop token id or a counting EOS

  // Hot fields first: a decode step reads and writes only these, and with a thousand
  // sequences the cache lines touched per sequence decide the step time.
  std::vector<token_id> tokens_;  // prompt then outputs; spec_.prompt_token_ids is emptied
  std::uint32_t num_prompt_tokens_ = 0;
  std::uint32_t num_computed_tokens_ = 0;
  std::uint32_t max_tokens_ = 0;  // copy of spec_.max_tokens
  std::uint32_t num_pending_outputs_ = 0;
  std::uint32_t num_preemptions_ = 0;  // hot: every in-flight record stamps it
  sequence_status status_ = sequence_status::waiting;
  bool may_stop_on_token_ = false;  // an EOS that counts, or stop token ids
  bool was_ever_scheduled_ = false;
  seq_id id_;  // copy of spec_.id
  // Cold.
  request_spec spec_;
  std::optional<finish_reason> reason_;
};

}  // namespace pagedserve::sched
