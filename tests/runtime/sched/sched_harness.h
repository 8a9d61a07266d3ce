#pragma once
// sched_harness: one-line steps for scheduler scenario tests. Time is driven explicitly
// (one second per step unless told otherwise); outputs come from the fake executor, so every
// plan is also checked against the "full data once, deltas after" protocol.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <variant>
#include <vector>

#include "runtime/sched/scheduler.h"
#include "sim/fake_executor.h"

namespace pagedserve::sched::testing {

// A small pool with prefix caching off unless a test says otherwise: exact block counts.
inline scheduler_config tiny_config(std::uint32_t num_blocks, std::uint32_t block_size = 4) {
  scheduler_config config;
  config.num_blocks = num_blocks;
  config.block_size = block_size;
  config.max_model_len = 256;
  config.max_num_seqs = 16;
  config.max_num_batched_tokens = 256;
  config.enable_prefix_caching = false;
  config.watermark = 0.0;
  return config;
}

// Prompt of `n` tokens distinct from every other `first` (no accidental prefix hits).
inline std::vector<token_id> prompt_of(std::size_t n, token_id first = 100) {
  std::vector<token_id> tokens(n);
  std::iota(tokens.begin(), tokens.end(), first);
  return tokens;
}

struct harness {
  explicit harness(scheduler_config config) : sched(config), executor(config.block_size) {}
  // Another policy of the same pool (sim/static_reservation.h).
  harness(scheduler_config config, kv::kv_cache_config kv_config)
      : sched(config, kv_config), executor(config.block_size) {}

  // Adds request `id` (also its arrival time unless given); expects acceptance.
  seq_id add(std::uint64_t id, std::size_t prompt_len, std::uint32_t max_tokens,
             std::int32_t priority = 0, std::optional<double> arrival = std::nullopt) {
    request_spec spec;
    spec.id = seq_id{id};
    spec.prompt_token_ids = prompt_of(prompt_len, static_cast<token_id>(1000 * (id + 1)));
    spec.max_tokens = max_tokens;
    spec.priority = priority;
    spec.arrival_time = arrival.value_or(static_cast<double>(id));
    result<seq_id> added = sched.add_request(std::move(spec), now);
    EXPECT_TRUE(added.ok()) << (added.ok() ? "" : added.err().message);
    return added.ok() ? added.value() : seq_id{};
  }

  // schedule() then run and update: one whole step.
  step_plan step() {
    step_plan plan = sched.schedule(now);
    finish(plan);
    return plan;
  }

  void finish(const step_plan& plan) {
    now += 1.0;
    const step_output output = executor.run(plan);
    sched.update_from_output(output, now);
    EXPECT_EQ(executor.num_protocol_errors(), 0u) << "at step " << plan.step;
  }

  scheduler sched;
  sim::fake_executor executor;
  double now = 0.0;
};

// Steps until nothing is left (at most `limit` steps).
inline void run_to_end(harness& h, int limit = 10000) {
  for (int i = 0; i < limit && h.sched.has_unfinished(); ++i) h.step();
  EXPECT_FALSE(h.sched.has_unfinished()) << "still unfinished after " << limit << " steps";
}

// (seq, num_scheduled_tokens) of every entry, for exact comparisons.
inline std::vector<std::pair<std::uint64_t, std::uint32_t>> shape(const step_plan& plan) {
  std::vector<std::pair<std::uint64_t, std::uint32_t>> out;
  for (const scheduled_sequence& s : plan.scheduled) {
    out.emplace_back(s.seq.value(), s.num_scheduled_tokens);
  }
  return out;
}

inline const scheduled_sequence* entry_for(const step_plan& plan, seq_id seq) {
  const auto it = std::find_if(plan.scheduled.begin(), plan.scheduled.end(),
                               [seq](const scheduled_sequence& s) { return s.seq == seq; });
  return it == plan.scheduled.end() ? nullptr : &*it;
}

// request_finished events among `events` (only those for `reason`, if given).
inline std::size_t num_finished(const std::vector<scheduler_event>& events,
                                std::optional<finish_reason> reason = std::nullopt) {
  return static_cast<std::size_t>(std::count_if(events.begin(), events.end(), [&](const auto& e) {
    const auto* finished = std::get_if<request_finished>(&e);
    return finished != nullptr && (!reason || finished->reason == *reason);
  }));
}

inline std::vector<std::uint64_t> ids(const std::vector<seq_id>& seqs) {
  std::vector<std::uint64_t> out;
  for (const seq_id s : seqs) out.push_back(s.value());
  return out;
}

}  // namespace pagedserve::sched::testing
