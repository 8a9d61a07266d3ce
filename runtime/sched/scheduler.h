#pragma once
// scheduler: the continuous-batching policy. Pure bookkeeping over a kv::kv_cache_manager
// (the block pool and prefix cache, driven with vLLM's verbs); the caller
// drives it one step at a time and supplies the time (no clocks inside). A request here
// is one completion, named by the caller's seq_id (engine_core splits a client's n > 1
// request into n; the id is the same in plans, outputs, events and the block tables):
//
//   add_request(spec, now)        -> spec.id, or an error when the request can never fit
//   schedule(now)                 -> step_plan (phase 1: running, phase 2: waiting)
//   update_from_output(out, now)  appends sampled tokens, commits blocks, stops, releases
//   cancel(request, now)          frees at once, waiting or running
//
// Up to two steps may be in flight: step N+1 can be planned while step N runs (the
// executor feeds a token it sampled in step N straight into step N+1). Outputs are applied
// in step order. A sequence whose step-N token turns out to stop it wastes its step-N+1
// work; one whose step-N token is its last by max_tokens is not planned again.
//
// Phase 1 walks running sequences in admission order and gives each min(uncomputed tokens,
// chunk limit, remaining budget). When the pool cannot supply a sequence's slots it preempts
// (recompute) the last running sequence in policy order (lowest priority, newest) until the
// slots fit or the sequence preempted itself. Phase 2 admits waiting sequences in policy
// order while the sequence cap, the token budget and the watermark allow, and not at all
// in a step that preempted (admitting then would only thrash).

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "api/scheduler_config.h"
#include "common/result.h"
#include "runtime/kv/kv_cache_manager.h"
#include "runtime/sched/events.h"
#include "runtime/sched/sequence.h"
#include "runtime/sched/speculation_depth.h"
#include "runtime/sched/step_plan.h"
#include "runtime/sched/steps_in_flight.h"

namespace pagedserve::sched {

// The pool a scheduler_config describes: config.num_blocks of config.block_size tokens,
// prefix caching as configured, blocks on demand.
[[nodiscard]] kv::kv_cache_config kv_cache_config_of(const scheduler_config& config);

// Running totals since construction. Finished requests are not counted here: each one is a
// request_finished event, and whoever drives the scheduler counts those (engine_core).
struct scheduler_totals {
  std::uint64_t num_steps = 0;
  std::uint64_t num_admitted = 0;
  std::uint64_t num_rejected = 0;
  std::uint64_t num_preemptions = 0;
  std::uint64_t num_prefill_tokens = 0;  // recomputation after preemption included
  std::uint64_t num_decode_tokens = 0;
  std::uint64_t prefix_queries = 0;  // tokens of admitted sequences (prefix caching on)
  std::uint64_t prefix_hits = 0;     // of which found in the prefix cache
};

class scheduler {
 public:
  // Aborts on an invalid config: callers validate() first to report it as a value.
  explicit scheduler(scheduler_config config);
  // Another pool policy over the same blocks (sim/static_reservation.h): `kv_config` must
  // have config's num_blocks and block_size.
  scheduler(scheduler_config config, kv::kv_cache_config kv_config);
  ~scheduler();
  scheduler(const scheduler&) = delete;
  scheduler& operator=(const scheduler&) = delete;

  // capacity_exceeded when prompt + max_tokens exceeds max_model_len or the whole KV memory;
  // invalid_argument for an empty prompt, max_tokens 0 or a request id already in use.
  [[nodiscard]] result<seq_id> add_request(request_spec spec, double now);
  [[nodiscard]] step_plan schedule(double now);
  // The same, into `plan` (its previous contents are dropped): a caller that keeps one plan
  // across steps reuses its storage, so a steady step allocates nothing for the plan.
  void schedule(double now, step_plan& plan);
  void update_from_output(const step_output& output, double now);
  // Speculative decoding: the oldest step in flight took `seconds` on the executor, which
  // waited `idle_before_s` for its plan (called before its update_from_output); with the
  // tokens it computed, this fits the cost model that decides how many lookahead slots
  // sequences get (speculation_depth.h). A verifying step is charged the wait before the
  // step after it too: nothing is planned behind it, so that wait is its cost.
  void observe_step_time(double seconds, double idle_before_s = 0.0);
  // False when the request is unknown or already finished.
  bool cancel(seq_id seq, double now);
  // Ends a request for a reason found outside (a stop string matched on its text): like
  // cancel, with `reason` in its request_finished event.
  bool finish_request(seq_id seq, finish_reason reason, double now);
  // The oldest step in flight failed (its output will never come): it is dropped, and
  // every unfinished sequence it computed ends as aborted (its KV is not trustworthy).
  // Returns their ids. `step` must be the oldest step in flight.
  std::vector<seq_id> abort_step(std::uint64_t step, double now);

