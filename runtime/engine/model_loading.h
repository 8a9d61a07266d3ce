#pragma once
// model_loading: what spawn_engine needs from disk, resolved from an engine_config the way
// `pagedserve generate` resolves its flags: model_dir (config.json + safetensors, or dummy
// weights with load_format dummy), model_config_file (dummy weights), or a built-in name
// (built_in_model.h: the shipped pagedserve-demo folder, the default, or the in-memory
// demo-random). The tokenizer comes from tokenizer_dir, else from the model folder when it
// has a tokenizer.json, else (demo-random) the byte-level demo tokenizer.

#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/model/generation_defaults.h"

#include "api/engine_config.h"
#include "common/result.h"
#include "runtime/engine/built_in_model.h"
#include "runtime/model/checkpoint.h"
#include "runtime/model/embedding_config.h"
#include "runtime/model/model_config.h"
#include "runtime/tokenizer/tokenizer.h"

namespace pagedserve {

struct loaded_model {
  model_config config;
  std::shared_ptr<const checkpoint> weights;
  std::shared_ptr<const tokenizer> tok;  // null when there is none
  std::vector<token_id> eos_token_ids;   // model + generation config + tokenizer, no repeats
  // How the linear weights are stored: "none", the checkpoint's method ("awq", "gptq",
  // "fp8", "compressed-tensors") with its details, or "fp8 (quantized at load)".
  std::string quantization = "none";
  // generation_config auto: what the folder's generation_config.json recommends.
  generation_defaults sampling_defaults;
  // What the folder declares about embeddings (sentence-transformers' pooling, Matryoshka).
  embedding_config embedding;
};

// All of it: config, weights (checked against the config), tokenizer, EOS ids.
[[nodiscard]] result<loaded_model> load_engine_model(const engine_config& config);
// All of it but the weights (null; quantization stays "none"): what a router in front of
// engines in other processes needs to tokenize and to answer for the model.
[[nodiscard]] result<loaded_model> load_engine_model_description(const engine_config& config);
// The steps, for callers that need the config before (or without) the weights.
[[nodiscard]] result<model_config> load_engine_model_config(const engine_config& config);
// The weights as `config.quantization` asks: quantized layers as the checkpoint stores them
// (or fp8 made at load); `quantization_out`, when set, receives the description above.
[[nodiscard]] result<std::shared_ptr<const checkpoint>> load_engine_weights(
    const engine_config& config, const model_config& model,
    std::string* quantization_out = nullptr);

}  // namespace pagedserve
