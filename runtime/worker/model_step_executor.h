#pragma once
// model_step_executor: the model-backed step_executor (step_executor.h), in three files:
// model_step_executor.cpp keeps each live sequence's mirror (the plans' deltas, as
// sched::fake_executor does) and its sampler state and runs submit/collect;
// device_step_path.cpp enqueues a step with sampling on the device (the step stays in
// flight until collect); host_step_path.cpp runs it to the end and samples on the host.
// Internal to runtime/engine.

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/forward/model_forward.h"
#include "runtime/forward/paged_kv_cache.h"
#include "runtime/grammar/grammar_matcher.h"
#include "runtime/sampling/bad_words.h"
#include "runtime/sampling/logits_processing.h"
#include "runtime/sampling/logprobs.h"
#include "runtime/sampling/sampler.h"
#include "runtime/sched/sequence_mirror.h"
#include "runtime/spec/draft_model_proposer.h"
#include "runtime/spec/proposer.h"
#include "runtime/worker/step_executor.h"

namespace pagedserve::detail {

using sched::schedule_kind;
using sched::scheduled_sequence;
using sched::step_plan;

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
struct live_sequence : sched::sequence_mirror {
  explicit live_sequence(const sequence_sampling& s)
      : params(s.params),
        sampler(sampler_state::create(s.params, s.sequence_index)),
        num_prompt_tokens(s.num_prompt_tokens),
        held_stop_token_ids(s.held_stop_token_ids),
        waits_for_samples(has_multi_token_bad_words(s.params.bad_words_token_ids) ||
                          s.grammar != nullptr) {
    if (s.grammar) matcher.emplace(s.grammar);
  }

  [[nodiscard]] std::size_t num_generated() const {
    return tokens.size() > num_prompt_tokens ? tokens.size() - num_prompt_tokens : 0;
  }
  [[nodiscard]] std::span<const token_id> prompt() const {
    return std::span<const token_id>(tokens).first(tokens.size() - num_generated());
  }
  [[nodiscard]] std::span<const token_id> generated() const {
    return std::span<const token_id>(tokens).last(num_generated());
  }
  // The next token's logit edits (logit_bias, min_tokens).
  [[nodiscard]] std::vector<logit_edit> edits() const;

  sampling_params params;
  sampler_state sampler;
  std::optional<pending_sample> pending;
  std::size_t num_prompt_tokens = 0;
  std::vector<token_id> held_stop_token_ids;
  token_counts counts;             // host sampling with penalties: kept up to date
  std::int32_t penalty_slot = -1;  // device sampling with penalties: its device_token_counts row
  // A bad word of several tokens or a grammar: the next step's bans or mask depend on the
  // token just sampled, so the device path reads it before planning the sequence's next
  // step (no overlap for this sequence; see docs/structured-outputs.md).
  bool waits_for_samples = false;
  // params.structured_outputs: the grammar's position after the first grammar_accepted
  // generated tokens. It catches up before each mask (grammar_mask.cpp), so samples learned
  // late (device) or a preemption never leave it behind or ahead.
  std::optional<grammar::grammar_matcher> matcher;
  std::size_t grammar_accepted = 0;
  // speculative draft_model: positions whose draft K/V are valid (draft_model_proposer.h);
  // 0 again whenever the sequence is (re)loaded.
  std::uint32_t draft_computed = 0;

  // Catches the matcher up and writes the next token's bitmask. A grammar that cannot go on
  // (a token it refused, or no token allowed) allows the stop tokens only, so the sequence
  // ends rather than sampling from nothing.
  void fill_grammar_mask(std::vector<std::uint32_t>& mask);
  // The grammar wins over the sequence's other constraints: when the bans among `edits`
  // (min_tokens holding back the stop tokens, bad_words) and `allowed` (allowed_token_ids)
  // leave none of the mask's tokens, they are dropped for this step (the bans from edits,
  // `allowed` emptied), so a complete text still ends with a stop token rather than with
  // whatever an all -inf row falls back to. True when something was dropped.
  static bool yield_to_grammar(std::span<const std::uint32_t> mask, std::vector<logit_edit>& edits,
                               std::span<const token_id>& allowed);
  // params.prompt_logprobs: positions below prompt_logprobs_next have their entry (for the
  // token after them) in prompt_logprobs, which leaves with the first sample. A resumed
  // prefill skips them, so each position is reported once.
  std::size_t prompt_logprobs_next = 0;
  std::vector<logprobs_result> prompt_logprobs;
  bool prompt_logprobs_sent = false;

