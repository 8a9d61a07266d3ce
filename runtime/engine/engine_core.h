#pragma once
// engine_core: the continuous-batching engine's logic without actors or clocks: the
// scheduler actor is a thin shell around it (and tests drive it directly).
//
//   add(request, sink, now)       -> id, or an error (invalid, queue full, can never fit)
//   plan_step(now, msg)           -> false when nothing is runnable; else msg = the next step
//   apply_output(out, now, sends) -> tokens to sinks (with their logprobs when the request
//                                    asked); stops (EOS, stop ids, stop strings, length);
//                                    finished sequences release their blocks
//   fail_step(step, why, now, sends)  every request with a sequence in that step fails
//   cancel(id, now, sends)        -> the request's blocks go back to the pool at once
//
// A request with report_lifecycle also gets request_lifecycle events, each sent with the
// output of the step it belongs to, before that step's tokens (lifecycle_queue.h).
//
// Up to two steps may be in flight (plan N+1 while N runs): apply outputs in step order.
// A request with n > 1 runs n sequences (completion index 0..n-1, sampler streams 0..n-1):
// completion 0 first; the others join when its first token arrives and find the prompt's
// full blocks in the prefix cache (with prefix caching on). `Sink` is opaque here (the actor
// layer's handle); outgoing messages name it.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/engine_events.h"
#include "api/engine_stats.h"
#include "api/generation_request.h"
#include "common/ids.h"
#include "common/result.h"
#include "runtime/engine/grammar_compiler.h"
#include "runtime/engine/lifecycle_queue.h"
#include "runtime/engine/request_check.h"
#include "runtime/model/model_config.h"
#include "runtime/plan/engine_plan.h"
#include "runtime/sched/scheduler.h"
#include "runtime/tokenizer/tokenizer.h"
#include "runtime/worker/executor_step_figures.h"
#include "runtime/worker/step_message.h"

namespace pagedserve {

// An event for a sink (request_lifecycle only for requests that asked).
template <class Sink>
struct outgoing {
  Sink sink;
  engine_event event;
};

// Everything engine_core knows about the model and memory at start-up.
// The engine_config reaches it only through the plan (one holder of each key).
struct engine_core_setup {
  std::shared_ptr<const engine_plan> plan;
  std::vector<token_id> eos_token_ids;  // model config + generation_config + tokenizer
  std::uint32_t vocab_size = 0;
  std::shared_ptr<const tokenizer> tok;  // may be null: prompts must be token ids
};

// Non-template part (ids, sequences, text): engine_core<Sink> adds the sinks.
class engine_core_base {
 public:
  explicit engine_core_base(engine_core_setup setup);
  ~engine_core_base();

  [[nodiscard]] bool has_work() const;  // something waiting, running or in flight
  [[nodiscard]] std::size_t num_in_flight_steps() const;
  // Whether plan_step would produce a step now.
  [[nodiscard]] bool can_plan_step() const;
  [[nodiscard]] engine_stats stats() const;
  [[nodiscard]] const sched::scheduler& scheduler() const { return *scheduler_; }
  [[nodiscard]] std::size_t num_requests() const { return requests_.size(); }
  // Blocks not back in the pool although nothing runs: a leak when has_work() is false.
  [[nodiscard]] std::uint64_t num_blocks_held() const;
  // The executor's time, as the actor layer measures it (engine_stats.executor_*).
  void record_executor_time(const executor_step_figures& figures);
  // A step's expert_load snapshot (collected_step): the counters' growth since the last one
  // is added to the stats' per-expert totals (the device's u32 counters may wrap).
  void record_expert_load(std::span<const std::int32_t> load, std::int32_t num_experts);
  // The request ids of every live request (for shutdown and sink death).
  [[nodiscard]] std::vector<request_id> live_requests() const;

 protected:
  struct completion;  // one sequence of a request
  struct request_state;
  struct event {
    request_id request;
    engine_event payload;
  };

  [[nodiscard]] result<request_id> add_request(generation_request request, double now);

  bool plan(double now, step_message& msg);
  void apply(const sched::step_output& output, double now, std::vector<event>& events);
  void fail(std::uint64_t step, const std::string& why, double now, std::vector<event>& events);
  bool cancel_request(request_id id, double now, std::vector<event>& events);
  // Requests that ended (their final was emitted) since the last call.
  void take_ended(std::vector<request_id>& out);

