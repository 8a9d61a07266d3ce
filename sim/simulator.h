#pragma once
// simulator: replays a workload through the real scheduler and KV bookkeeping, with a fake
// executor in place of the model and a step-cost model in place of the GPU.
//
// Fake executor: it keeps its own copy of each sequence's tokens, built only from what the
// plans send (full data for new/resumed sequences, nothing else afterwards), checks every
// plan against that copy (positions, sampling, block-table coverage) and samples
//     token = mix(hash of the whole context) % 32000
// like a deterministic model: the same context always yields the same next token, so a
// preempted and recomputed sequence must produce the same stream as an undisturbed one.
// No EOS is set, so every request runs to max_tokens.
//
// Step-cost model (simulated seconds; only gives arrival times meaning):
//     step_time = fixed_s + per_token_s * num_batched_tokens + per_seq_s * num_scheduled_seqs
// The defaults are illustrative for a ~1B model on one current GPU (4 ms per step of fixed
// cost, 4 us per batched token of GEMM work, 20 us per sequence of attention/bookkeeping).

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "api/scheduler_config.h"
#include "common/result.h"
#include "sim/workload.h"

namespace pagedserve::sim {

enum class allocator_kind { paged, static_reservation };

struct step_cost_model {
  double fixed_s = 4e-3;
  double per_token_s = 4e-6;
  double per_seq_s = 20e-6;
};

struct simulation_config {
  sched::scheduler_config sched;
  allocator_kind allocator = allocator_kind::paged;
  // Requests per second with Poisson gaps (seeded), replacing the workload's arrival_s.
  std::optional<double> arrival_rate;
  std::uint64_t seed = 0;
  step_cost_model cost;
  std::uint64_t max_steps = 10'000'000;  // guard against a scheduler that stops progressing
  bool record_outputs = false;           // keep each request's generated tokens
};

struct simulation_report {
  std::string allocator;
  std::uint64_t steps = 0;
  std::uint64_t completed = 0;
  std::uint64_t rejected = 0;
  std::uint64_t num_preemptions = 0;
  std::uint32_t peak_running = 0;
  double mean_running = 0.0;    // over steps
  double kv_utilization = 0.0;  // mean over steps of tokens held / slots allocated
  double mean_kv_usage = 0.0;   // mean over steps of the fraction of memory held
  double peak_kv_usage = 0.0;
  std::uint64_t prefix_queries = 0;  // tokens
  std::uint64_t prefix_hits = 0;
  double prefix_cache_hit_rate = 0.0;
  std::uint64_t leaked_blocks = 0;  // memory not free once every request ended
  std::uint64_t prefill_tokens_computed = 0;
  std::uint64_t decode_tokens_computed = 0;
  std::uint64_t output_tokens = 0;
  double simulated_time_s = 0.0;
  double output_tokens_per_s = 0.0;
  double mean_ttft_s = 0.0;           // arrival to first token, completed requests
  double mean_e2e_s = 0.0;            // arrival to finish
  std::uint64_t protocol_errors = 0;  // plans the fake executor found inconsistent: must be 0
  std::vector<std::vector<token_id>> outputs;  // by workload index, if record_outputs
};

// Errors: an invalid config (validate()), or a run that exceeded max_steps.
[[nodiscard]] result<simulation_report> simulate(const simulation_config& config,
                                                 std::span<const workload_request> workload);

}  // namespace pagedserve::sim
