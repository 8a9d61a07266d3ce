// The engine's key table (engine_keys.h): one row per key, each from a field accessor.

#include "api/engine_keys.h"

#include "api/scheduler_keys.h"

#include <string>
#include <utility>

namespace pagedserve {
namespace {

// A scheduler_config row (api/scheduler_keys.h) on engine_config's `sched`.
engine_key scheduler_row(std::string_view key) {
  return lift_key<engine_config>(
      sched::find_scheduler_key(key), [](auto& c) -> auto& { return c.sched; });
}

// Accessors: a generic lambda per field, usable on a mutable or a const config.
#define PAGEDSERVE_FIELD(path) \
  [](auto& c) -> auto& { return c.path; }

std::vector<engine_key> model_keys() {
  return {
      string_key<engine_config>(
          "model",
          "HF checkpoint folder (config.json + *.safetensors [+ tokenizer.json]), or "
          "pagedserve-demo (the built-in demo model, trained here; the default) or demo-random "
          "(random weights, byte-level tokenizer)",
          PAGEDSERVE_FIELD(model_dir)),
      string_key<engine_config>("tokenizer",
                                "folder with tokenizer.json; empty: the model folder's",
                                PAGEDSERVE_FIELD(tokenizer_dir)),
      choice_key<engine_config>("load_format",
                                "auto (read the safetensors) | dummy (random weights)",
                                PAGEDSERVE_FIELD(load_format), {"auto", "dummy"}),
      string_key<engine_config>(
          "model_config",
          "a config.json to run with random weights (benchmarks); exclusive with model",
          PAGEDSERVE_FIELD(model_config_file)),
      choice_key<engine_config>(
          "quantization",
          "auto (as the checkpoint's quantization_config says) | awq | gptq | fp8 | "
          "compressed-tensors: must match the checkpoint, except fp8 on a 16/32-bit "
          "checkpoint, which quantizes the linear weights at load (per-channel)",
          PAGEDSERVE_FIELD(quantization), {"auto", "awq", "gptq", "fp8", "compressed-tensors"}),
      choice_key<engine_config>("backend", "cpu | cuda", PAGEDSERVE_FIELD(backend),
                                {"cpu", "cuda"}),
      choice_key<engine_config>(
          "cpu_activation_dtype",
          "fp32 (exact: a quantized folder gives its dequantized twin's logits) | int8: int4 "
          "weights' decode products take activations quantized to int8 per group where the "
          "processor has AVX512-VNNI (llama.cpp's Q4_0 x Q8_0 numerics; faster, slightly "
          "different logits); cpu backend only",
          PAGEDSERVE_FIELD(cpu_activation_dtype), {"fp32", "int8"}),
      choice_key<engine_config>(
          "generation_config",
          "auto (requests that leave temperature, top_p, top_k, min_p or repetition_penalty "
          "out get the model's generation_config.json values, as vLLM) | vllm (the API's own "
          "defaults)",
          PAGEDSERVE_FIELD(generation_config), {"auto", "vllm"}),
      choice_key<engine_config>(
          "dtype",
          "weights and activations on the CUDA backend: auto (the checkpoint's "
          "16-bit type) | float32 | bfloat16 | float16; the cpu backend computes in "
          "float32 only (auto or float32)",
          PAGEDSERVE_FIELD(dtype), {"auto", "float32", "bfloat16", "float16"}),
      bool_key<engine_config>(
          "enforce_eager",
          "CUDA: run every step eagerly instead of replaying captured decode graphs "
          "(ignored on cpu)",
          PAGEDSERVE_FIELD(enforce_eager)),
      unsigned_key<engine_config, std::uint64_t>("seed", "seed of the random (dummy/demo) weights",
                                                 PAGEDSERVE_FIELD(weights_seed)),
  };
}

std::vector<engine_key> cache_keys() {
  return {
      scheduler_row("max_model_len"),
      scheduler_row("block_size"),
      choice_key<engine_config>(
          "kv_cache_dtype",
          "auto (the compute type) | fp8_e4m3 (alias fp8): the KV cache in e4m3 with the "
          "checkpoint's per-layer k/v scales (1.0 where it has none); half the bytes of bf16, "
          "a quarter of fp32 (cpu and cuda backends)",
          PAGEDSERVE_FIELD(kv_cache_dtype), {"auto", "fp8", "fp8_e4m3"}),
      scheduler_row("num_blocks"),
      double_key<engine_config>(
          "gpu_memory_utilization",
          "fraction of GPU memory for weights, activations and KV cache, in (0, 1]; "
          "CUDA backend only (accepted and ignored on cpu)",
          PAGEDSERVE_FIELD(gpu_memory_utilization), {0.0, false, 1.0}),
      scheduler_row("enable_prefix_caching"),
  };
}

std::vector<engine_key> batching_keys() {
  return {
      scheduler_row("max_num_seqs"),
      scheduler_row("max_num_batched_tokens"),
      scheduler_row("enable_chunked_prefill"),
      scheduler_row("long_prefill_token_threshold"),
      scheduler_row("scheduling_policy"),
      unsigned_key<engine_config, std::uint32_t>(
          "max_waiting_requests", "waiting requests beyond which new ones fail at once (429)",
          PAGEDSERVE_FIELD(max_waiting_requests), 1),
      unsigned_key<engine_config, std::uint32_t>("max_n",
                                                 "most completions per request (the n parameter)",
                                                 PAGEDSERVE_FIELD(max_n), 1, 256),
  };
}

// speculative_config: a JSON object (a YAML map in the config file), as vLLM's flag.
engine_key speculative_row() {
  engine_key row;
  row.info = {"speculative_config",
              "speculative decoding, vLLM's JSON object: {\"method\": \"ngram\", "
              "\"num_speculative_tokens\": 4, \"prompt_lookup_max\": 4} (prompt lookup over "
              "the request's prompt and output; prompt_lookup_min/max default to 5); empty: off",
              false, false, true};
  row.set = [](engine_config& c, std::string_view v) {
    auto parsed = parse_speculative_config(v);
    if (!parsed) return status(parsed.err());
    c.speculative = std::move(*parsed);
    return status::success();
  };
  row.get = [](const engine_config& c) { return format_speculative_config(c.speculative); };
  return row;
}

std::vector<engine_key> speculative_keys() { return {speculative_row()}; }

#undef PAGEDSERVE_FIELD

std::vector<engine_key> make_table() {
  std::vector<engine_key> table;
  for (auto* part : {&model_keys, &cache_keys, &batching_keys, &speculative_keys}) {
    for (engine_key& e : part()) table.push_back(std::move(e));
  }
  return table;
}

}  // namespace

const std::vector<engine_key>& engine_keys() {
  static const std::vector<engine_key> table = make_table();
  return table;
}

const engine_key* find_engine_key(std::string_view key) { return find_key(engine_keys(), key); }

}  // namespace pagedserve