  // params.pooling: positions below pooled_next are summed into pooled_sum (mean) or held
  // there (last, cls: the one position's row); the first sample takes the embedding.
  std::size_t pooled_next = 0;
  std::vector<double> pooled_sum;
  bool embedding_sent = false;
  [[nodiscard]] bool wants_pooled_rows() const {
    return params.pooling && !embedding_sent && pooled_next < num_prompt_tokens;
  }

  // Whether a prompt position (after prompt_logprobs_next) still needs its logits.
  [[nodiscard]] bool wants_prompt_logprobs() const {
    return params.prompt_logprobs && !prompt_logprobs_sent &&
           prompt_logprobs_next + 1 < num_prompt_tokens;
  }
};

// A verifying member's logits rows (its scheduled token's, then each proposed token's), in
// a read shared with other members: `offset` floats into `logits`.
struct verification_rows {
  std::shared_ptr<const std::vector<float>> logits;
  std::size_t offset = 0;
};
// At most this many logits per verification read (64 MiB of f32), at least one member's.
inline constexpr std::size_t k_max_verification_logits = std::size_t{1} << 24;

// One sampling entry of a step, answered at collect.
struct answer {
  seq_id seq;
  std::int32_t row = -1;  // the entry's row in the step's logits; -1: skipped (token 0)
  std::optional<std::int32_t> logprobs;
  token_id token = 0;  // host sampling: known at submit
  std::optional<logprobs_result> host_logprobs;
  std::vector<logprobs_result> prompt_logprobs{};  // the sequence's, with its first sample
  std::vector<float> embedding{};                  // pooling: with its first sample
  std::uint32_t num_draft_tokens = 0;              // speculative: on the first answer of the run
};

// The answer to an entry whose sequence is unknown (dropped by a failed step).
inline answer skipped(seq_id seq) { return {seq, -1, std::nullopt, 0, std::nullopt}; }

// A submitted step, until collected.
struct in_flight_step {
  std::uint64_t step = 0;
  std::vector<seq_id> members;  // every scheduled sequence (dropped if the step fails)
  std::vector<answer> answers;  // plan order
  std::optional<std::string> failure;
  bool on_device = false;  // its samples are still on the device
  bool replayed_graph = false;
  std::optional<std::uint64_t> previous_device_step;  // ran just before it on the stream
  std::size_t expert_load_slot = 0;  // model_forward::expert_load_copy of its forward
  double host_s = 0.0;
};

// A broken plan protocol: abort with what was wrong.
[[noreturn]] void die(std::uint64_t step, seq_id seq, const std::string& what);
[[noreturn]] void die(const std::string& what);

class model_step_executor final : public step_executor {
 public:
  model_step_executor(step_executor_parts parts, std::unique_ptr<forward::paged_kv_cache> cache,
                      std::unique_ptr<device_sampler> sampler, std::size_t num_decode_graphs,
                      std::unique_ptr<spec::proposer> proposer = nullptr,
                      std::unique_ptr<spec::draft_model_proposer> draft = nullptr);

  ~model_step_executor() override {
    // The device may still run queued steps that read this executor's memory.
    if (backend_) backend_->synchronize();
  }

  void submit(const step_plan& plan, std::span<const sequence_sampling> new_sequences) override;
  collected_step collect() override;
  [[nodiscard]] std::size_t num_in_flight() const override { return queue_.size(); }
  [[nodiscard]] bool oldest_ready() override;

  [[nodiscard]] std::size_t num_live_sequences() const override { return sequences_.size(); }
  [[nodiscard]] const engine_plan& plan() const override { return *plan_; }
  [[nodiscard]] std::size_t num_decode_graphs() const override { return num_decode_graphs_; }