  // Events since the last call, in the order they happened.
  [[nodiscard]] std::vector<scheduler_event> take_events();
  // The same into `out` (its previous contents are dropped); the two buffers swap, so a
  // caller that keeps `out` across steps makes event delivery allocation-free.
  void take_events(std::vector<scheduler_event>& out);

  [[nodiscard]] bool has_unfinished() const { return !sequences_.empty(); }
  // Steps planned whose output has not been applied yet.
  [[nodiscard]] std::size_t num_steps_in_flight() const { return num_in_flight_; }
  // Unfinished sequences that could be planned now (not waiting only on pending tokens).
  // False while a step with lookahead slots is in flight: a step planned behind it would
  // leave out every sequence it speculates for (their token counts are unknown), and those
  // would then only run every other step.
  [[nodiscard]] bool can_plan() const;
  [[nodiscard]] std::uint32_t num_running() const;
  [[nodiscard]] std::uint32_t num_waiting() const;
  // Unfinished sequences only (finished ones are dropped at once).
  [[nodiscard]] const sequence* find(seq_id seq) const;
  [[nodiscard]] const scheduler_totals& totals() const { return totals_; }
  [[nodiscard]] const scheduler_config& config() const { return config_; }
  [[nodiscard]] const kv::kv_cache_manager& kv() const { return kv_; }

 private:
  // Waiting order: (class, priority, arrival, seq). `class` puts preempted sequences first
  // under fcfs; `priority` is 0 under fcfs.
  using waiting_key = std::tuple<int, std::int64_t, double, std::uint64_t>;

  struct tracked {
    explicit tracked(sequence s) : seq(std::move(s)) {}
    // Cached from the kv_cache_manager after each allocation, so a step that needs no new
    // memory makes no kv_cache_manager call for this sequence.
    std::uint64_t num_slots = 0;
    std::uint32_t num_table_blocks = 0;
    std::uint32_t num_scheduled = 0;    // in the plan being built (0 when not in it)
    std::uint32_t num_speculative = 0;  // ditto: lookahead slots for proposed tokens
    bool samples = false;               // ditto
    // A step with lookahead slots for it is in flight: how many tokens it adds is unknown
    // until its output is applied, so nothing more of it is planned before then.
    bool speculating = false;
    std::uint32_t chosen_depth = 0;  // plan_speculation's choice for the plan being built
    acceptance_record acceptance;
    sequence seq;  // its hot fields come first, right after these
    waiting_key key{};
  };

  struct token_budget {
    std::uint32_t num_left = 0;
  };

  // One entry of a step whose output is awaited.
  struct in_flight_entry {
    tracked* t = nullptr;
    std::uint32_t num_scheduled = 0;
    std::uint32_t num_computed_after = 0;  // positions with KV once the step has run
    std::uint32_t incarnation = 0;         // num_preemptions when planned
    std::uint32_t num_speculative = 0;
    bool samples = false;
  };
  struct in_flight_step {
    std::uint64_t step = 0;
    bool speculative = false;              // some entry has lookahead slots
    std::optional<double> seconds;         // observe_step_time
    std::vector<in_flight_entry> entries;  // reused across steps
  };
  // A finished sequence stays alive until every step in flight that may name it is applied.
  struct retired_sequence {
    std::uint64_t last_step = 0;
    std::unique_ptr<tracked> t;
  };

  // Phases of schedule().
  void schedule_running(step_plan& plan, token_budget& budget, double now);
  void schedule_waiting(step_plan& plan, token_budget& budget, double now);
  void finish_plan(step_plan& plan);
  void account(const scheduled_sequence& entry, const tracked& t, step_plan& plan, int sign);

