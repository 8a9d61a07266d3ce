#pragma once
// engine_config: everything the engine needs at start-up, fixed afterwards. Built from the
// CLI/YAML by callers; validate() names the first bad field.

#include <cstdint>
#include <functional>
#include <string>

#include "common/result.h"
#include "runtime/metrics/histogram.h"
#include "runtime/sched/finish_reason.h"
#include "runtime/sched/scheduler_config.h"

namespace pagedserve {

struct engine_config {
  // The model: a HF checkpoint folder, or a config.json with dummy weights, or (both empty)
  // the built-in demo model.
  std::string model_dir;
  std::string model_config_file;     // --model-config: dummy weights from this config
  std::string load_format = "auto";  // auto | dummy
  std::string tokenizer_dir;         // default: model_dir when it has tokenizer.json
  std::string backend = "cpu";       // cpu | cuda
  std::string dtype = "auto";        // auto | float32 | bfloat16 | float16 (CUDA; CPU: float32)
  std::uint64_t weights_seed = 0;    // dummy/demo weights
  // auto: as the checkpoint's quantization_config says (none for a 16/32-bit checkpoint);
  // awq | gptq | fp8 | compressed-tensors: must match it, except fp8 on a 16/32-bit
  // checkpoint, which quantizes the linear weights at load (per-channel, as
  // `vllm serve --quantization fp8`).
  std::string quantization = "auto";
  // auto: the KV cache in the compute type; fp8_e4m3 (or fp8): e4m3 codes with per-layer
  // scales from the checkpoint (1.0 where it has none), as vLLM's --kv-cache-dtype.
  std::string kv_cache_dtype = "auto";
  // fp32: the CPU computes with fp32 activations (a quantized folder gives the logits of its
  // dequantized twin); int8: int4 products of decode steps (under 16 rows) take activations
  // quantized to int8 per weight group where the processor has AVX512-VNNI, as llama.cpp's
  // Q4_0 x Q8_0 (faster decode, slightly different logits). CPU backend only.
  std::string cpu_activation_dtype = "fp32";
  // auto: the OpenAI API's sampling defaults come from the model's generation_config.json
  // (runtime/model/generation_defaults.h), as vLLM's --generation-config auto; vllm: the
  // API's own defaults (temperature 1, ...) whatever the model recommends.
  std::string generation_config = "auto";

  // KV pool: num_blocks blocks of sched.block_size tokens. 0: sized at start-up by the
  // engine_plan (engine_plan.h): on the CPU for max_num_seqs sequences of max_model_len
  // (capped), on CUDA from what gpu_memory_utilization leaves after a profiling forward.
  sched::scheduler_config sched;
  double gpu_memory_utilization = 0.9;  // (0, 1]; CUDA only
  // CUDA: run decode steps eagerly instead of replaying captured graphs (debugging).
  bool enforce_eager = false;

  std::uint32_t max_waiting_requests = 4096;  // past it: submit fails at once
  std::uint32_t max_n = 16;                   // completions per request

  // Test hook passed to the executor: runs before each step; may throw to fail that step.
  std::function<void(std::uint64_t step)> before_step;
};

[[nodiscard]] status validate(const engine_config& config);

// What one executor step cost (the executor reports it with the step's output).
struct executor_step_figures {
  double idle_s = 0.0;         // the executor waited for this step's plan (work was in flight)
  double busy_s = 0.0;         // executor time for the step, waits for the device included
  double host_s = 0.0;         // ... excluded
  double device_idle_s = 0.0;  // the device idle before the step (CUDA events; else 0)
  double device_busy_s = 0.0;  // the device running the step
  bool replayed_graph = false;
};

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

  [[nodiscard]] std::uint64_t num_finished() const {
    return num_finished_stop + num_finished_length + num_cancelled + num_failed;
  }
  // The counter of `reason`.
  [[nodiscard]] std::uint64_t& num_finished_by(finish_reason reason);
};

}  // namespace pagedserve
