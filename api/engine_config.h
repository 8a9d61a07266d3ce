#pragma once
// engine_config: everything the engine needs at start-up, fixed afterwards. Built from the
// CLI/YAML by callers; validate() names the first bad field.

#include <cstdint>
#include <functional>
#include <string>

#include "api/scheduler_config.h"
#include "api/speculative_config.h"
#include "common/result.h"

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
  // vLLM's --speculative-config (api/speculative_config.h); off by default.
  speculative_config speculative;

  // KV pool: num_blocks blocks of sched.block_size tokens. 0: sized at start-up by the
  // engine_plan (runtime/plan/engine_plan.h): on the CPU for max_num_seqs sequences of
  // max_model_len (capped), on CUDA from what gpu_memory_utilization leaves after a profiling
  // forward.
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

}  // namespace pagedserve
