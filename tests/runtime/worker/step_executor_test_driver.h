#pragma once
// test_driver: a minimal scheduler for step_executor tests. It tracks what the real one
// does (tokens known, samples in flight, computed positions, blocks) and writes plans as
// deltas: new/resumed entries with full data, continuing entries with appended blocks only.
// Chunked prefill, one step of lookahead and preemption are options.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "runtime/worker/step_executor.h"

namespace pagedserve::engine_testing {

using sched::schedule_kind;
using sched::step_output;
using sched::step_plan;

inline constexpr std::uint32_t block_size = 8;  // the executors' too
inline constexpr std::size_t default_num_generate = 24;

inline sampling_params greedy_params() {
  sampling_params p;
  p.temperature = 0.0f;
  return p;
}

struct drive_options {
  std::uint32_t chunk = 1U << 20;  // prefill tokens per step
  bool lookahead = false;          // plan N+1 is built before N's output is read
  sampling_params params = greedy_params();
  std::vector<token_id> held_stop_token_ids{};                 // what params.min_tokens holds back
  std::shared_ptr<const grammar::compiled_grammar> grammar{};  // structured outputs
};

// Drives one executor; sequences are scheduled in seq_id order.
class test_driver {
 public:
  test_driver(step_executor& executor, drive_options options)
      : executor_(executor), options_(options) {}

  void add(seq_id seq, const std::vector<token_id>& prompt, std::uint64_t start_step = 0) {
    tracked& s = seqs_[seq];
    s.tokens = prompt;
    s.prompt_size = prompt.size();
    s.num_tokens = static_cast<std::uint32_t>(prompt.size());
    s.start_step = start_step;
  }
  // The next plan preempts `seq`; it is resumed two steps later.
  void preempt_next(seq_id seq) { to_preempt_.push_back(seq); }
  // The sequence is no longer scheduled (the scheduler finished it).
  void stop(seq_id seq) { seqs_.at(seq).stopped = true; }
  [[nodiscard]] std::uint64_t next_step() const { return next_step_; }
  [[nodiscard]] std::vector<token_id> generated(seq_id seq) const {
    const tracked& s = seqs_.at(seq);
    return {s.tokens.begin() + static_cast<std::ptrdiff_t>(s.prompt_size), s.tokens.end()};
  }
  // The logprobs that came with each generated token (sampling asked for them), in order.
  [[nodiscard]] const std::vector<logprobs_result>& logprobs(seq_id seq) const {
    return seqs_.at(seq).logprobs;
  }

  // The prompt logprobs that came with the first sample (sampling asked for them).
  [[nodiscard]] const std::vector<logprobs_result>& prompt_logprobs(seq_id seq) const {
    return seqs_.at(seq).prompt_logprobs;
  }

  // The embedding that came with the first sample (sampling asked for pooling).
  [[nodiscard]] const std::vector<float>& embedding(seq_id seq) const {
    return seqs_.at(seq).embedding;
  }

  // Plans and runs one step. The output is read now, or (lookahead) the step is left in
  // flight and the previous one is collected after this one was submitted (the executor
  // pipeline: plan N+1 is built before N's output is read). Returns the collected output.
  result<step_output> step() {
    step_plan plan;
    plan.step = next_step_++;
    std::vector<sequence_sampling> added;
    for (const seq_id seq : to_preempt_) preempt(plan, seq);
    to_preempt_.clear();
    std::vector<seq_id> expected_samplers;
    for (auto& [seq, s] : seqs_) {
      if (!wants_more(s) || plan.step < s.start_step) continue;
      schedule(plan, added, seq, s);
      if (plan.scheduled.back().samples) expected_samplers.push_back(seq);
    }
    executor_.submit(plan, added);
    in_flight_.push_back({plan.step, std::move(expected_samplers)});
    const std::size_t keep = options_.lookahead && !plan.empty() ? 1 : 0;
    result<step_output> last = step_output{};
    while (in_flight_.size() > keep) {
      last = collect_one();
      if (!last) return last;
    }
    return last;
  }
  [[nodiscard]] std::size_t num_graph_steps() const { return num_graph_steps_; }
  [[nodiscard]] std::size_t num_collected() const { return num_collected_; }

  // Steps until every sequence has its tokens, then finishes them all.
  void run_to_end(std::size_t num_generate = default_num_generate) {
    num_generate_ = num_generate;
    for (int guard = 0; !done() && guard < 1000; ++guard) {
      const auto out = step();
      ASSERT_TRUE(out.ok()) << out.err().message;
    }
    ASSERT_TRUE(done());
    step_plan last;
    last.step = next_step_++;
    for (const auto& [seq, s] : seqs_) last.finished.push_back(seq);
    const auto out = executor_.run(last, {});
    ASSERT_TRUE(out.ok()) << out.err().message;
    EXPECT_TRUE(out->sampled.empty());
    EXPECT_EQ(executor_.num_live_sequences(), 0U);
  }