 private:
  [[nodiscard]] status check_admission(generation_request& request) const;
  // The request's structured_outputs compiled (null without); refused without a tokenizer.
  [[nodiscard]] result<compiled_grammar_ptr> grammar_for(const generation_request& request);
  [[nodiscard]] sched::request_spec spec_for(const request_state& r, seq_id seq, double now) const;
  void emit_tokens(const sched::step_output& output, double now, std::vector<event>& events);
  void emit_token(completion& c, const sched::sampled_token& sampled, double now,
                  std::vector<event>& events);
  void attach_logprobs(const completion& c, const sched::sampled_token& sampled,
                       token_chunk& chunk) const;
  void emit_embedding(completion& c, const sched::sampled_token& sampled, double now,
                      std::vector<event>& events);
  void attach_prompt_logprobs(const completion& c, const sched::sampled_token& sampled,
                              token_chunk& chunk) const;
  void add_siblings(request_state& r, double now);
  void end_unqueued(request_state& r, finish_reason reason, const std::string& why,
                    std::vector<event>& events);
  void route_scheduler_events(std::vector<event>& events);
  // Lifecycle events (report_lifecycle only): held per step, then sent before the tokens
  // (engine_core_lifecycle.cpp).
  void hold_lifecycle(request_id request, std::uint32_t index, const sched::scheduler_event& e);
  void release_lifecycle(std::uint64_t step, std::vector<event>& events);
  void report_finished(request_id request, std::uint32_t index, std::vector<event>& events);
  void push_lifecycle(const request_lifecycle& lifecycle, std::vector<event>& events);
  void end_completion(completion& c, finish_reason reason, std::string error_message,
                      std::vector<event>& events,
                      std::optional<std::string> stop_string = std::nullopt);
  void count_step(const sched::step_plan& plan);
  void count_speculation(const sched::step_output& output);

  engine_core_setup setup_;
  request_limits limits_;
  std::unique_ptr<sched::scheduler> scheduler_;
  std::unordered_map<request_id, std::unique_ptr<request_state>> requests_;
  std::unordered_map<seq_id, completion*> by_seq_;  // queued completions, by their one id
  std::vector<request_id> ended_;
  std::uint64_t next_request_ = 1;
  std::uint64_t next_seq_ = 1;
  std::vector<sched::scheduler_event> scheduler_events_;  // reused
  std::string abort_reason_;  // while fail() routes the aborted sequences' finals
  lifecycle_queue lifecycle_;
  std::unique_ptr<grammar_compiler> grammars_;        // null without a tokenizer
  std::vector<request_lifecycle> lifecycle_scratch_;  // reused
  // The step and time of the apply/fail/cancel running now: a `finished` event's stamp.
  struct moment {
    std::uint64_t step = 0;
    double time = 0.0;
  };
  moment at_;
  engine_stats totals_;
  std::vector<std::uint32_t> last_expert_load_;
};

template <class Sink>
class engine_core : public engine_core_base {
 public:
  using engine_core_base::engine_core_base;
  using sends = std::vector<outgoing<Sink>>;

  [[nodiscard]] result<request_id> add(generation_request request, Sink sink, double now) {
    auto id = add_request(std::move(request), now);
    if (id) sinks_.emplace(*id, std::move(sink));
    return id;
  }
  bool plan_step(double now, step_message& msg) { return plan(now, msg); }
  void apply_output(const sched::step_output& output, double now, sends& out) {
    apply(output, now, events_);
    deliver(out);
  }
  void fail_step(std::uint64_t step, const std::string& why, double now, sends& out) {
    fail(step, why, now, events_);
    deliver(out);
  }
  bool cancel(request_id id, double now, sends& out) {
    const bool known = cancel_request(id, now, events_);
    deliver(out);
    return known;
  }

 private:
  void deliver(sends& out) {
    for (event& e : events_) {
      const auto it = sinks_.find(e.request);
      if (it != sinks_.end()) out.push_back({it->second, std::move(e.payload)});
    }
    events_.clear();
    take_ended(ended_scratch_);
    for (request_id id : ended_scratch_) sinks_.erase(id);
  }

  std::unordered_map<request_id, Sink> sinks_;
  std::vector<event> events_;
  std::vector<request_id> ended_scratch_;
};

}  // namespace pagedserve
