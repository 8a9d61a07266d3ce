#pragma once
// engine_stats: the engine's figures since start, read at any time (engine::stats,
// stats_atom, /metrics). A plain value; the figures of several engines (a router's replicas)
// add up to one: counts, tokens, times and histograms add; kv_usage is recomputed over the
// blocks of all of them, so a replica with a larger pool weighs more, as it would in one
// pool of that size.

#include <cstdint>
#include <span>
#include <vector>

#include "api/finish_reason.h"
#include "common/histogram.h"

namespace pagedserve {

// Figures since start, read at any time (engine::stats, stats_atom).
struct engine_stats {
  std::uint32_t num_running = 0;
  std::uint32_t num_waiting = 0;
  std::uint64_t num_total_blocks = 0;
  std::uint64_t num_free_blocks = 0;  // free or cached-and-unreferenced
  double kv_usage = 0.0;
  std::uint64_t num_requests = 0;  // accepted
  std::uint64_t num_rejected = 0;
  // Completions ended, by finish reason (a request with n > 1 ends n times). Counted in one
  // place, engine_core; /metrics shows them as request_success_total.
  std::uint64_t num_finished_stop = 0;    // EOS, a stop token or a stop string
  std::uint64_t num_finished_length = 0;  // max_tokens or max_model_len
  std::uint64_t num_cancelled = 0;        // the client cancelled or went away ("abort")
  std::uint64_t num_failed = 0;           // the step computing it failed ("error")
  std::uint64_t num_steps = 0;
  std::uint64_t num_failed_steps = 0;
  std::uint64_t num_preemptions = 0;
  std::uint64_t num_prompt_tokens = 0;
  std::uint64_t num_generation_tokens = 0;
  std::uint64_t prefix_cache_queries = 0;  // tokens
  std::uint64_t prefix_cache_hits = 0;
  double sum_batch_size = 0.0;      // sequences per step, summed (mean = / num_steps)
  double kv_utilization_sum = 0.0;  // per step tokens held / slots allocated, summed
  // Executor: time it waited between the end of one step and the start of the next while
  // requests were in flight, and time spent in steps.
  double executor_idle_s = 0.0;
  double executor_busy_s = 0.0;
  // The device's own clock (CUDA events; zero on the CPU): time it sat idle between the end
  // of one step and the start of the next while requests were in flight, and time in steps.
  // Host time per step: executor host work (planning inputs, enqueueing, reading results),
  // not counting waits for the device.
  double device_idle_s = 0.0;
  double device_busy_s = 0.0;
  double executor_host_s = 0.0;
  std::uint64_t num_graph_steps = 0;  // steps that replayed a captured decode graph
  // Tokens per step (prompt + generated), with vLLM's buckets.
  histogram iteration_tokens = histogram::with_bounds(iteration_tokens_buckets());
  // MoE models: tokens each expert has run, [layers, moe_num_experts] row-major (a dense
  // layer's row stays 0); empty for a dense model. Shows routing imbalance (/metrics).
  std::uint32_t moe_num_experts = 0;
  std::vector<std::uint64_t> moe_expert_tokens;
  // Speculative decoding (vLLM's spec_decode figures): verified runs that had proposed
  // tokens, their proposed tokens, the accepted ones, and accepted_per_pos[i]: runs whose
  // (i+1)-th proposed token was accepted. Acceptance rate = accepted / draft tokens.
  std::uint64_t spec_decode_num_drafts = 0;
  std::uint64_t spec_decode_num_draft_tokens = 0;
  std::uint64_t spec_decode_num_accepted_tokens = 0;
  std::vector<std::uint64_t> spec_decode_accepted_per_pos;

  [[nodiscard]] std::uint64_t num_finished() const {
    return num_finished_stop + num_finished_length + num_cancelled + num_failed;
  }
  // The counter of `reason`.
  [[nodiscard]] std::uint64_t& num_finished_by(finish_reason reason);
};

// Adds `part` to `total` (kv_usage is left for sum_engine_stats to recompute).
void add_engine_stats(engine_stats& total, const engine_stats& part);

[[nodiscard]] engine_stats sum_engine_stats(std::span<const engine_stats> parts);

}  // namespace pagedserve