 private:
  struct tracked {
    std::vector<token_id> tokens;           // prompt + outputs read so far
    std::vector<logprobs_result> logprobs;  // per output read, when they came with it
    std::vector<logprobs_result> prompt_logprobs;
    bool got_prompt_logprobs = false;
    std::vector<float> embedding;
    std::size_t prompt_size = 0;
    std::uint32_t num_tokens = 0;  // tokens.size() + samples in flight
    std::uint32_t num_computed = 0;
    std::vector<block_id> blocks;
    std::uint64_t start_step = 0;
    bool started = false;  // the executor has its data
    bool preempted = false;
    bool stopped = false;
  };

  [[nodiscard]] bool wants_more(const tracked& s) const {
    return !s.stopped && s.num_tokens - s.prompt_size < num_generate_;
  }
  [[nodiscard]] bool done() const {
    return in_flight_.empty() && std::none_of(seqs_.begin(), seqs_.end(), [&](const auto& kv) {
             return wants_more(kv.second);
           });
  }

  void schedule(step_plan& plan, std::vector<sequence_sampling>& added, seq_id seq, tracked& s) {
    sched::scheduled_sequence entry;
    entry.seq = seq;
    if (!s.started) {
      entry.kind = s.preempted ? schedule_kind::resumed : schedule_kind::new_sequence;
      if (!s.preempted) {
        added.push_back({seq, options_.params, 0, static_cast<std::uint32_t>(s.prompt_size),
                         options_.held_stop_token_ids, options_.grammar});
      }
      EXPECT_EQ(s.tokens.size(), s.num_tokens) << "full data must be known";
      entry.token_ids = s.tokens;
    }
    const std::uint32_t n = std::min(options_.chunk, s.num_tokens - s.num_computed);
    entry.first_position = s.num_computed;
    entry.num_scheduled_tokens = n;
    const std::size_t first_new_block = s.started ? s.blocks.size() : 0;
    while (s.blocks.size() * block_size < s.num_computed + n) s.blocks.emplace_back(next_block_++);
    entry.block_ids.assign(s.blocks.begin() + static_cast<std::ptrdiff_t>(first_new_block),
                           s.blocks.end());
    entry.samples = s.num_computed + n == s.num_tokens;
    s.num_computed += n;
    s.num_tokens += entry.samples ? 1 : 0;
    s.started = true;
    plan.num_batched_tokens += n;
    plan.scheduled.push_back(std::move(entry));
  }

  void preempt(step_plan& plan, seq_id seq) {
    tracked& s = seqs_.at(seq);
    s.started = false;
    s.preempted = true;
    s.num_computed = 0;
    s.blocks.clear();
    s.start_step = plan.step + 2;
    plan.preempted.push_back(seq);
  }

  struct expected_step {
    std::uint64_t step = 0;
    std::vector<seq_id> samplers;
  };

  // Collects the oldest step in flight: its samplers must be the plan's, in plan order.
  result<step_output> collect_one() {
    const expected_step expected = in_flight_.front();
    in_flight_.pop_front();
    EXPECT_EQ(executor_.num_in_flight(), in_flight_.size() + 1);
    collected_step c = executor_.collect();
    ++num_collected_;
    if (c.replayed_graph) ++num_graph_steps_;
    EXPECT_EQ(c.step, expected.step);
    if (!c.output) return c.output;
    EXPECT_EQ(c.output->step, expected.step);
    std::vector<seq_id> samplers;
    for (const auto& t : c.output->sampled) samplers.push_back(t.seq);
    EXPECT_EQ(samplers, expected.samplers) << "step " << expected.step;
    receive(*c.output);
    return c.output;
  }

  void receive(const step_output& out) {
    for (const sched::sampled_token& t : out.sampled) {
      const auto it = seqs_.find(t.seq);
      if (it == seqs_.end() || it->second.stopped) continue;
      it->second.tokens.push_back(t.token);
      if (t.logprobs) it->second.logprobs.push_back(*t.logprobs);
      if (!t.prompt_logprobs.empty()) {
        EXPECT_FALSE(it->second.got_prompt_logprobs) << "prompt logprobs sent twice";
        it->second.prompt_logprobs = t.prompt_logprobs;
        it->second.got_prompt_logprobs = true;
      }
      if (!t.embedding.empty()) {
        EXPECT_TRUE(it->second.embedding.empty()) << "embedding sent twice";
        it->second.embedding = t.embedding;
      }
    }
  }

  step_executor& executor_;
  drive_options options_;
  std::map<seq_id, tracked> seqs_;
  std::vector<seq_id> to_preempt_;
  std::deque<expected_step> in_flight_;
  std::size_t num_graph_steps_ = 0;
  std::size_t num_collected_ = 0;
  std::uint64_t next_step_ = 0;
  std::uint32_t next_block_ = 0;  // never reused: a resumed sequence gets new blocks
  std::size_t num_generate_ = default_num_generate;
};

}  // namespace pagedserve::engine_testing
