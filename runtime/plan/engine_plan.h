#pragma once
// engine_plan: what start-up decides, once, from the engine_config and the loaded model:
// the compute type, the KV pool (blocks, bytes per block, how it was sized), the decode
// graphs to capture, the scheduler's final settings and the admission limits. plan_engine() is the
// only place that computes any of it; the scheduler (engine_core) and the executor read the same
// immutable plan, and nobody rewrites the config afterwards.
//
// The pool: num_blocks when the config sets it; else, on a backend with device memory
// figures (CUDA), what gpu_memory_utilization leaves after a profiling forward
// (runtime/forward/kv_pool_sizing.h); else (the CPU) room for max_num_seqs sequences of
// max_model_len, capped at k_default_kv_bytes of KV memory but never below one sequence.

#include <cstdint>
#include <string>
#include <vector>

#include "api/engine_config.h"
#include "api/scheduler_config.h"
#include "common/result.h"
#include "kernels/backend.h"
#include "kernels/backend_registry.h"
#include "runtime/forward/model_weights.h"
#include "runtime/forward/paged_kv_cache.h"
#include "runtime/model/model_config.h"

namespace pagedserve {

namespace forward {
class model_forward;
}

inline constexpr std::int64_t k_default_kv_bytes = std::int64_t{1} << 30;

// Where num_blocks came from.
enum class pool_sizing { configured, default_for_host, device_memory };

struct engine_plan {
  kernels::dtype compute_type = kernels::dtype::f32;
  sched::scheduler_config sched;  // sched.num_blocks: the pool the executor allocates (> 0)
  std::int64_t weight_bytes = 0;  // the model's weights on the backend
  forward::quantized_layer_counts quantized_layers;
  forward::kv_cache_dtype kv_cache_dtype = forward::kv_cache_dtype::auto_;
  std::int64_t bytes_per_block = 0;        // K and V of one block, every layer (the draft's too)
  std::int64_t draft_bytes_per_block = 0;  // speculative draft_model: the draft's share
  std::int64_t kv_bytes = 0;               // the whole pool, padding block included
  pool_sizing sizing = pool_sizing::configured;
  std::int64_t device_total_bytes = 0;  // device_memory sizing only
  std::int64_t in_use_bytes = 0;        // ... after the profiling forward, before the pool
  // Decode batch sizes to capture as graphs (vLLM's ladder up to max_num_seqs), for
  // contexts up to sched.max_model_len; empty: eager (enforce_eager, or a host backend).
  std::vector<std::int64_t> decode_graph_batch_sizes;
  bool samples_on_device = false;
  // As the engine_config gives it; sched.num_speculative_tokens is its depth (0: off).
  speculative_config speculative;
  // Admission, as the engine_config gives them: the engine core reads the plan only.
  std::uint32_t max_waiting_requests = engine_config{}.max_waiting_requests;
  std::uint32_t max_n = engine_config{}.max_n;

  // Sequences of max_model_len the pool holds at once.
  [[nodiscard]] double max_concurrency() const;
  // Tokens one sequence can hold at most: the whole pool.
  [[nodiscard]] std::uint64_t kv_capacity_tokens() const {
    return std::uint64_t{sched.num_blocks} * sched.block_size;
  }
};

// dtype auto: float32 on the CPU; on CUDA the checkpoint's 16-bit type (bfloat16 for an
// fp32 checkpoint, as vLLM does for fp32 weights on GPUs: fp32 is for checking, and asked
// for by name).
[[nodiscard]] kernels::dtype plan_compute_type(const engine_config& config,
                                               const model_config& model);

// What the backend may trade for speed: cpu_activation_dtype int8.
[[nodiscard]] kernels::backend_options plan_backend_options(const engine_config& config);

// max_model_len within the model's max_position_embeddings.
[[nodiscard]] status check_fits_model(const engine_config& config, const model_config& model);

// `config` with the default max_model_len (scheduler_config's) lowered to the model's
// max_position_embeddings when that is shorter: as vLLM, the model decides the context unless
// asked otherwise. A value other than the default is left for check_fits_model to refuse.
[[nodiscard]] engine_config with_model_context(engine_config config, const model_config& model);

// The plan for `config` on `forward` (the model's weights already on its backend), with
// `draft` the speculative draft model's config when there is one (its layers' K/V share
// the pool's blocks). With device-memory sizing this runs the profiling forward. Errors: a pool
// that cannot hold one sequence of max_model_len (capacity_exceeded, with the figures), scheduler
// settings that do not hold (invalid_argument).
[[nodiscard]] result<engine_plan> plan_engine(const engine_config& config,
                                              forward::model_forward& forward,
                                              const model_config* draft = nullptr);

// The start-up log's lines (vLLM prints the same figures); `num_decode_graphs` is what the
// executor captured.
[[nodiscard]] std::vector<std::string> describe_plan(const engine_config& config,
                                                     const engine_plan& plan,
                                                     std::size_t num_decode_graphs);

}  // namespace pagedserve