  [[nodiscard]] std::uint32_t num_tokens_to_schedule(const sequence& seq,
                                                     const token_budget& budget) const;
  // Grows `t` for `num_new` tokens, preempting victims; false when `t` itself was preempted.
  bool make_room(tracked& t, std::uint32_t num_new, step_plan& plan, token_budget& budget,
                 double now);
  bool try_admit(tracked& t, step_plan& plan, token_budget& budget, double now);
  [[nodiscard]] bool fits_with_watermark(const tracked& t, std::uint32_t num_after,
                                         const kv::computed_blocks& computed) const;
  void count_prefix_lookup(std::uint32_t num_tokens, std::uint32_t num_cached, step_stats& stats);
  void add_to_plan(tracked& t, schedule_kind kind, std::uint32_t num_new,
                   std::size_t num_blocks_before, step_plan& plan, token_budget& budget);

  void refresh_allocation(tracked& t);
  [[nodiscard]] tracked& pick_victim();
  void preempt(tracked& victim, step_plan& plan, token_budget& budget, double now);
  void unschedule(tracked& t, step_plan& plan, token_budget& budget);

  void record_in_flight(std::uint64_t step);
  [[nodiscard]] in_flight_step& oldest_in_flight() { return in_flight_[in_flight_head_]; }

  // Phases of update_from_output().
  void apply_entry(const in_flight_entry& entry, std::span<const sampled_token> run, double now);
  // A sampled token; with `first` false, a further token of a speculative run. Returns the
  // stop it reached, if any (the caller finishes the sequence).
  [[nodiscard]] std::optional<finish_reason> apply_sampled(tracked& t, token_id token, bool first,
                                                           double now);
  void end_by_stop(tracked& t, finish_reason reason, double now);

  // Speculative decoding (scheduler_speculate.cpp).
  void plan_speculation(const token_budget& budget);
  [[nodiscard]] bool may_speculate(const tracked& t) const;
  void add_lookahead(tracked& t, step_plan& plan, token_budget& budget);
  void after_speculative_run(const in_flight_entry& entry, std::span<const sampled_token> run);
  void observe_applied_step(const in_flight_step& rec, std::span<const sampled_token> sampled);
  void finish(tracked& t, finish_reason reason, double now);
  void drop_finished();
  void free_retired(std::uint64_t applied_step);
  [[nodiscard]] std::uint64_t event_step() const;

  void enqueue_waiting(tracked& t);
  void remove_running(const tracked& t);
  [[nodiscard]] event_stamp stamp(const tracked& t, std::uint64_t step, double now) const;

  scheduler_config config_;
  kv::kv_cache_manager kv_;
  std::unordered_map<seq_id, std::unique_ptr<tracked>> sequences_;
  std::vector<tracked*> running_;            // admission order
  std::map<waiting_key, tracked*> waiting_;  // policy order
  std::vector<tracked*> planned_;            // entries of the plan being built
  std::vector<tracked*> running_snapshot_;   // scratch for schedule_running
  // Ring of the steps in flight, oldest at in_flight_head_.
  std::array<in_flight_step, k_max_steps_in_flight> in_flight_{};
  std::size_t in_flight_head_ = 0;
  std::size_t num_in_flight_ = 0;
  // In-flight steps with lookahead slots: no step is planned behind one (see can_plan).
  std::size_t num_speculative_in_flight_ = 0;
  std::vector<retired_sequence> retired_;
  std::vector<seq_id> finished_since_plan_;
  // Running sequences finished while applying an output, not yet dropped from running_.
  std::uint32_t num_finished_in_update_ = 0;
  std::uint64_t num_decode_tokens_in_plan_ = 0;  // one-token decodes in the plan being built
  // Speculative decoding (config_.num_speculative_tokens > 0): slot depths, and per running
  // sequence the depth chosen for the plan being built.
  speculation_depth depth_;
  // A verifying step's (tokens, seconds), until the next step's wait completes its cost.
  std::optional<std::pair<std::uint32_t, double>> verifying_step_cost_;
  std::vector<speculation_depth::candidate> depth_candidates_;  // scratch
  std::vector<std::uint32_t> depth_choice_;                     // scratch
  std::vector<tracked*> depth_sequences_;                       // scratch
  acceptance_record engine_acceptance_;                         // every sequence's verified steps
  std::vector<scheduler_event> events_;
  std::uint64_t next_step_ = 0;
  std::optional<std::uint64_t> applying_step_;  // set while update_from_output runs
  scheduler_totals totals_;
};

}  // namespace pagedserve::sched