 private:
  void forget(const step_plan& plan);
  void register_sampling(const step_plan& plan, std::span<const sequence_sampling> added);
  [[nodiscard]] std::vector<live_sequence*> take_entries(const step_plan& plan);
  live_sequence* take_entry(std::uint64_t step, const scheduled_sequence& entry);
  // num_proposed[i]: proposed tokens fed after member i's scheduled ones (empty: none).
  [[nodiscard]] forward::forward_batch batch_of(const step_plan& plan,
                                                const std::vector<live_sequence*>& members,
                                                std::span<const std::uint32_t> num_proposed) const;
  void enqueue_on_device(const step_plan& plan, const std::vector<live_sequence*>& members,
                         in_flight_step& f);
  void run_on_host(const step_plan& plan, const std::vector<live_sequence*>& members,
                   in_flight_step& f);
  [[nodiscard]] token_id sample_on_host(std::span<const float> logits, live_sequence& s);
  // The logits the sequence's sampler reads: `logits` after its processing (penalties,
  // logit edits, grammar mask, allowed tokens); `logits` itself when it has none.
  [[nodiscard]] static std::span<const float> process_on_host(std::span<const float> logits,
                                                              live_sequence& s);
  // Appends a sampled token to the host's state of `s` (tokens, penalty counts).
  static void take_host_sample(live_sequence& s, token_id token);
  // Speculative decoding (speculative_path.cpp): proposed tokens appended to the tokens of
  // entries with lookahead slots, then verified against the step's logits at their rows.
  [[nodiscard]] std::vector<std::uint32_t> propose_tokens(
      const step_plan& plan, const std::vector<live_sequence*>& members);
  [[nodiscard]] std::vector<std::uint32_t> propose_with_draft(
      const step_plan& plan, const std::vector<live_sequence*>& members);
  // The draft prefills the prompts this step completed (draft_model_proposer::catch_up).
  void prefill_draft(const step_plan& plan, const std::vector<live_sequence*>& members);
  // Whether every member of the step decodes one scheduled token (no prefill chunk, no
  // prompt rows to read): then every row's logits come from the forward's own pass.
  [[nodiscard]] static bool all_decodes(const step_plan& plan,
                                        const std::vector<live_sequence*>& members);
  [[nodiscard]] std::vector<verification_rows> verification_from_all_rows(
      const step_plan& plan, const std::vector<live_sequence*>& members,
      std::span<const std::uint32_t> num_proposed, std::vector<float> all_logits);
  [[nodiscard]] std::vector<verification_rows> read_verification_logits(
      const step_plan& plan, const std::vector<live_sequence*>& members,
      std::span<const std::uint32_t> num_proposed);
  void verify_proposed(const scheduled_sequence& entry, live_sequence& s,
                       std::uint32_t num_proposed, std::span<const float> logits,
                       in_flight_step& f);
  // prompt_logprobs (prompt_logprobs_path.cpp): after the step's forward, the logprobs of
  // the prompt positions it computed; a sequence's first sampling answer takes them all.
  [[nodiscard]] static bool reads_prompt_rows(const std::vector<live_sequence*>& members);
  void gather_prompt_logprobs(const step_plan& plan, const std::vector<live_sequence*>& members);
  static void take_prompt_logprobs(live_sequence& s, answer& a);
  // pooling (pooling_path.cpp): after the step's forward, the final hidden states of the
  // prompt positions its pooling reads; the first sample takes the embedding.
  void gather_pooled_rows(const step_plan& plan, const std::vector<live_sequence*>& members);
  static void take_embedding(live_sequence& s, answer& a);
  // Adds the row's logits processing to `processing` and `row`.
  static void add_processing(live_sequence& s, kernels::sampling_row& row,
                             step_processing& processing);
  static void add_count_load(const live_sequence& s, step_processing& processing);
  // Waits for the step that sampled `s`'s pending token and puts the token in its place.
  void resolve_pending(live_sequence& s);
  void erase(seq_id seq);
  [[nodiscard]] result<sched::step_output> read_device_samples(const in_flight_step& f);
  [[nodiscard]] static sched::step_output host_output(in_flight_step& f);
  void drop(const std::vector<seq_id>& members);

  std::shared_ptr<const engine_plan> plan_;
  std::function<void(std::uint64_t)> before_step_;
  std::int64_t vocab_size_;
  std::unique_ptr<kernels::backend> backend_;  // outlives the members below
  std::unique_ptr<forward::model_forward> forward_;
  std::unique_ptr<forward::paged_kv_cache> cache_;
  std::unique_ptr<device_sampler> sampler_;  // null: the host samples
  std::size_t num_decode_graphs_ = 0;
  // Speculative decoding's proposer: one of these two, or neither (off).
  std::unique_ptr<spec::proposer> proposer_;
  std::unique_ptr<spec::draft_model_proposer> draft_;
  std::unordered_map<seq_id, live_sequence> sequences_;
  std::deque<in_flight_step> queue_;
  std::optional<std::uint64_t> last_device_step_;
};

}  // namespace pagedserve::detail
