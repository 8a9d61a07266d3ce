#pragma once
// engine_model_info: what a server needs to know about the loaded model (the name it
// answers to, limits, tokenizer, EOS ids). Fixed once the engine has started; no CAF here.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/generation_defaults.h"
#include "api/pooling_params.h"
#include "common/types.h"

namespace pagedserve {

// runtime/tokenizer/tokenizer.h; a client that encodes or decodes includes it.
class tokenizer;

struct engine_model_info {
  // The built-in models: "pagedserve-demo" (shipped, trained) or "demo-random"; a
  // checkpoint: its folder's name; a bare model config file: its file name without extension.
  std::string name;
  std::uint32_t max_model_len = 0;
  std::uint32_t vocab_size = 0;
  std::uint32_t block_size = 0;
  std::uint32_t num_blocks = 0;  // the KV pool, resolved (never 0 once started)
  std::uint32_t max_n = 0;
  std::shared_ptr<const tokenizer> tok;  // null when the model has none (ids only)
  std::vector<token_id> eos_token_ids;
  std::string quantization = "none";    // loaded_model::quantization
  std::string kv_cache_dtype = "auto";  // the KV cache's element type
  // The OpenAI API's defaults for fields a request leaves out (generation_config auto).
  generation_defaults sampling_defaults;
  // Embeddings (/v1/embeddings): the vectors' size, the pooling the folder declares
  // (sentence-transformers' Pooling module; absent: the server's pooling_type key decides),
  // and whether `dimensions` may cut them (Matryoshka; empty list: any size).
  std::uint32_t hidden_size = 0;
  std::optional<pooling_type> declared_pooling;
  bool is_matryoshka = false;
  std::vector<std::uint32_t> matryoshka_dimensions;
};

}  // namespace pagedserve
